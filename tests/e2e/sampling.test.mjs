// Sampled simulation in the page (Photon): on four identical launches of
// vecadd, the sampling select set to Photon gives (without pressing Run) the sampling panel
// with kernels 1-3 at the kernel level (reusing kernel 0's IPC), the IPC
// strip says its simulated figure is sampled and equals `warplab run --link`'s
// for the page's own link, "Run in full to compare" shows the IPC error and
// the speedup, and the link in the address bar carries the mode (decoded by
// `warplab experiment show`). Screenshots of the panel and the page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CLI, dataValue, experimentIn, linkOf, openPage, runCli, SCREENSHOTS, serverAndBrowser, textOf } from "./harness.mjs";

const shared = serverAndBrowser();

const FOUR_LAUNCHES = {
  config: { preset: "SM7_QV100" },
  workload: { generated: { kernel: "vecadd", knobs: [["launches", 4]] } },
};

test("Photon sampling on four launches of vecadd: the panel, the comparison and the link", async () => {
  const link = await linkOf(FOUR_LAUNCHES);
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.setViewportSize({ width: 1280, height: 900 });
  // The link's own run (sampling off) finishes first.
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  assert.equal(await textOf(page, "workload-label"), "vecadd:launches=4");
  assert.equal(await page.getByTestId("sampling-panel").count(), 0, "no panel for a run in full");
  assert.equal((await experimentIn(page.url())).sampling, undefined, "sampling off is left out of the link");

  await page.getByTestId("sampling-select").selectOption("photon");
  await page.waitForFunction(() => location.hash.startsWith("#x=6"));
  assert.equal((await experimentIn(page.url())).sampling, "photon", "the link carries the mode");
  // Choosing a mode runs the experiment again, as any other change does.
  await page.getByTestId("sampling-panel").waitFor({ timeout: 120_000 });

  const levels = await page.locator('[data-testid^="sampling-level-"]').evaluateAll((cells) => cells.map((c) => c.dataset.value));
  // Kernel 0 is simulated (in detail, or sampled by warps once they are
  // stable: the timing model decides which), the three identical launches
  // after it reuse its IPC.
  assert.notEqual(levels[0], "kernel", "kernel 0 is simulated");
  assert.deepEqual(levels.slice(1), ["kernel", "kernel", "kernel"], "kernels 1-3 reuse kernel 0's IPC");
  assert.match(await textOf(page, "sampling-nearest-1"), /^0 \(0\.0+\)$/);
  assert.match(await textOf(page, "ipc-simulated"), /Simulated \(Photon sampling\)/);
  assert.match(await textOf(page, "report-sampled-note"), /only what was simulated in detail/);
  const cli = JSON.parse((await runCli(CLI, ["run", "--link", page.url(), "--json", "--no-scale"], { maxBuffer: 64 << 20 })).stdout);
  assert.equal(cli.experiment.sampling, "photon");
  assert.equal(await dataValue(page, "ipc-simulated-value"), cli.simulated.ipc, "the page's sampled IPC is the CLI's");
  assert.equal(await dataValue(page, "sampling-summary"), cli.simulated.sampling.detailed_warp_insts);

  await page.getByTestId("sampling-compare").click();
  await page.getByTestId("sampling-comparison").waitFor({ timeout: 180_000 });
  const error = await dataValue(page, "sampling-error");
  assert.ok(Number.isFinite(error) && Math.abs(error) < 50, `the IPC error is a figure: ${error}%`);
  assert.ok((await dataValue(page, "sampling-instruction-speedup")) > 3.5, "a quarter of the instructions in detail");
  assert.ok((await dataValue(page, "sampling-wall-speedup")) > 1, "the sampled run is faster in wall time");
  assert.equal(await page.locator('[data-testid^="sampling-error-"]').count(), 4, "an error per kernel");
  const panel = page.getByTestId("sampling-panel");
  await panel.evaluate((e) => e.scrollIntoView({ block: "start" }));
  await panel.screenshot({ path: `${SCREENSHOTS}sampling-panel.png` });
  await page.screenshot({ path: `${SCREENSHOTS}sampling-page.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `nothing widens the page beyond a phone's screen: ${overflow} px`);
  await panel.screenshot({ path: `${SCREENSHOTS}sampling-panel-phone.png` });

  // Back to off: the run in full replaces the sampled one, and its panel goes.
  await page.getByTestId("sampling-select").selectOption("off");
  await page.getByTestId("sampling-panel").waitFor({ state: "detached", timeout: 120_000 });
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  assert.doesNotMatch(await textOf(page, "ipc-simulated"), /sampling/);
  assert.equal(await page.getByTestId("report-sampled-note").count(), 0);
  assert.equal((await experimentIn(page.url())).sampling, undefined);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a link with kernel sampling opens with it chosen and runs sampled", async () => {
  const link = await linkOf({ ...FOUR_LAUNCHES, sampling: "kernel" });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.getByTestId("sampling-panel").waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId("sampling-select").inputValue(), "kernel");
  assert.equal(await page.getByTestId("sampling-level-3").getAttribute("data-value"), "kernel");
  assert.equal((await experimentIn(page.url())).sampling, "kernel");
  assert.deepEqual(errors, []);
  await page.close();
});
