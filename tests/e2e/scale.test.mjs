// The scale-model panel end to end (issue 8): the paper's published
// benchmarks load at a click and show its figure (Scale-Model 3.23 % mean,
// 8.25 % max error at 128 SMs) with a benchmark's scaling chart and miss-rate
// curve (dct's cliff marked), and no main-thread script over 200 ms while the
// page evaluates and draws them; a prediction of a small workload on the
// paper's 128-SM GPU from 8- and 16-SM scale models, validated at 32 SMs,
// shows a predicted IPC beside the simulated one, with no main-thread script
// over 200 ms while the worker simulates; predicting the whole GPU after a
// run of it puts the run's IPC and the headline analytical model's beside
// the prediction; a long scale-model run is cancelled, its worker replaced.
// Screenshots at 1280 × 800 and on a 390-px-wide phone.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  assertMainThreadFree, dataValue, experimentIn, linkOf, openPage, openWithPreset, SCREENSHOTS, serverAndBrowser, textOf,
  waitForText, waitUntil, watchLongTasks,
} from "./harness.mjs";

const shared = serverAndBrowser();

// Scrolls the element with `testid` to the top of the window.
const scrollTo = (page, testid) => page.getByTestId(testid).evaluate((e) => e.scrollIntoView({ block: "start" }));

// Checks nothing widens a 390-px phone's page and saves the panel's screenshot.
async function onAPhone(page, name) {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `nothing widens the page beyond the phone's screen: ${overflow} px`);
  const box = await page.getByTestId("scale-panel").boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `the panel fits a phone: ${JSON.stringify(box)}`);
  await page.getByTestId("scale-panel").screenshot({ path: `${SCREENSHOTS}${name}` });
}

test("the paper's published benchmarks reproduce its accuracy figure", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.setViewportSize({ width: 1280, height: 800 });
  // Once the page has settled: the scale models planned, the models evaluated.
  await page.getByTestId("scale-pair").waitFor({ timeout: 20_000 });
  await page.getByTestId("model-ipc-mdm").waitFor({ timeout: 60_000 });
  await watchLongTasks(page);
  await page.getByTestId("load-published").click();
  assert.equal((await dataValue(page, "published-mean")).toFixed(2), "3.23");
  assert.equal((await dataValue(page, "published-max")).toFixed(2), "8.25");
  assert.match(await page.getByTestId("published-headline").textContent(), /128 SMs.*3\.23%.*8\.25%/);
  assert.equal(await page.getByTestId("published-summary").locator("td[data-mean]").count(), 15, "5 methods × 3 sizes");
  const chart = page.getByTestId("published-scale-chart");
  assert.equal(await chart.locator("polyline").count(), 6, "five methods and the simulated truth");
  assert.equal(await chart.locator(".legend li").count(), 7);

  await page.getByTestId("published-benchmark").selectOption({ label: "dct" });
  const band = page.getByTestId("published-miss-curve").getByTestId("chart-band");
  await band.waitFor();
  assert.deepEqual([await band.getAttribute("data-from"), await band.getAttribute("data-to")], ["64", "128"]);
  await scrollTo(page, "published");
  await page.screenshot({ path: `${SCREENSHOTS}scale-published.png` });
  await page.getByTestId("published").screenshot({ path: `${SCREENSHOTS}scale-published-section.png` });

  await page.getByTestId("scale-rule-paper").check();
  await page.waitForFunction(() => !/reference rule/.test(document.querySelector('[data-testid="published-headline"]').textContent));
  assert.notEqual((await dataValue(page, "published-mean")).toFixed(2), "3.23", "the paper's printed rule differs");
  await page.getByTestId("scale-rule-reference").check();
  await assertMainThreadFree(page, "while evaluating and drawing the published data");
  await onAPhone(page, "scale-published-phone.png");
  assert.deepEqual(errors, []);
  await page.close();
});

// Waits until no scale-model run is under way (its choices are locked while
// one goes on).
async function scaleIdle(page) {
  await page.waitForFunction(() => !document.querySelector('[data-testid="scale-validate"]')?.disabled, null, {
    timeout: 120_000,
  });
}

