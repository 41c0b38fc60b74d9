// Shared pieces of the end-to-end tests: a static server for dist/ that also
// answers under a sub-path, and Debian's Chromium launched headless.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { after, before } from "node:test";
import { extname, join, normalize, resolve } from "node:path";
import { chromium } from "playwright-core";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

export const DIST = resolve(process.env.WARPLAB_DIST ?? new URL("../../dist", import.meta.url).pathname);
export const SUB_PATH = "/course/warplab/";
export const SCREENSHOTS = new URL("../screenshots/", import.meta.url).pathname;
export const CLI = process.env.WARPLAB_CLI ?? new URL("../../target/debug/warplab", import.meta.url).pathname;
export const runCli = promisify(execFile);

// The experiment a page's URL carries, as `warplab experiment show` decodes it.
export async function experimentIn(url) {
  const { stdout } = await runCli(CLI, ["experiment", "show", url]);
  return JSON.parse(stdout);
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

// The headers that make a page cross-origin isolated (`cargo xtask serve` sends
// them; www/sw.js adds them where a host cannot): the worker then loads its
// threaded build.
const ISOLATION = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };

// Serves DIST at "/" and at SUB_PATH; records every path asked for, so a test
// can check that the app only asks for URLs under its own base. With
// `isolated`, every answer carries the isolation headers.
export async function serveDist({ isolated = false } = {}) {
  await stat(join(DIST, "index.html")); // fails loudly when dist/ was not built
  const requested = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, "http://x").pathname);
    requested.push(path);
    const inside = path.startsWith(SUB_PATH) ? path.slice(SUB_PATH.length - 1) : path;
    let file = normalize(join(DIST, inside));
    if (!file.startsWith(DIST)) {
      response.writeHead(403).end();
      return;
    }
    if (inside.endsWith("/")) file = join(file, "index.html");
    try {
      const body = await readFile(file);
      const type = { "content-type": TYPES[extname(file)] ?? "application/octet-stream" };
      response.writeHead(200, isolated ? { ...type, ...ISOLATION } : type).end(body);
    } catch {
      response.writeHead(404).end("not found");
    }
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, requested, close: () => new Promise((done) => server.close(done)) };
}

export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-dev-shm-usage",
    ],
  });
}

// Opens `url` in a fresh page and collects everything the page reports as an
// error; `before(page)`, if given, runs before the page loads (init scripts).
export async function openPage(browser, url, { before, inContext = false } = {}) {
  const viewport = { width: 1200, height: 700 };
  // A page of its own context (closed with `page.context().close()`), for
  // tools that open pages beside it, as AxeBuilder does.
  const page = inContext ? await (await browser.newContext({ viewport })).newPage() : await browser.newPage({ viewport });
  if (before) await before(page);
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  return { page, errors };
}

// The `#x=` link of `experiment` (the JSON `warplab experiment show` prints),
// written by the CLI.
export async function linkOf(experiment) {
  const file = join(tmpdir(), `warplab-link-${process.pid}-${(linkOf.count = (linkOf.count ?? 0) + 1)}.json`);
  await writeFile(file, JSON.stringify(experiment));
  const { stdout } = await runCli(CLI, ["experiment", "link", file]);
  return stdout.trim();
}

