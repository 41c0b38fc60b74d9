// Nothing stale (issue 42): a figure not yet computed for the experiment on
// the page is pending, never the previous experiment's value. The page is
// sampled on every DOM change (and every 25 ms) while a new experiment
// profiles, simulates and runs its scale models, and every sample is held to
// the final figures, and shows no animation of the first experiment's run (a
// note waits in its place); progress, status and figures agree in every
// sample; the event list says where it stops; a long run shows its time left
// (a sampled one says why it shows none); a config that fails to load stops
// the run it would have started and says so at the top. Screenshots at 1280
// and 390 px.
import { test } from "node:test";
import assert from "node:assert/strict";
import { linkOf, openPage, SCREENSHOTS, serverAndBrowser, textOf, waitForText } from "./harness.mjs";

const shared = serverAndBrowser();
const REPO = new URL("../../", import.meta.url).pathname;
const CARDS = ["simulated", "analytical", "scale"];

// Every figure the page shows as a number: the strip's, the model table's
// and the scale panel's.
const FIGURES = [
  '[data-testid^="ipc-"][data-testid$="-value"][data-value]',
  '[data-testid^="model-ipc-"][data-value]',
  '[data-testid^="scale-"][data-testid$="-ipc"][data-value]',
].join(", ");

// Waits until the strip has all three cards settled (a figure, or for the
// scale model why there is none) and nothing runs.
async function settled(page, timeout = 240_000) {
  await page.waitForFunction(
    () => {
      const q = (id) => document.querySelector(`[data-testid="${id}"]`);
      const has = (id) => q(id)?.hasAttribute("data-value");
      return (
        has("ipc-simulated-value") &&
        has("ipc-analytical-value") &&
        (has("ipc-scale-value") || q("ipc-scale-none")) &&
        !q("scale-progress") &&
        q("run-status")?.textContent.startsWith("finished")
      );
    },
    null,
    { timeout },
  );
}

// The figures on the page now, by test id.
const figuresOf = (page) =>
  page.evaluate((selector) => {
    const figures = {};
    for (const el of document.querySelectorAll(selector)) figures[el.dataset.testid] = el.dataset.value;
    return figures;
  }, FIGURES);

