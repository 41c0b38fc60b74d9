// The lab as one product (issue 9): the default page shows three IPCs, the
// URL always carries the experiment, and every figure the page shows is the
// figure `warplab run --link URL --json` prints for the experiment decoded
// from the page's own URL. Also: an MSHR edit moves the analytical IPC,
// a pinned baseline shows the change, run/cancel/run, a link opened in
// another browser context shows the same numbers and state, and a damaged
// link shows a message and the default experiment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  CLI, dropFiles, experimentIn, openPage, runCli, scaleSeenDuringRun, serverAndBrowser, SCREENSHOTS, textOf, unversioned,
  waitForText, watchLongTasks,
} from "./harness.mjs";

const shared = serverAndBrowser();
// The model the strip's analytical card leads with (`warplab_lab::HEADLINE`);
// MDM as published is on the same card (`ipc-mdm-value`).
const HEADLINE = "warplab";

// What the CLI prints for the experiment in `url`'s fragment.
async function cliFigures(url, { scale = false, trace, config } = {}) {
  const files = [...(trace ? ["--trace", trace] : []), ...(config ? ["--config", config] : [])];
  const args = ["run", "--link", url, "--json", ...(scale ? [] : ["--no-scale"]), ...files];
  const { stdout } = await runCli(CLI, args, { maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

// The figure the page shows in the strip (`simulated`, `analytical`, `mdm`, `scale`), once it is there.
async function figure(page, id, timeout = 30_000) {
  const value = page.locator(`[data-testid="ipc-${id}-value"][data-value]`);
  await value.waitFor({ timeout });
  return Number(await value.getAttribute("data-value"));
}

// The page's figure equals the CLI's to the printed digits of a double.
function same(pageValue, cliValue, what) {
  assert.ok(Math.abs(pageValue - cliValue) <= 1e-9 * Math.abs(cliValue), `${what}: page ${pageValue}, CLI ${cliValue}`);
}

// Runs `open` (files picked or dropped), waits until the page's link has
// changed to the new experiment, and returns that experiment as the CLI
// decodes it.
async function experimentAfter(page, open) {
  const before = new URL(page.url()).hash;
  await open();
  await page.waitForFunction((old) => location.hash !== old, before, { timeout: 20_000 });
  return experimentIn(page.url());
}

async function checkAgainstCli(page, { scale = false, trace } = {}) {
  const url = page.url();
  assert.match(url, /#x=\d/, "the URL carries the experiment");
  const cli = await cliFigures(url, { scale, trace });
  same(await figure(page, "simulated"), cli.simulated.ipc, "simulated IPC");
  same(await figure(page, "analytical"), cli.analytical.models[HEADLINE].ipc, "the headline model's IPC");
  same(await figure(page, "mdm"), cli.analytical.models.mdm.ipc, "MDM's IPC");
  if (scale) same(await figure(page, "scale", 180_000), cli.scale.ipc, "scale-model IPC");
  return cli;
}

test("the default page shows three IPCs, the CLI's for the page's own link", async () => {
  const start = Date.now();
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await figure(page, "simulated");
  await figure(page, "analytical");
  const seconds = (Date.now() - start) / 1000;
  console.log(`# time to the simulated and analytical IPCs of the default experiment: ${seconds.toFixed(2)} s`);
  // Issue 26's figure: all three IPCs (printed, never asserted: speed goals
  // live in benchmarks).
  await figure(page, "scale", 180_000);
  const all = (Date.now() - start) / 1000;
  console.log(`# time to the three IPCs (simulated, analytical, scale-model) of the default experiment: ${all.toFixed(2)} s`);
  await page.screenshot({ path: `${SCREENSHOTS}lab-default.png` });
  await checkAgainstCli(page, { scale: true });
  await page.screenshot({ path: `${SCREENSHOTS}lab-default-scale.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

// Whether the scale-model figure was being predicted while the simulated one
// still said "simulating…" (`beside`), and while the analytical one still said
// "profiling the workload" (`profiling`), on a page that reports `cores`
// logical cores (the page starts the scale models beside the run from three
// on; on two once the profile has ended, so that two workers share the cores).
async function scaleBesideRun(cores) {
  const reportCores = (page) =>
    page.addInitScript((n) => Object.defineProperty(navigator, "hardwareConcurrency", { get: () => n }), cores);
  const start = Date.now();
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/", { before: reportCores });
  const during = await scaleSeenDuringRun(page, 60_000);
  await figure(page, "scale", 180_000);
  const seconds = (Date.now() - start) / 1000;
  console.log(`# time to the three IPCs on a page that reports ${cores} cores: ${seconds.toFixed(2)} s`);
  assert.deepEqual(errors, []);
  await page.close();
  return during;
}

test("the scale models start beside the run when a core is free: at once on four cores, after the profile on two", async () => {
  const four = await scaleBesideRun(4);
  assert.equal(four.beside, true, "four cores: the scale models start with the run");
  const two = await scaleBesideRun(2);
  assert.equal(two.beside, true, "two cores: they take the profile's core before the run ends");
  assert.equal(two.profiling, false, "two cores: never beside the profile and the run at once");
});

test("an MSHR edit moves the analytical IPC; a pinned baseline shows the change; the link carries both", async () => {
  const headline = (cli) => cli.analytical.models[HEADLINE].ipc;
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.getByTestId("preset-select").selectOption("mdm-pascal-28sm");
  await page.getByTestId("workload-select").selectOption("generator:strided");
  await page.getByTestId("knob-gs").fill("500"); // the log slider's middle: 32
  await page.waitForFunction(() => document.querySelector('[data-testid="workload-label"]')?.textContent.trim() === "strided:gs=32");
  const before = await checkAgainstCli(page);
  await page.getByTestId("pin-baseline").click();
  const mshrs = page.getByTestId("config-knob-l1_mshrs-value");
  await mshrs.fill("16");
  await mshrs.press("Enter");
  await page.waitForFunction(
    (old) => {
      const value = document.querySelector('[data-testid="ipc-analytical-value"]')?.dataset.value;
      return value !== undefined && Number(value) !== old;
    },
    headline(before),
    { timeout: 30_000 },
  );
  await figure(page, "simulated", 60_000);
  const after = await checkAgainstCli(page);
  assert.notEqual(headline(after), headline(before), "16 MSHRs move the headline model");
  assert.notEqual(after.analytical.models.mdm.ipc, before.analytical.models.mdm.ipc, "16 MSHRs move MDM");
  const baseline = Number(await page.getByTestId("ipc-analytical-baseline").getAttribute("data-value"));
  same(baseline, headline(before), "the baseline's analytical IPC");
  const change = Number(await page.getByTestId("ipc-analytical-change").getAttribute("data-value"));
  const expected = (100 * (headline(after) - baseline)) / baseline;
  assert.ok(Math.abs(change - expected) < 1e-9, `change ${change} vs ${expected}`);
  await page.screenshot({ path: `${SCREENSHOTS}lab-baseline.png` });

  // The link opened in another browser context: the same numbers and state, baseline included.
  const link = page.url();
  const context = await shared.browser.newContext();
  const other = await context.newPage();
  await other.goto(link);
  same(await figure(other, "simulated", 60_000), after.simulated.ipc, "simulated IPC in another context");
  same(await figure(other, "analytical"), headline(after), "the headline model in another context");
  same(await figure(other, "mdm"), after.analytical.models.mdm.ipc, "MDM in another context");
  assert.equal(await textOf(other, "workload-label"), "strided:gs=32");
  assert.match(await textOf(other, "config-label"), /mdm-pascal-28sm \+ 1 edit/);
  const otherBaseline = other.locator('[data-testid="ipc-analytical-baseline"][data-value]:not([data-value=""])');
  await otherBaseline.waitFor({ timeout: 60_000 });
  same(Number(await otherBaseline.getAttribute("data-value")), baseline, "the baseline, computed from the link");
  assert.equal(other.url(), link, "opening the link does not change it");
  await context.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test("run, cancel, run again", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await figure(page, "simulated");
  await page.getByTestId("workload-select").selectOption("generator:gemm-tiled");
  await page.getByTestId("run").click();
  await page.getByTestId("cancel").click();
  await page.getByText("cancelled").first().waitFor({ timeout: 20_000 });
  await page.getByTestId("run").click();
  await figure(page, "simulated", 120_000);
  await watchLongTasks(page);
  await checkAgainstCli(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a damaged link shows a message and opens the default experiment", async () => {
  const { page } = await openPage(shared.browser, shared.server.origin + "/#x=1AAAA-not-a-link");
  const notice = page.getByTestId("link-notice");
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.textContent(), /cannot be opened/);
  await figure(page, "simulated");
  assert.equal(await textOf(page, "workload-label"), "vecadd");
  const newer = await openPage(shared.browser, shared.server.origin + "/#x=9abc");
  await newer.page.getByTestId("link-notice").waitFor({ timeout: 20_000 });
  assert.match(await newer.page.getByTestId("link-notice").textContent(), /version/);
  await page.close();
  await newer.page.close();
});

// Whether the element `id` is at least partly in the window.
function inView(page, id) {
  return page.evaluate((id) => {
    const box = document.getElementById(id)?.getBoundingClientRect();
    return !!box && box.top < innerHeight && box.bottom > 0;
  }, id);
}

test("a handout's link opens with its step banner at its panel; dismissed, the step leaves the link; a link without one opens as before", async () => {
  const handout = readFileSync(new URL("../../docs/labs/1-memory-divergence.md", import.meta.url), "utf8");
  const fragment = handout.match(/\| 1g \| \[open\]\([^)#]*(#x=[^)]+)\)/)[1];
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + fragment);
  await page.setViewportSize({ width: 1280, height: 800 });
  const banner = page.getByTestId("step-banner");
  await banner.waitFor({ timeout: 20_000 });
  assert.equal(await textOf(page, "step-banner-lab"), "Lab 1: memory divergence");
  assert.equal(await textOf(page, "step-banner-step"), "1g");
  assert.equal(await textOf(page, "step-banner-watch"), "the L1-miss latency chart's MSHR wait");
  assert.equal(await textOf(page, "step-banner-panel"), "Report");
  // The report appears when the run ends; the page then scrolls to it, once.
  await figure(page, "simulated");
  await page.waitForFunction(() => {
    const box = document.getElementById("report-panel")?.getBoundingClientRect();
    return !!box && box.top < innerHeight && box.bottom > 0;
  }, null, { timeout: 20_000 });
  assert.ok(await page.evaluate(() => scrollY > 0), "scrolled down to the report");
  // The page writes its own link version, the same experiment and step.
  assert.equal(
    unversioned(page.url()),
    unversioned(shared.server.origin + "/" + fragment),
    "the step stays in the link while its banner shows",
  );
  await page.getByTestId("step-banner-dismiss").click();
  assert.equal(await banner.count(), 0, "dismissed");
  await page.waitForFunction(() => !location.hash.includes("&"), null, { timeout: 5_000 });
  assert.deepEqual(await experimentIn(page.url()), await experimentIn(fragment), "the same experiment, without its step");
  assert.deepEqual(errors, []);
  // The same experiment without the step: no banner, the top of the page.
  const bare = await openPage(shared.browser, shared.server.origin + "/" + fragment.split("&")[0]);
  await figure(bare.page, "simulated");
  await bare.page.getByTestId("report-panel").waitFor();
  assert.equal(await bare.page.getByTestId("step-banner").count(), 0, "no banner");
  assert.equal(await bare.page.evaluate(() => scrollY), 0, "not scrolled");
  assert.equal(await inView(bare.page, "workload-panel"), true);
  await page.close();
  await bare.page.close();
});

test("a dropped anchor trace folder: its summary, and a link naming it by the hash the CLI checks", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await figure(page, "simulated");
  const dir = new URL("../../crates/trace/test_data/vectorAdd-sm80-a100-v5-xz/", import.meta.url).pathname;
  const { workload } = await experimentAfter(page, async () => {
    await dropFiles(page, [`${dir}kernelslist.g`, `${dir}kernel-1.traceg.xz`]);
    await waitForText(page, "warp-instructions", "26601");
  });
  await figure(page, "simulated", 60_000);
  assert.match(workload.trace?.hash ?? "", /^[0-9a-f]{16}$/, `the link names the trace by hash: ${JSON.stringify(workload)}`);
  // The CLI hashes the folder itself and refuses other files: equal figures
  // mean equal hashes.
  await checkAgainstCli(page, { trace: dir });
  await page.screenshot({ path: `${SCREENSHOTS}lab-dropped-trace.png` });

  // Opened elsewhere, the link asks for the files and checks them.
  const other = await openPage(shared.browser, page.url());
  const notice = other.page.getByTestId("link-notice");
  await notice.waitFor({ timeout: 20_000 });
  assert.match(await notice.textContent(), /open its trace files/);
  await dropFiles(other.page, [`${dir}kernelslist.g`, `${dir}kernel-1.traceg.xz`]);
  await notice.waitFor({ state: "detached", timeout: 30_000 });
  same(await figure(other.page, "simulated", 60_000), await figure(page, "simulated"), "the same files, the same run");
  assert.deepEqual(errors, []);
  await page.close();
  await other.page.close();
});

test("opened config files travel as the nearest preset and its edits, or by the hash the CLI checks", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await figure(page, "simulated");
  const dir = new URL("../../configs/SM86_RTX3070/", import.meta.url).pathname;
  const { config } = await experimentAfter(page, async () => {
    await page.getByTestId("config-files").setInputFiles([
      `${dir}trace.config`, `${dir}gpgpusim.config`, `${dir}config_ampere_islip.icnt`,
    ]);
    await waitForText(page, "config-sms", "46");
  });
  console.log(`# the RTX 3070's files travel as ${JSON.stringify(config)}`);
  const cli = await cliFigures(page.url(), config.files ? { config: dir } : {});
  same(await figure(page, "simulated", 60_000), cli.simulated.ipc, "simulated IPC");
  same(await figure(page, "analytical"), cli.analytical.models[HEADLINE].ipc, "the headline model's IPC");
  same(await figure(page, "mdm"), cli.analytical.models.mdm.ipc, "MDM's IPC");
  assert.deepEqual(errors, []);
  await page.close();
});