// `url` without its link's version character: a page writes links of its own
// version, and an older link it opens comes back with the same payload under
// the newer version whenever the experiment's JSON is unchanged.
export const unversioned = (url) => url.replace(/#x=\d/, "#x=");

// The number in the `data-value` of the element with `data-testid` = `testid`.
export const dataValue = (page, testid) => page.getByTestId(testid).getAttribute("data-value").then(Number);

// The trimmed text of the element with `data-testid` = `testid`.
export async function textOf(page, testid) {
  return (await page.getByTestId(testid).textContent()).trim();
}

// Polls `condition` (a test of the test's own state, not the page's) every
// 100 ms until it holds, failing with `what` after `timeout` ms.
export async function waitUntil(condition, what, timeout = 10_000) {
  for (let waited = 0; waited < timeout && !condition(); waited += 100) await new Promise((done) => setTimeout(done, 100));
  assert.ok(condition(), what);
}

// Waits until the element's text equals `expected`.
export async function waitForText(page, testid, expected) {
  await page.waitForFunction(
    ([id, text]) => document.querySelector(`[data-testid="${id}"]`)?.textContent.trim() === text,
    [testid, expected],
    { timeout: 20_000 },
  );
}

// Serves dist/ and launches Chromium before a file's tests, and stops both
// after them; the returned object's `server` and `browser` are set by then.
export function serverAndBrowser({ isolated = false } = {}) {
  const shared = {};
  before(async () => {
    shared.server = await serveDist({ isolated });
    shared.browser = await launchChromium();
    await mkdir(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  return shared;
}

// A page with strided gs = 32 on mdm-pascal-28sm loaded (the MDM paper's
// memory-divergent kernel on its GPU), watching for main-thread long tasks
// from here on in `window.longTasks` (see `watchLongTasks`).
export async function openStridedOnPascal(shared) {
  const { page, errors } = await openWithPreset(shared, "mdm-pascal-28sm", 28, { width: 1280, height: 900 });
  await page.getByTestId("workload-select").selectOption("generator:strided");
  await waitForText(page, "workload-label", "strided");
  await page.getByTestId("knob-gs").fill("500"); // the log slider's middle: 32
  await waitForText(page, "workload-label", "strided:gs=32");
  await watchLongTasks(page);
  return { page, errors };
}

// A fresh page of `viewport`'s size with the preset `name` (of `sms` SMs) loaded.
export async function openWithPreset(shared, name, sms, viewport) {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.setViewportSize(viewport);
  await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
  await page.getByTestId("preset-select").selectOption(name);
  await waitForText(page, "config-sms", String(sms));
  return { page, errors };
}

// Until the simulated figure shows: whether the scale models were being
// simulated while the run still was (`beside`), and while the analytical
// card still said it was profiling (`profiling`). The scale card names a
// step of the scale run, or its start, while one is under way.
export async function scaleSeenDuringRun(page, timeout = 120_000) {
  const seen = await page.waitForFunction(
    () => {
      const pending = (card) => document.querySelector(`[data-testid="ipc-${card}-pending"]`)?.textContent ?? "";
      const scaling = /^(step \d|starting the scale models)/.test(pending("scale"));
      if (pending("simulated").startsWith("simulating") && scaling) window.scaleSeen = true;
      if (pending("analytical").startsWith("profiling") && scaling) window.scaleWhileProfiling = true;
      const simulated = document.querySelector('[data-testid="ipc-simulated-value"]');
      const during = { beside: Boolean(window.scaleSeen), profiling: Boolean(window.scaleWhileProfiling) };
      return simulated?.hasAttribute("data-value") ? JSON.stringify(during) : null;
    },
    null,
    { polling: 50, timeout },
  );
  return JSON.parse(await seen.jsonValue());
}

// Waits until the simulated and scale-model figures both show: after that
// the panels above a section stop changing height (the run's report mounts,
// the strip's scale card takes its figure), so a scroll stays where it went.
export async function figuresSettled(page, timeout = 180_000) {
  await page.waitForFunction(
    () => ["simulated", "scale"].every((id) => document.querySelector(`[data-testid="ipc-${id}-value"]`)?.hasAttribute("data-value")),
    null,
    { polling: 100, timeout },
  );
}

// Records the main thread's blocking work from here on: `window.longTasks`,
// every task over 50 ms (the Long Tasks API), and `window.longScripts`, every
// script that ran in a frame over 50 ms with its duration and what invoked it
// (the Long Animation Frames API). A deliberate 80-ms task first shows both
// observers see it (so empty lists mean something).
export async function watchLongTasks(page) {
  await page.evaluate(async () => {
    window.longTasks = [];
    window.longScripts = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
      type: "longtask",
    });
    new PerformanceObserver((list) => {
      for (const frame of list.getEntries()) {
        for (const script of frame.scripts) window.longScripts.push({ ms: script.duration, by: script.invoker });
      }
    }).observe({ type: "long-animation-frame" });
    await new Promise((done) =>
      setTimeout(() => {
        const start = performance.now();
        while (performance.now() - start < 80);
        done();
      }),
    );
  });
  await page.waitForFunction(
    () => window.longTasks.some((ms) => ms >= 80) && window.longScripts.some((s) => s.ms >= 80),
    null,
    { timeout: 5_000 },
  );
  await page.evaluate(() => {
    window.longTasks = [];
    window.longScripts = [];
  });
}

// Checks that nothing the page's own code ran on the main thread since
// `watchLongTasks` took over `MAIN_THREAD_SCRIPT_MS`: the simulations and
// analyses belong in the workers. Everything over 50 ms is logged. Frames
// whose rendering alone took long are allowed, and so is a script up to the
// bound: on a 2-core machine the page's two or three workers run at full
// speed beside the main thread, and a 15-ms paint stretched by them to 50–85
// ms of wall-clock time (as Chromium traces of these tests show), or a 20-ms
// render to 62 ms on a machine busier still, is the machine's contention,
// not the page's work. A simulation or a profile on the main thread takes
// seconds, far past the bound.
export const MAIN_THREAD_SCRIPT_MS = 200;

export async function assertMainThreadFree(page, during) {
  const { longTasks, longScripts } = await page.evaluate(() => ({
    longTasks: window.longTasks,
    longScripts: window.longScripts,
  }));
  const scripts = longScripts.map((s) => `${Math.round(s.ms)} ms ${s.by}`);
  console.log(`# main-thread tasks over 50 ms ${during} (ms): ${JSON.stringify(longTasks.map(Math.round))}`);
  console.log(`# scripts in frames over 50 ms ${during}: ${JSON.stringify(scripts)}`);
  const slow = longScripts.filter((s) => s.ms > MAIN_THREAD_SCRIPT_MS);
  assert.deepEqual(slow, [], `a main-thread script ${during} took over ${MAIN_THREAD_SCRIPT_MS} ms: ${scripts}`);
}

// Drops `paths` (files on disk, named by their base names) on the page's
// drop zone, as a user dragging them from a file manager would.
export async function dropFiles(page, paths) {
  const files = [];
  for (const path of paths) files.push({ name: path.split("/").pop(), bytes: [...(await readFile(path))] });
  const transfer = await page.evaluateHandle((files) => {
    const transfer = new DataTransfer();
    for (const { name, bytes } of files) transfer.items.add(new File([new Uint8Array(bytes)], name));
    return transfer;
  }, files);
  await page.getByTestId("drop-zone").first().dispatchEvent("drop", { dataTransfer: transfer });
}
