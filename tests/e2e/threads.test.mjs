// The threaded worker (issue 40): where the page is cross-origin isolated,
// worker.js loads the threaded build, which starts rayon's pool on Web Workers
// and runs the SMs' phase of each cycle on it; elsewhere the single-thread
// build runs. Either way the page's whole run report (its JSON download) is
// the one the CLI computes for the page's own link: the results do not
// depend on the build or the threads, sampled, stepped or not. The service
// worker makes a page isolated where its host sends no headers, and the
// threaded build's memory holds the largest preset.
// The time each build takes to the simulated figure is reported, not held to
// a bound (speed goals live in benchmarks; docs/performance.md).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import {
  CLI,
  launchChromium,
  linkOf,
  openPage,
  runCli,
  scaleSeenDuringRun,
  serveDist,
  textOf,
  waitUntil,
} from "./harness.mjs";

// The run report's figures the two builds must show alike.
const REPORT_FIGURES = ["ipc", "warp-ipc", "cycles", "thread-insts", "warp-insts", "f-mem", "l2-mpki"];
const runs = {};

const servers = {};
let browser;
before(async () => {
  servers.isolated = await serveDist({ isolated: true });
  servers.plain = await serveDist();
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

// Counts the pool threads of the pages it watches: wasm-bindgen-rayon starts
// each as a Web Worker from a blob.
function poolCounter() {
  const counter = { threads: 0 };
  counter.watch = (page) => page.on("worker", (worker) => (counter.threads += worker.url().startsWith("blob:")));
  return counter;
}

// The page at `path`'s simulated IPC, the seconds from navigation to it,
// whether the page was cross-origin isolated, and its whole run report.
async function simulated(server, path = "/") {
  const started = Date.now();
  const pool = poolCounter();
  const { page, errors } = await openPage(browser, `${server.origin}${path}`, { before: pool.watch });
  // Whether the scale models were simulated while the run was: the page
  // starts them beside the run only where it leaves cores for them.
  const { beside } = await scaleSeenDuringRun(page);
  const value = page.locator('[data-testid="ipc-simulated-value"][data-value]');
  const seconds = (Date.now() - started) / 1000;
  const ipc = Number(await value.getAttribute("data-value"));
  const [isolated, cores] = await page.evaluate(() => [self.crossOriginIsolated, navigator.hardwareConcurrency]);
  const report = {};
  for (const id of REPORT_FIGURES) report[id] = await textOf(page, id);
  const json = await downloadedReport(page);
  const url = page.url();
  await page.close();
  assert.deepEqual(errors, [], "no page errors");
  return { ipc, seconds, isolated, cores, url, report, json, poolThreads: pool.threads, beside };
}

// The run report the page saves as `report.json`.
async function downloadedReport(page) {
  const [saved] = await Promise.all([page.waitForEvent("download"), page.getByTestId("report-download").click()]);
  assert.equal(saved.suggestedFilename(), "report.json");
  return JSON.parse(await readFile(await saved.path(), "utf8"));
}

// The CLI's timing model's whole report for the experiment in `url`.
async function cliReport(url) {
  const { stdout } = await runCli(CLI, ["run", "--link", url, "--json", "--no-scale"], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout).simulated;
}

test("an isolated page runs the threaded worker, with the CLI's figures", async (t) => {
  const run = await simulated(servers.isolated);
  assert.ok(run.isolated, "the COOP/COEP headers isolate the page");
  const asked = servers.isolated.requested;
  assert.ok(asked.includes("/warplab_worker_mt_bg.wasm"), `the threaded build loads (asked: ${asked.join(", ")})`);
  // Each of the page's workers starts a pool of one thread fewer than the
  // cores (at most eight in all): its simulating thread runs a share itself.
  const runThreads = Math.min(run.cores, 8);
  if (run.cores > 1) assert.ok(run.poolThreads >= runThreads - 1, `the pool starts (${run.poolThreads} threads)`);
  // The threaded run takes every core up to eight, leaving the scale models
  // none beside it until it ends.
  if (run.cores - runThreads < 1) assert.equal(run.beside, false, "the scale models wait for the threaded run");
  const cli = await cliReport(run.url);
  assert.equal(run.ipc, cli.ipc, "the threaded build's simulated IPC is the CLI's");
  assert.deepEqual(run.json, cli, "the threaded build's whole report is the CLI's");
  runs.threaded = run;
  t.diagnostic(`threaded build: simulated IPC ${run.ipc} after ${run.seconds.toFixed(1)} s`);
});

test("a page that is not isolated runs the single-thread worker, with the same figures", async (t) => {
  const run = await simulated(servers.plain);
  assert.equal(run.isolated, false);
  assert.equal(run.poolThreads, 0, "no pool");
  const asked = servers.plain.requested;
  assert.ok(asked.includes("/warplab_worker_bg.wasm"), "the single-thread build loads");
  const cli = await cliReport(run.url);
  assert.equal(run.ipc, cli.ipc, "the single-thread build's simulated IPC is the CLI's");
  assert.deepEqual(run.json, cli, "the single-thread build's whole report is the CLI's");
  runs.single = run;
  t.diagnostic(`single-thread build: simulated IPC ${run.ipc} after ${run.seconds.toFixed(1)} s`);
});

test("both builds show the same run report", () => {
  assert.ok(runs.threaded && runs.single, "both runs above finished");
  assert.deepEqual(runs.threaded.report, runs.single.report);
  assert.deepEqual(runs.threaded.json, runs.single.json);
});

test("the service worker isolates a page whose host sends no isolation headers", async () => {
  const pool = poolCounter();
  const { page, errors } = await openPage(browser, `${servers.plain.origin}/`, { before: pool.watch });
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), false, "the first visit is not isolated");
  // The worker claims the page once it is active; from the next load on it
  // answers every request, adding the headers.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  await page.reload();
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, "the second visit is isolated");
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  // The page's worker then loads the threaded build, whose pool starts
  // before it reads its first message.
  if (cores > 1) await waitUntil(() => pool.threads > 0, "the threaded build's pool starts", 30_000);
  await page.close();
  assert.deepEqual(errors, [], "no page errors");
});

