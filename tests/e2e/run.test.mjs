// Watching the GPU end to end (issue 6): the timing model runs in the
// worker on strided with gs = 32 on the MDM paper's Pascal GPU; the progress
// bar advances and the MSHR view fills; pause, step a cycle and an event,
// resume; the report appears at the end; a long run is cancelled; the page
// stays responsive (no main-thread script over 200 ms while the worker runs;
// those over 50 ms are logged).
import { test } from "node:test";
import assert from "node:assert/strict";
import { assertMainThreadFree, openStridedOnPascal, SCREENSHOTS, serverAndBrowser, textOf } from "./harness.mjs";

const shared = serverAndBrowser();

const stridedOnPascal = () => openStridedOnPascal(shared);

const progressValue = (page) => page.getByTestId("run-progress").evaluate((bar) => Number(bar.value));
const cycle = async (page) => Number((await textOf(page, "animation-cycle")).replaceAll(",", ""));
const status = (page) => textOf(page, "run-status");

async function waitForStatus(page, word, timeout = 20_000) {
  await page.waitForFunction(
    (w) => document.querySelector('[data-testid="run-status"]')?.textContent.startsWith(w),
    word,
    { timeout },
  );
}

test("a run of strided gs = 32 on mdm-pascal-28sm: progress, MSHRs, pause, step, resume, report", async () => {
  const { page, errors } = await stridedOnPascal();
  await page.getByTestId("run").click();
  await page.getByTestId("run-progress").waitFor({ timeout: 20_000 });
  // The progress bar advances while the run goes on.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="run-progress"]').value) > 0, null, {
    timeout: 30_000,
  });
  const early = await progressValue(page);
  await page.waitForFunction((v) => Number(document.querySelector('[data-testid="run-progress"]').value) > v, early, {
    timeout: 30_000,
  });
  // The memory-divergent kernel fills the L1 MSHRs.
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="animation-mshrs"]')?.textContent.replaceAll(",", "")) > 0,
    null,
    { timeout: 30_000 },
  );
  await page.getByTestId("animation-panel").screenshot({ path: `${SCREENSHOTS}run-animation.png` });

  await page.getByTestId("pause").click();
  await waitForStatus(page, "paused");
  const paused = await cycle(page);
  await page.getByTestId("report").waitFor({ timeout: 20_000 });
  await page.getByTestId("step-cycle").click();
  await page.waitForFunction((c) => document.querySelector('[data-testid="run-status"]').textContent.replaceAll(",", "").includes(`cycle ${c + 1} `), paused);
  assert.equal(await cycle(page), paused + 1, "one cycle");
  await page.getByTestId("step-event").click();
  // To the end of the cycle of the watched SM's next event.
  await page.waitForFunction(
    (c) => Number(document.querySelector('[data-testid="animation-cycle"]').textContent.replaceAll(",", "")) > c,
    paused + 1,
    { timeout: 20_000 },
  );
  await page.getByTestId("events").waitFor({ timeout: 20_000 });
  assert.ok((await page.getByTestId("events").locator("li").count()) > 0);
  // Hovering a warp explains it.
  const canvas = page.getByTestId("animation-canvas");
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.getByTestId("animation-tooltip").waitFor({ state: "visible", timeout: 5_000 });
  assert.match(await textOf(page, "animation-tooltip"), /SM 0/);
  await page.screenshot({ path: `${SCREENSHOTS}run-paused.png`, fullPage: true });

  // Resume: the run goes on to its end and the report shows its IPC.
  await page.getByTestId("play").click();
  await waitForStatus(page, "running");
  await waitForStatus(page, "finished", 120_000);
  assert.equal(await progressValue(page), Number(await page.getByTestId("run-progress").getAttribute("max")));
  await page.getByTestId("ipc").waitFor({ timeout: 20_000 });
  assert.ok(Number(await textOf(page, "ipc")) > 0);
  await page.screenshot({ path: `${SCREENSHOTS}run-finished.png`, fullPage: true });
  await assertMainThreadFree(page, "during the run");
  assert.deepEqual(errors, []);
  await page.close();
});

test("cancel stops a long run", async () => {
  const { page, errors } = await stridedOnPascal();
  await page.getByTestId("run").click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="run-progress"]')?.value) > 0, null, {
    timeout: 30_000,
  });
  await page.getByTestId("cancel").click();
  await waitForStatus(page, "cancelled");
  const stopped = await progressValue(page);
  await page.waitForTimeout(1_000);
  assert.equal(await progressValue(page), stopped, "no progress after cancel");
  assert.ok(stopped < Number(await page.getByTestId("run-progress").getAttribute("max")), "it was stopped early");
  await page.screenshot({ path: `${SCREENSHOTS}run-cancelled.png` });
  assert.deepEqual(errors, []);
  await page.close();
});
