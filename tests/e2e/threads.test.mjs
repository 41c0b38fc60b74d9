// The threaded worker (issue 40): where the page is cross-origin isolated,
// worker.js loads the threaded build, which starts rayon's pool on Web Workers
// and runs the SMs' phase of each cycle on it; elsewhere the single-thread
// build runs. Either way the page shows the figures the CLI computes for the
// page's own link: the results do not depend on the build or the threads.
// The time each build takes to the simulated figure is reported, not held to
// a bound (speed goals live in benchmarks; docs/performance.md).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { CLI, launchChromium, openPage, runCli, scaleSeenDuringRun, serveDist, textOf } from "./harness.mjs";

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

// The default page's simulated IPC, the seconds from navigation to it, and
// whether the page was cross-origin isolated.
async function simulated(server) {
  const started = Date.now();
  // wasm-bindgen-rayon starts each pool thread as a Web Worker from a blob.
  let poolThreads = 0;
  const countPool = (page) => page.on("worker", (worker) => (poolThreads += worker.url().startsWith("blob:")));
  const { page, errors } = await openPage(browser, `${server.origin}/`, { before: countPool });
  // Whether the scale models were simulated while the run was: the page
  // starts them beside the run only where it leaves cores for them.
  const { beside } = await scaleSeenDuringRun(page);
  const value = page.locator('[data-testid="ipc-simulated-value"][data-value]');
  const seconds = (Date.now() - started) / 1000;
  const ipc = Number(await value.getAttribute("data-value"));
  const [isolated, cores] = await page.evaluate(() => [self.crossOriginIsolated, navigator.hardwareConcurrency]);
  const report = {};
  for (const id of REPORT_FIGURES) report[id] = await textOf(page, id);
  const url = page.url();
  await page.close();
  assert.deepEqual(errors, [], "no page errors");
  return { ipc, seconds, isolated, cores, url, report, poolThreads, beside };
}

// What the CLI's timing model gives for the experiment in `url`.
async function cliIpc(url) {
  const { stdout } = await runCli(CLI, ["run", "--link", url, "--json", "--no-scale"], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout).simulated.ipc;
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
  assert.equal(run.ipc, await cliIpc(run.url), "the threaded build's simulated IPC is the CLI's");
  runs.threaded = run;
  t.diagnostic(`threaded build: simulated IPC ${run.ipc} after ${run.seconds.toFixed(1)} s`);
});

test("a page that is not isolated runs the single-thread worker, with the same figures", async (t) => {
  const run = await simulated(servers.plain);
  assert.equal(run.isolated, false);
  assert.equal(run.poolThreads, 0, "no pool");
  const asked = servers.plain.requested;
  assert.ok(asked.includes("/warplab_worker_bg.wasm"), "the single-thread build loads");
  assert.equal(run.ipc, await cliIpc(run.url), "the single-thread build's simulated IPC is the CLI's");
  runs.single = run;
  t.diagnostic(`single-thread build: simulated IPC ${run.ipc} after ${run.seconds.toFixed(1)} s`);
});

test("both builds show the same run report", () => {
  assert.ok(runs.threaded && runs.single, "both runs above finished");
  assert.deepEqual(runs.threaded.report, runs.single.report);
});
