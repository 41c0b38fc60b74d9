// The analytical panel end to end (issue 7): the default experiment is
// analyzed as soon as it loads; on strided gs = 32 on mdm-pascal-28sm the
// MSHR slider previews MDM's IPC at once and, once it rests, edits the
// experiment's config (a dragged slider settles on its last value, and no
// main-thread script takes over 200 ms, those over 50 ms logged); Reset drops the edit; after a run of the same
// workload and config each model shows its error against the simulated IPC.
// The IPC strip leads with the headline model (warplab's core model), names
// it and keeps MDM as published on the same card, each with its own error;
// the panel lists what MDM leaves out under the model table.
// Screenshots at 1280 × 800 and on a 390-px-wide phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { assertMainThreadFree, openPage, openStridedOnPascal, SCREENSHOTS, serverAndBrowser, waitForText } from "./harness.mjs";

const shared = serverAndBrowser();
const MODELS = ["gpumech", "gpumech+", "mdm-queue", "mdm-mshr", "mdm", "gpumech-md1", "mdm-limits", "warplab"];
// The model the strip leads with (`warplab_lab::HEADLINE`), by name and label.
const HEADLINE = { name: "warplab", label: "warplab core model" };
// The CPI stack's terms as the chart's legend names them, in order (the
// launch and the core model's cold code as one: the kernel's start).
const CPI_TERMS = [
  "base", "issue", "in-flight fill", "barrier", "stores at exit", "mshr", "noc", "dram", "LD/ST unit", "units", "L2 slice",
  "NoC bandwidth", "DRAM bandwidth", "slowest warp", "kernel start",
];

const dataValue = (page, testid) => page.getByTestId(testid).getAttribute("data-value").then(Number);

// Waits until the panel shows every model for the loaded workload and
// config: positive IPCs, no analysis under way, nothing stale.
async function waitForAnalysis(page, models = MODELS) {
  await page.waitForFunction(
    (models) =>
      !document.querySelector('[data-testid="analysis-status"]') &&
      !document.querySelector('[data-testid="analysis-stale"]') &&
      models.every((m) => Number(document.querySelector(`[data-testid="model-ipc-${m}"]`)?.dataset.value) > 0),
    models,
    { timeout: 60_000 },
  );
}

// Waits until the input's value is `expected`.
async function waitForValue(page, testid, expected) {
  await page.waitForFunction(
    ([id, value]) => document.querySelector(`[data-testid="${id}"]`)?.value === value,
    [testid, expected],
    { timeout: 10_000 },
  );
}

// Waits until MDM's IPC differs from `old`, and returns it: the preview a
// moved slider asks for, on the same profile.
async function mdmChangedFrom(page, old) {
  await page.waitForFunction(
    (v) => {
      const shown = document.querySelector('[data-testid="model-ipc-mdm"]')?.dataset.value;
      return shown !== undefined && Number(shown) !== v;
    },
    old,
    { timeout: 10_000 },
  );
  return dataValue(page, "model-ipc-mdm");
}

// Waits until the MSHR slider's edit has become the experiment's: the config
// reloaded with `mshrs` MSHRs and the workload profiled again (no slider
// moved away from the loaded config, nothing under way); returns MDM's IPC.
async function settledAt(page, mshrs) {
  await page.waitForFunction(
    (value) =>
      !document.querySelector('[data-testid="analysis-status"]') &&
      !document.querySelector('[data-testid="config-knobs"] .knob-name.moved') &&
      document.querySelector('[data-testid="config-knob-l1_mshrs-value"]')?.value === value,
    String(mshrs),
    { timeout: 30_000 },
  );
  assert.match(decodeURIComponent(page.url()), /#x=\d/, "the link carries the edit");
  return dataValue(page, "model-ipc-mdm");
}

test("the default experiment is analyzed as soon as it loads", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await waitForAnalysis(page);
  assert.equal(await page.getByTestId("cpi-chart").locator(".row").count(), MODELS.length, "one CPI stack per model");
  const headlineIpc = await dataValue(page, `model-ipc-${HEADLINE.name}`);
  assert.equal(await page.getByTestId("cpi-chart").locator(".legend li").count(), CPI_TERMS.length, "every CPI term");
  const legend = await page.getByTestId("cpi-chart").locator(".legend li").allTextContents();
  CPI_TERMS.forEach((term, i) => assert.ok(legend[i].includes(term), `legend entry ${i}: ${legend[i]} is ${term}`));
  assert.equal(await page.getByTestId("mdm-gaps").locator("li").count(), 4, "one sentence per stall class MDM leaves out");
  assert.equal(await page.getByTestId("analytical-kernels").locator("tbody tr").count(), 1, "vecadd has one kernel");

  // The paper's models only: warplab's three leave the panel (and with them
  // the list of what the core model adds), and the link keeps the choice.
  await page.getByTestId("paper-models-only").check();
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=cpi-chart] .row").length === 5);
  assert.equal(await page.getByTestId("model-ipc-mdm-limits").count(), 0);
  assert.equal(await page.getByTestId("model-ipc-warplab").count(), 0);
  assert.equal(await page.getByTestId("mdm-gaps").count(), 0);
  // The strip still leads with the headline model: the box is about the panel.
  assert.equal(await dataValue(page, "ipc-analytical-value"), headlineIpc);
  await page.waitForFunction(() => /^#x=\d/.test(location.hash));
  const link = page.url();
  const reopened = await openPage(shared.browser, link);
  await waitForAnalysis(reopened.page, MODELS.slice(0, 5));
  assert.ok(await reopened.page.getByTestId("paper-models-only").isChecked(), "the link reopens with the box ticked");
  assert.equal(await reopened.page.getByTestId("cpi-chart").locator(".row").count(), 5);
  assert.deepEqual([...errors, ...reopened.errors], []);
  await reopened.page.close();
  await page.close();
});