test("a small workload on the paper's GPU: predicted from 8 and 16 SMs, validated at 32, then the whole GPU", async () => {
  const { page, errors } = await openWithPreset(shared, "scalemodel-128sm", 128, { width: 1280, height: 800 });
  await page.getByTestId("knob-size-value").fill("16");
  await waitForText(page, "workload-label", "vecadd:size=16");
  await page.waitForFunction(() => document.querySelector('[data-testid="scale-pair"]')?.value === "8,16", null, {
    timeout: 20_000,
  });
  assert.equal(await page.getByTestId("scale-sizes").locator("tbody tr").count(), 5, "8, 16, 32, 64 and 128 SMs");
  // The page predicts the whole GPU by itself after the experiment's run.
  await page.waitForFunction(() => /of 128 SMs/.test(document.querySelector('[data-testid="scale-results"]')?.textContent), null, {
    timeout: 120_000,
  });
  await scaleIdle(page);
  await page.getByTestId("scale-target").selectOption("32");
  await page.getByTestId("scale-validate").check();
  await watchLongTasks(page);
  // Every step the progress line shows, as the page draws it.
  await page.evaluate(() => {
    window.scaleSteps = [];
    new MutationObserver(() => {
      const step = document.querySelector('[data-testid="scale-step"]')?.textContent;
      if (step && window.scaleSteps.at(-1) !== step) window.scaleSteps.push(step);
    }).observe(document.querySelector('[data-testid="scale-panel"]'), { subtree: true, childList: true, characterData: true });
  });

  await page.getByTestId("scale-predict").click();
  // The report of the run asked for, not the page's own of the whole GPU.
  await page.waitForFunction(() => /of 32 SMs/.test(document.querySelector('[data-testid="scale-results"]')?.textContent), null, {
    timeout: 120_000,
  });
  const predicted = await dataValue(page, "scale-predicted-ipc");
  const simulated = await dataValue(page, "scale-simulated-ipc");
  assert.ok(simulated > 0, `the 32-SM target was simulated: ${simulated}`);
  const error = await dataValue(page, "scale-predicted-error");
  assert.ok(Math.abs(error - (100 * (predicted - simulated)) / simulated) < 1e-9);
  assert.match(await page.getByTestId("scale-results").textContent(), /Prediction of 32 SMs from 8 and 16 SMs/);
  // The strip shows the prediction for the chosen target, its error against
  // that target's own simulation, and the link carries the target.
  await page.locator('[data-testid="ipc-scale-value"][data-value]').waitFor();
  assert.equal(await dataValue(page, "ipc-scale-value"), predicted);
  assert.equal(await dataValue(page, "ipc-scale-error"), error);
  assert.match(await textOf(page, "ipc-scale"), /^Scale-model, for 32 SMs/);
  await page.waitForFunction(() => location.hash.startsWith("#x="));
  const linked = await experimentIn(page.url());
  assert.deepEqual([linked.scale.target_sms, linked.scale.validate], [32, true]);
  const points = page.getByTestId("scale-chart").locator('[data-series="Scale models (simulated)"] [data-value]');
  assert.equal(await points.count(), 2, "the two scale models");
  assert.equal(await page.getByTestId("miss-curve").locator("[data-value]").count(), 3, "MPKI at 8, 16 and 32 SMs");
  assert.equal(
    await page.getByTestId("scale-validation").locator("td[data-value]").count(),
    7,
    "5 methods, the Scale-Model under the other rule, simulated",
  );
  // Both rules side by side: the other rule's figure and its error.
  const other = await dataValue(page, "scale-other-rule-ipc");
  assert.ok(other > 0 && other !== predicted, `the paper rule's figure ${other} beside the reference rule's ${predicted}`);
  assert.equal(await dataValue(page, "validation-other-rule-32"), (100 * (other - simulated)) / simulated);
  assert.match(await textOf(page, "scale-launch-note"), /leaves out the kernel launch latency \(5000 cycles/);
  const steps = await page.evaluate(() => window.scaleSteps);
  console.log(`# progress shown: ${JSON.stringify(steps)}`);
  // Three steps: the two scale models and the target; the curve is taken by
  // another worker meanwhile (the analyst, where a core is free) and has none.
  assert.ok(steps.some((s) => /^step \d of 3: /.test(s)), "the worker's steps reach the page while it simulates");
  assert.ok(!steps.some((s) => /miss-rate curve.*of|of \d: miss-rate/.test(s)), `no step of the curve: ${steps}`);
  await assertMainThreadFree(page, "while the scale models ran");

  await scrollTo(page, "scale-panel");
  await page.screenshot({ path: `${SCREENSHOTS}scale.png` });
  await page.getByTestId("scale-panel").screenshot({ path: `${SCREENSHOTS}scale-panel.png` });

  // The whole GPU, unvalidated, after a run of it: the simulated IPC is the
  // run's, and the headline analytical model's (warplab's core model, the
  // strip's) stands beside it with its error.
  await page.getByTestId("run").click();
  await page.waitForFunction(() => document.querySelector('[data-testid="simulated-ipc"]')?.dataset.value, null, {
    timeout: 120_000,
  });
  const run = await dataValue(page, "simulated-ipc");
  await scaleIdle(page);
  await page.getByTestId("scale-target").selectOption("128");
  await page.getByTestId("scale-validate").uncheck();
  await page.getByTestId("scale-predict").click();
  await page.waitForFunction(() => /of 128 SMs/.test(document.querySelector('[data-testid="scale-results"]')?.textContent), null, {
    timeout: 120_000,
  });
  // The simulation panel's run, without its launch latency, as the scale models measure.
  const launchFree = await dataValue(page, "scale-simulated-ipc");
  assert.ok(launchFree > run, `${launchFree} without the launch latency, ${run} with it`);
  const analytical = await dataValue(page, "model-ipc-warplab");
  assert.equal(await dataValue(page, "scale-analytical-ipc"), analytical);
  assert.ok(Math.abs((await dataValue(page, "scale-analytical-error")) - (100 * (analytical - run)) / run) < 1e-9);
  assert.ok((await dataValue(page, "scale-predicted-ipc")) > 0);
  assert.equal(await page.getByTestId("scale-validation").count(), 0, "nothing validated");

  // Weak scaling: each size its share, no miss-rate curve, and the page says why.
  await scaleIdle(page);
  await page.getByTestId("scale-target").selectOption("32");
  await page.getByTestId("scale-weak").check();
  await page.getByTestId("scale-predict").click();
  await page.getByTestId("scale-no-curve").waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId("miss-curve").count(), 0, "no curve under weak scaling");
  assert.match(await textOf(page, "scale-measured"), /cliff: not looked for \(weak scaling\)/);
  await page.waitForFunction(() => location.hash.startsWith("#x="));
  assert.equal((await experimentIn(page.url())).scale.weak, true, "the link carries weak scaling");
  await scrollTo(page, "scale-panel");
  await page.getByTestId("scale-panel").screenshot({ path: `${SCREENSHOTS}scale-panel-weak.png` });
  await onAPhone(page, "scale-phone.png");
  assert.deepEqual(errors, []);
  await page.close();
});

