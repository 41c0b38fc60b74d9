// The IPC strip compares like with like (issue 42): every error shows the
// figure it is measured against; on a scale-model step (a prediction for
// 32 SMs of the 128-SM GPU) the scale card is compared with the 32-SM
// simulation, not the 128-SM one the simulated card shows, both without the
// launch latency; on a sampled run the simulated card says it is sampled with
// its expected error, the models' errors say they are against the sampled
// figure, and against the full run once it is compared; a key explains the
// signs and marks; a pinned baseline is one row of now, baseline and
// difference. Screenshots of the strip at 1280 and 390 px.
import { test } from "node:test";
import assert from "node:assert/strict";
import { dataValue, linkOf, openPage, SCREENSHOTS, serverAndBrowser, textOf } from "./harness.mjs";

const shared = serverAndBrowser();

// The strip at a laptop's and a phone's width.
async function screenshots(page, name) {
  const strip = page.getByTestId("ipc-summary");
  await strip.screenshot({ path: `${SCREENSHOTS}${name}.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await strip.evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.waitForTimeout(200);
  await strip.screenshot({ path: `${SCREENSHOTS}${name}-phone.png` });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the strip fits a phone's width: ${overflow} px too wide`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("a scale-model step: the 32-SM prediction beside the 32-SM simulation, with every reference shown", async () => {
  const link = await linkOf({
    config: { preset: "scalemodel-128sm" },
    workload: { generated: { kernel: "vecadd", size: 16, knobs: [] } },
    scale: { target_sms: 32, validate: true },
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('[data-testid="ipc-scale-value"][data-value]').waitFor({ timeout: 240_000 });
  await page.locator('[data-testid="ipc-analytical-value"][data-value]').waitFor({ timeout: 60_000 });
  assert.match(await textOf(page, "ipc-scale"), /^Scale-model, for 32 SMs/);
  assert.match(await textOf(page, "ipc-simulated"), /^Simulated, the whole GPU \(128 SMs\)/);
  // The scale card's reference is the 32-SM simulation of the scale panel's validation.
  const simulated32 = await dataValue(page, "scale-simulated-ipc");
  const simulated128 = await dataValue(page, "ipc-simulated-value");
  assert.equal(await dataValue(page, "ipc-scale-reference"), simulated32);
  assert.notEqual(simulated32, simulated128, "not the whole GPU's simulation");
  assert.match(await textOf(page, "ipc-scale-error"), /^[+-]\d+\.\d% [✓✗] vs simulated at 32 SMs \d/);
  const predicted = await dataValue(page, "ipc-scale-value");
  assert.equal(await dataValue(page, "ipc-scale-error"), (100 * (predicted - simulated32)) / simulated32);
  assert.equal(await textOf(page, "ipc-scale-accounting"), "both without the launch latency");
  // The headline model against the whole GPU's simulation, both with the launch latency.
  assert.equal(await dataValue(page, "ipc-analytical-reference"), simulated128);
  assert.match(await textOf(page, "ipc-analytical-error"), /vs simulated \d/);
  assert.equal(await textOf(page, "ipc-analytical-accounting"), "both with the launch latency");
  const key = await textOf(page, "ipc-key");
  assert.match(key, /^Error = \(model − reference\) ÷ reference/);
  assert.match(key, /✓ within ±10%, ✗ beyond/);
  // Pinned: each card gains one row of now, baseline and difference.
  await page.getByTestId("pin-baseline").click();
  for (const card of ["simulated", "analytical", "scale"]) {
    const now = await dataValue(page, `ipc-${card}-now`);
    assert.equal(await dataValue(page, `ipc-${card}-baseline`), now, `${card}: the baseline is the figures pinned`);
    assert.equal(await textOf(page, `ipc-${card}-change`), "0.0%");
  }
  await screenshots(page, "strip-scale-step");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a sampled run: labelled as sampled with its expected error, the models against the full run once compared", async () => {
  const link = await linkOf({
    config: { preset: "SM7_QV100" },
    workload: { generated: { kernel: "vecadd", knobs: [["launches", 4]] } },
    sampling: "photon",
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  await page.locator('[data-testid="ipc-analytical-value"][data-value]').waitFor({ timeout: 60_000 });
  assert.match(await textOf(page, "ipc-simulated"), /^Simulated \(Photon sampling\)/);
  assert.match(await textOf(page, "ipc-simulated-sampled"), /^A sampled estimate: expected error ±18\.2%/);
  const sampled = await dataValue(page, "ipc-simulated-value");
  assert.equal(await dataValue(page, "ipc-analytical-reference"), sampled);
  assert.match(await textOf(page, "ipc-analytical-error"), /vs simulated \(sampled\) \d/);
  // Finished, so the bar is full; the caption says most was predicted.
  const [value, max] = await page.getByTestId("run-progress").evaluate((bar) => [bar.value, bar.max]);
  assert.equal(value, max);
  assert.match(await textOf(page, "run-status"), /^finished .*simulated in detail, the rest predicted$/);
  await screenshots(page, "strip-sampled");

  await page.getByTestId("sampling-compare").click();
  await page.getByTestId("sampling-comparison").waitFor({ timeout: 180_000 });
  const full = await dataValue(page, "sampling-full-ipc");
  await page.waitForFunction((f) => document.querySelector('[data-testid="ipc-analytical-reference"]')?.dataset.value === String(f), full);
  assert.match(await textOf(page, "ipc-analytical-error"), /vs simulated in full \d/);
  const analytical = await dataValue(page, "ipc-analytical-value");
  assert.equal(await dataValue(page, "ipc-analytical-error"), (100 * (analytical - full)) / full);
  assert.match(await textOf(page, "ipc-simulated-sampled"), /^A sampled estimate: [+-]?\d+\.\d% vs [\d.]+ simulated in full\.$/);
  await screenshots(page, "strip-sampled-compared");
  assert.deepEqual(errors, []);
  await page.close();
});