test("the IPC strip leads with the headline model, names it, and shows MDM as published on its card", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await waitForAnalysis(page);
  const card = page.getByTestId("ipc-analytical");
  assert.equal((await card.locator(".ipc-name").textContent()).trim(), `Analytical (${HEADLINE.label})`);
  const value = card.getByTestId("ipc-analytical-value");
  await page.waitForFunction(() => document.querySelector('[data-testid="ipc-analytical-value"]')?.dataset.value);
  assert.equal(Number(await value.getAttribute("data-value")), await dataValue(page, `model-ipc-${HEADLINE.name}`));
  assert.equal(await page.getByTestId(`model-ipc-${HEADLINE.name}`).locator("xpath=..").getAttribute("class"), "highlight",
    "the table's row of the strip's model stands out");
  // MDM as published: on the same card, its own figure.
  const mdm = card.getByTestId("ipc-mdm");
  assert.match(await mdm.textContent(), /^MDM as published: \d/);
  assert.equal(Number(await card.getByTestId("ipc-mdm-value").getAttribute("data-value")), await dataValue(page, "model-ipc-mdm"));
  // Once the run has finished, each has its own error against the simulation.
  await page.waitForFunction(() => document.querySelector('[data-testid="ipc-mdm-error"]')?.dataset.value, null, { timeout: 60_000 });
  const simulated = await dataValue(page, "ipc-simulated-value");
  for (const [id, model] of [["ipc-analytical-error", HEADLINE.name], ["ipc-mdm-error", "mdm"]]) {
    const ipc = await dataValue(page, `model-ipc-${model}`);
    assert.ok(Math.abs((await dataValue(page, id)) - (100 * (ipc - simulated)) / simulated) < 1e-9, `${id}`);
  }
  await page.getByTestId("ipc-summary").screenshot({ path: `${SCREENSHOTS}ipc-summary.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("strided gs = 32 on mdm-pascal-28sm: the MSHR slider moves MDM, then a run gives the errors", async () => {
  const { page, errors } = await openStridedOnPascal(shared);
  await page.setViewportSize({ width: 1280, height: 800 });
  await waitForAnalysis(page);
  const mshrs = page.getByTestId("config-knob-l1_mshrs");
  assert.equal(await page.getByTestId("config-knob-l1_mshrs-value").inputValue(), "128", "the config's MSHRs");
  const base = await dataValue(page, "model-ipc-mdm");

  await mshrs.fill("0"); // 8 MSHRs, the slider's first stop
  const preview = await mdmChangedFrom(page, base);
  const few = await settledAt(page, 8);
  console.log(`# MDM IPC: base ${base}, preview at 8 MSHRs ${preview}, re-profiled ${few}`);
  assert.ok(few < base, `starved of MSHRs, MDM's IPC drops: ${few} vs ${base}`);
  // MSHRs do not change what the profile measures, so the preview on the old
  // profile and the figure of the profile taken again agree.
  assert.equal(preview, few, "the preview is the re-profiled figure");
  // Dragged up to 256 MSHRs (quarter-octave stops): every stop on the way is
  // previewed at once, and the edit settles on the last: the same as 256 set
  // directly from 8.
  for (let position = 1; position <= 20; position++) await mshrs.fill(String(position));
  const dragged = await settledAt(page, 256);
  // Not monotonic: more MSHRs also queue more requests in the NoC.
  assert.notEqual(dragged, few);
  await mshrs.fill("0");
  assert.equal(await settledAt(page, 8), few);
  await mshrs.fill("20");
  assert.equal(await settledAt(page, 256), dragged, "the drag settled on 256 MSHRs");
  assert.match(await page.getByTestId("knobs-note").textContent(), /edit of the experiment's config/);
  await assertMainThreadFree(page, "while analyzing and sliding");

  // Reset drops the edit: the preset's 128 MSHRs and its figure again.
  await page.getByTestId("reset-knobs").click();
  assert.equal(await settledAt(page, 128), base);
  assert.ok(await page.getByTestId("reset-knobs").isDisabled(), "nothing left to reset");
  // Back to the config, a size that simulates quickly, and a run: errors appear.
  await page.getByTestId("knob-size-value").fill("28");
  await waitForText(page, "workload-label", "strided:size=28,gs=32");
  await waitForAnalysis(page);
  await page.getByTestId("run").click();
  await page.waitForFunction(
    (models) => models.every((m) => document.querySelector(`[data-testid="model-error-${m}"]`)?.dataset.value),
    MODELS,
    { timeout: 120_000 },
  );
  const simulated = await dataValue(page, "simulated-ipc");
  const mdm = await dataValue(page, "model-ipc-mdm");
  assert.ok(Math.abs((await dataValue(page, "model-error-mdm")) - (100 * (mdm - simulated)) / simulated) < 1e-9);
  const panel = page.getByTestId("analytical-panel");
  await panel.evaluate((element) => element.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: `${SCREENSHOTS}analytical.png` });
  await panel.screenshot({ path: `${SCREENSHOTS}analytical-panel.png` });

  // A phone: the panel fits its width.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `nothing widens the page beyond the phone's screen: ${overflow} px`);
  const box = await panel.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `the panel fits a phone: ${JSON.stringify(box)}`);
  await panel.screenshot({ path: `${SCREENSHOTS}analytical-phone.png` });
  assert.deepEqual(errors, []);
  await page.close();
});