// Records the page in `window.samples` on every DOM change and every 25 ms.
async function sample(page) {
  await page.evaluate(
    ([selector, cards]) => {
      window.samples = [];
      const q = (id) => document.querySelector(`[data-testid="${id}"]`);
      const read = () => {
        const bar = q("run-progress");
        const s = {
          preset: q("preset-select")?.value,
          status: q("run-status")?.textContent ?? null,
          progress: bar ? [Number(bar.value), Number(bar.max)] : null,
          modelsPending: !!q("model-pending-mdm"),
          simulatedPending: q("ipc-simulated-pending")?.textContent ?? null,
          runWaiting: !!q("run-waiting"),
          animation: !!q("animation"),
          animationPending: !!q("animation-pending"),
          figures: {},
          blank: cards.filter((card) => q(`ipc-${card}-value`)?.textContent.trim() === "–"),
        };
        for (const el of document.querySelectorAll(selector)) s.figures[el.dataset.testid] = el.dataset.value;
        window.samples.push(s);
      };
      new MutationObserver(read).observe(document.body, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      window.sampler = setInterval(read, 25);
    },
    [FIGURES, CARDS],
  );
}

test("no stale figure while a new experiment profiles, simulates and predicts", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.setViewportSize({ width: 1280, height: 900 });
  await settled(page);
  const before = await figuresOf(page);
  await sample(page);
  // Switched while a run of the first experiment goes on.
  await page.getByTestId("run").click();
  await page.waitForFunction(() => document.querySelector('[data-testid="run-status"]')?.textContent.startsWith("running"));
  await page.getByTestId("preset-select").selectOption("mdm-pascal-28sm");
  await page.getByTestId("model-pending-mdm").waitFor({ timeout: 20_000 });
  await page.screenshot({ path: `${SCREENSHOTS}fresh-pending.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("ipc-summary").screenshot({ path: `${SCREENSHOTS}fresh-pending-phone.png` });
  await page.setViewportSize({ width: 1280, height: 900 });
  await settled(page);
  const final = await figuresOf(page);
  const samples = await page.evaluate(() => {
    clearInterval(window.sampler);
    return window.samples;
  });
  assert.notEqual(before["model-ipc-mdm"], final["model-ipc-mdm"], "the two experiments' MDM figures differ");
  assert.notEqual(before["ipc-simulated-value"], final["ipc-simulated-value"]);
  const after = samples.filter((s) => s.preset === "mdm-pascal-28sm");
  assert.ok(after.length > 20, `the page was sampled through the change: ${after.length} samples`);
  assert.ok(after.some((s) => s.modelsPending), "the model table was pending while profiling");
  assert.ok(after.some((s) => s.status?.startsWith("running")), "the run was sampled while running");
  assert.ok(after.some((s) => !s.figures["ipc-scale-value"]), "the scale card was sampled before its figure");
  assert.ok(after.some((s) => s.runWaiting), "the first experiment's run was not shown as the new one's");
  assert.ok(after.some((s) => s.animationPending), "its animation gave way to a note while the new one loaded");
  assert.ok(after.some((s) => s.animation), "the new run's animation came");
  for (const [index, s] of after.entries()) {
    for (const [id, value] of Object.entries(s.figures)) {
      assert.equal(value, final[id], `sample ${index} (${s.status}) shows ${id} = ${value}, not yet this experiment's`);
    }
    assert.deepEqual(s.blank, [], `sample ${index}: every card without a figure says what it waits for`);
    if (s.status?.startsWith("finished")) {
      assert.equal(s.progress[0], s.progress[1], `sample ${index}: a finished run's bar is full`);
    }
    if (s.simulatedPending?.startsWith("waiting for the workload")) {
      assert.equal(s.status, null, `sample ${index}: no run's progress while the experiment loads`);
    }
    if (s.runWaiting) {
      assert.ok(!s.animation, `sample ${index}: no animation of the first experiment's run under the new one`);
    }
    if (s.animationPending) assert.ok(s.runWaiting, `sample ${index}: the animation waits only for another run`);
    if (s.figures["ipc-simulated-value"]) {
      assert.match(s.status, /^finished/, `sample ${index}: a simulated figure only beside a finished run`);
    }
  }
  // The run went to its end at full speed: the event list says where it stops.
  const cycle = (await textOf(page, "run-status")).match(/cycle ([\d,]+)/)[1];
  assert.match(await textOf(page, "events-gap"), new RegExp(`the run went on to cycle ${cycle} at full speed`));
  assert.equal(await page.getByTestId("no-events").count(), 0, "one note, not two");
  await page.screenshot({ path: `${SCREENSHOTS}fresh-finished.png` });
  await page.locator(".event-log").screenshot({ path: `${SCREENSHOTS}fresh-events-gap.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator(".event-log").screenshot({ path: `${SCREENSHOTS}fresh-events-gap-phone.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a long run shows its expected time left from its progress", async () => {
  const link = await linkOf({
    config: { preset: "mdm-pascal-28sm" },
    workload: { generated: { kernel: "strided", knobs: [["gs", 32]] } },
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.getByTestId("run-time-left").waitFor({ timeout: 60_000 });
  const left = Number(await page.getByTestId("run-time-left").getAttribute("data-value"));
  assert.ok(left > 0 && Number.isFinite(left), `seconds left: ${left}`);
  assert.match(await textOf(page, "run-time-left"), /^· about (\d+ s|\d+ min \d\d s|\d+ h \d\d min) left$/);
  assert.match(await textOf(page, "run-status"), /^running/);
  const [value, max] = await page.getByTestId("run-progress").evaluate((bar) => [bar.value, bar.max]);
  assert.ok(value < max, "not done yet");
  await page.getByTestId("toolbar").screenshot({ path: `${SCREENSHOTS}fresh-time-left.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("toolbar").screenshot({ path: `${SCREENSHOTS}fresh-time-left-phone.png` });
  await page.getByTestId("cancel").click();
  await page.getByTestId("run-time-left").waitFor({ state: "detached" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a long sampled run says why it shows no time left", async () => {
  // Photon sampling predicts part of the work as it goes, so the pace of the
  // instructions simulated in detail says nothing of the time left: once the
  // run has gone as long as one that shows an estimate, it says so instead.
  const link = await linkOf({
    config: { preset: "mdm-pascal-28sm" },
    workload: { generated: { kernel: "strided", knobs: [["gs", 32]] } },
    sampling: "photon",
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.getByTestId("run-time-unknown").waitFor({ timeout: 60_000 });
  assert.match(await textOf(page, "run-time-unknown"), /^· no time estimate: a sampled run predicts part of its work as it goes$/);
  assert.match(await page.getByTestId("run-time-unknown").getAttribute("title"), /predicts the rest/);
  assert.match(await textOf(page, "run-status"), /^running/);
  assert.equal(await page.getByTestId("run-time-left").count(), 0, "no estimate from a pace that does not tell");
  await page.getByTestId("toolbar").screenshot({ path: `${SCREENSHOTS}fresh-time-unknown.png` });
  await page.getByTestId("cancel").click();
  await page.getByTestId("run-time-unknown").waitFor({ state: "detached" });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a config that fails to load stops the run it would have started and says so at the top", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId("run-status").waitFor({ timeout: 30_000 });
  // The preset GPU's workload profiled first (its model table drawn), so the
  // stop below has figures of the preset GPU to withhold; on a loaded
  // machine the profile can still be running when the config is given.
  await page.getByTestId("model-table").waitFor({ timeout: 60_000 });
  const dir = `${REPO}crates/config/test_data/gtx1080/`;
  await page.getByTestId("config-files").setInputFiles(`${dir}gpgpusim.config`);
  await page.getByTestId("config-needs-file").waitFor({ timeout: 20_000 });
  const stopped = page.getByTestId("run-stopped");
  await stopped.waitFor();
  assert.match(await stopped.textContent(), /^Not run: the GPU config asked for did not load \(.*needs the \.icnt file/);
  assert.equal(await page.getByTestId("run-status").count(), 0, "no run status beside the stop");
  for (const card of ["simulated", "analytical", "scale"]) {
    assert.equal(await page.getByTestId(`ipc-${card}-value`).getAttribute("data-value"), null, `no ${card} figure`);
    assert.equal(await textOf(page, `ipc-${card}-pending`), "not computed: the GPU config asked for did not load");
  }
  assert.equal(await page.getByTestId("model-pending-mdm").count(), 1, "no model figure of the preset GPU");
  assert.equal(
    await textOf(page, "analysis-status"),
    "The models' figures: not computed: the GPU config asked for did not load.",
  );
  await page.getByTestId("dock").screenshot({ path: `${SCREENSHOTS}config-error-stop.png` });
  // Tall enough that the panel shows without scrolling under the sticky dock.
  await page.setViewportSize({ width: 1280, height: 2400 });
  await page.getByTestId("analytical-panel").screenshot({ path: `${SCREENSHOTS}config-error-models.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${SCREENSHOTS}config-error-stop-phone.png` });
  // The missing file given, the config loads and the experiment runs.
  await page.getByTestId("config-needed-file").setInputFiles(`${dir}config_fermi_islip.icnt`);
  await waitForText(page, "config-sms", "20");
  await page.getByTestId("run-status").waitFor({ timeout: 30_000 });
  assert.equal(await stopped.count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