test("Photon sampling in the threaded build gives the CLI's whole report", async () => {
  // Four identical launches: the timing model simulates the first (in detail
  // or sampled by warps) and reuses its IPC for the other three.
  const experiment = {
    config: { preset: "SM7_QV100" },
    workload: { generated: { kernel: "vecadd", knobs: [["launches", 4]] } },
    sampling: "photon",
  };
  const run = await simulated(servers.isolated, `/${await linkOf(experiment)}`);
  assert.ok(run.isolated);
  assert.ok(run.json.sampling, "the run was sampled");
  assert.deepEqual(run.json, await cliReport(run.url), "the sampled run's whole report is the CLI's");
});

test("a threaded run paused, stepped by a cycle and an event, and resumed gives the CLI's whole report", async () => {
  const experiment = {
    config: { preset: "mdm-pascal-28sm" },
    workload: { generated: { kernel: "strided", size: 180, knobs: [["gs", 32]] } },
  };
  const { page, errors } = await openPage(browser, `${servers.isolated.origin}/${await linkOf(experiment)}`);
  // Waits until the animation's cycle is between `low` and `high`.
  const cycleBetween = (low, high = Number.MAX_SAFE_INTEGER) =>
    page.waitForFunction(
      ([lo, hi]) => {
        const shown = Number(document.querySelector('[data-testid="animation-cycle"]').textContent.replaceAll(",", ""));
        return lo <= shown && shown <= hi;
      },
      [low, high],
      { timeout: 30_000 },
    );
  const statusStarts = (word, timeout = 30_000) =>
    page.waitForFunction((w) => document.querySelector('[data-testid="run-status"]')?.textContent.startsWith(w), word, { timeout });
  // The link's run starts by itself: pause it as soon as it has begun.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="run-progress"]')?.value) > 0, null, {
    timeout: 60_000,
  });
  await page.getByTestId("pause").click();
  await statusStarts("paused");
  const paused = Number((await textOf(page, "animation-cycle")).replaceAll(",", ""));
  for (let step = 1; step <= 3; step++) {
    await page.getByTestId("step-cycle").click();
    await cycleBetween(paused + step, paused + step);
  }
  await page.getByTestId("step-event").click();
  await cycleBetween(paused + 4);
  assert.match(await textOf(page, "run-status"), /^paused/, "stepping leaves the run paused");
  await page.getByTestId("play").click();
  await statusStarts("finished", 120_000);
  const json = await downloadedReport(page);
  assert.ok(paused < json.cycles, `paused inside the run (cycle ${paused} of ${json.cycles})`);
  assert.deepEqual(json, await cliReport(page.url()), "the stepped run's whole report is the CLI's");
  await page.close();
  assert.deepEqual(errors, [], "no page errors");
});

test("the threaded build's memory holds the largest preset", async (t) => {
  // chiplet-1024sm, 1,024 SMs, is the preset that takes the most memory (the
  // GPU's state, not the kernel's): a small kernel keeps the test short.
  const experiment = {
    config: { preset: "chiplet-1024sm" },
    workload: { generated: { kernel: "vecadd", size: 64, knobs: [] } },
  };
  const run = await simulated(servers.isolated, `/${await linkOf(experiment)}`);
  assert.ok(run.isolated);
  assert.deepEqual(run.json, await cliReport(run.url), "the chiplet GPU's whole report is the CLI's");
  t.diagnostic(`chiplet-1024sm in the threaded build: simulated IPC ${run.ipc} after ${run.seconds.toFixed(1)} s`);
});