// Cancel (issue 42): a scale-model run that would take minutes stops at a
// click. Its worker answers nothing until the run ends, so the page
// terminates it (the browser reports the worker closed) and starts another
// that holds the same config and workload: the next Predict starts at once.
test("a long scale-model run is cancelled; its worker is replaced and Predict runs again", async () => {
  const link = await linkOf({
    config: { preset: "SM7_QV100" },
    workload: { generated: { kernel: "strided", knobs: [["gs", 32]] } },
    scale: { validate: true },
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.setViewportSize({ width: 1280, height: 800 });
  // The run of the whole GPU takes long too: stopped, so the scale models have the cores.
  await page.getByTestId("cancel").click({ timeout: 60_000 });
  const predict = page.getByTestId("scale-predict");
  await page.waitForFunction(() => document.querySelector('[data-testid="scale-predict"]')?.disabled === false, null, {
    timeout: 60_000,
  });
  const closed = [];
  const watchClose = (worker) => worker.on("close", () => closed.push(worker.url()));
  page.workers().forEach(watchClose);
  page.on("worker", watchClose);
  await predict.click();
  await page.getByTestId("scale-step").filter({ hasText: /^step 1 of \d+: / }).waitFor({ timeout: 60_000 });
  const workers = page.workers().length;
  await page.getByTestId("scale-panel").screenshot({ path: `${SCREENSHOTS}scale-running.png` });
  await page.getByTestId("scale-cancel").click();
  await page.getByTestId("scale-cancelled").waitFor({ timeout: 2_000 });
  assert.equal(await page.getByTestId("scale-progress").count(), 0, "no progress once cancelled");
  assert.equal(await predict.isEnabled(), true, "Predict is free again");
  assert.match(await textOf(page, "ipc-scale"), /cancelled: Predict in the Scale model panel runs it again/);
  assert.equal(await page.locator('[data-testid="ipc-scale-value"][data-value]').count(), 0, "no figure");
  assert.equal(await page.getByTestId("scale-pending").count(), 0, "said once in the panel");
  await waitUntil(() => closed.length > 0, "the busy worker is terminated, not left running");
  assert.ok(page.workers().length <= workers, `a new worker in its place, none left over: ${page.workers().length}`);
  await page.getByTestId("scale-panel").screenshot({ path: `${SCREENSHOTS}scale-cancelled.png` });
  // The new worker holds the config and workload: the next run starts at once.
  await predict.click();
  await page.getByTestId("scale-step").filter({ hasText: /^step 1 of \d+: / }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId("scale-error").count(), 0, "no 'no workload' from the new worker");
  assert.equal(await page.getByTestId("scale-cancelled").count(), 0);
  await page.getByTestId("scale-cancel").click();
  await page.getByTestId("scale-cancelled").waitFor({ timeout: 2_000 });
  assert.deepEqual(errors, []);
  await page.close();
});
