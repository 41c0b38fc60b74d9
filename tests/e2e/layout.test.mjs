// The page on a 390-px phone, a 1280×800 laptop and a 1920×1080 screen: the
// body never scrolls sideways (wide tables scroll inside their own box), the
// config search and the glossary work (its links leave the experiment in the
// address), the toolbar and the three IPCs stay in view on the wider two,
// which put the experiment's panels beside the results' while a phone keeps
// one column, every section is a link away, the keyboard shortcuts are listed
// in a popover, and each size leaves a screenshot to look at;
// the phone page leads with the strip and the animation (its picture on the
// first screen, the toolbar after it), folds its sections
// (the folded page at most three screens), keeps its tables inside their
// panels and its text at 11 px or more, and shows every hover text on a tap;
// and the README's pictures are taken as `cargo xtask screenshots` takes them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { SCREENSHOTS, figuresSettled, openPage, serverAndBrowser, textOf, waitForText } from "./harness.mjs";

const shared = serverAndBrowser();

const SIZES = [
  ["phone", { width: 390, height: 844 }],
  ["laptop", { width: 1280, height: 800 }],
  ["wide", { width: 1920, height: 1080 }],
];

for (const [name, viewport] of SIZES) {
  test(`no sideways scroll at ${viewport.width}×${viewport.height}`, async () => {
    const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
    await page.setViewportSize(viewport);
    await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
    await page.getByTestId("cpi-chart").locator("svg.chart-drawing").waitFor({ timeout: 30_000 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    await page.screenshot({ path: `${SCREENSHOTS}layout-${name}.png`, fullPage: true });
    // On a laptop the toolbar (GPU, workload, Run) stays at the top while the
    // panels scroll under it; on a phone it scrolls away with the page.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const top = await page.getByTestId("toolbar").evaluate((bar) => bar.getBoundingClientRect().top);
    if (name !== "phone") {
      assert.equal(top, 0, "the toolbar is at the top of the window");
      const strip = await page.getByTestId("ipc-summary").boundingBox();
      assert.ok(strip.y > 0 && strip.y + strip.height < viewport.height / 3, "and the three IPCs under it");
    } else {
      assert.ok(top < 0, "the toolbar scrolled away");
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("the config search filters rows and hides empty groups; the glossary lists its terms", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
  await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
  const groups = await page.getByTestId("config-group").count();
  await page.getByTestId("config-search").fill("MSHR");
  await page.waitForFunction(() => /of \d+ match/.test(document.querySelector("[data-testid=config-match-count]").textContent));
  const rows = page.getByTestId("config-row");
  const n = await rows.count();
  assert.ok(n > 0 && (await textOf(page, "config-match-count")).startsWith(`${n} of `));
  // Each row matches by label, value or option (the option starts its title).
  const said = await rows.evaluateAll((trs) => trs.map((tr) => tr.textContent + " " + tr.title.split(":")[0]));
  for (const text of said) assert.match(text, /mshr/i);
  assert.ok((await page.getByTestId("config-group").count()) < groups, "groups without a match are hidden");
  await page.getByTestId("config-search").fill("-gpgpu_n_clusters");
  await waitForText(page, "config-match-count", `1 of ${await totalRows(page)} match`);
  assert.match(await rows.first().getAttribute("title"), /^-gpgpu_n_clusters\+-gpgpu_n_cores_per_cluster: number of processing clusters/);

  const entries = page.getByTestId("glossary-entry");
  assert.ok((await entries.count()) > 80);
  await page.locator("#glossary-mshr").waitFor();
  // A help link scrolls to its entry and leaves the address, which carries
  // the experiment, as it was. Followed once the figures have settled: a
  // panel above that changes height after the scroll would move the entry.
  await figuresSettled(page);
  const link = page.url();
  await page.getByTestId("config").getByTestId("help-link").click();
  // ...to just below the toolbar that stays at the top, not under it.
  await page.waitForFunction(() => {
    const box = document.getElementById("glossary-config").getBoundingClientRect();
    const toolbar = document.querySelector('[data-testid="toolbar"]').getBoundingClientRect();
    return box.top >= toolbar.bottom && box.bottom <= innerHeight;
  });
  assert.equal(page.url(), link);
  assert.match(new URL(link).hash, /^#x=/);
  assert.deepEqual(errors, []);
  await page.close();
});

async function totalRows(page) {
  const text = await textOf(page, "config-match-count");
  return Number(text.match(/of (\d+)/)[1]);
}

// `cargo xtask screenshots` takes the README's pictures with these two
// steps; here they write into tests/screenshots/, and the README shows
// pictures of the same size.
test("the README's pictures come from the page as it is now", async () => {
  const { WINDOW, defaultExperiment, pausedRun } = await import("../screenshots.mjs");
  const taken = [`${SCREENSHOTS}readme-default.png`, `${SCREENSHOTS}readme-run.png`];
  const errors = [
    ...(await defaultExperiment(shared.browser, shared.server.origin, taken[0])),
    ...(await pausedRun(shared.browser, shared.server.origin, taken[1])),
  ];
  assert.deepEqual(errors, []);
  const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
  for (const [picture, docs] of [[taken[0], "docs/screenshot.png"], [taken[1], "docs/screenshot-run.png"]]) {
    assert.ok(readme.includes(`](${docs})`), `the README shows ${docs}`);
    const size = await pngSize(picture);
    assert.deepEqual(size, WINDOW, `${picture} is the window`);
    assert.deepEqual(await pngSize(new URL(`../../${docs}`, import.meta.url)), size, `${docs} is as big`);
  }
});

// A PNG's width and height, from its IHDR chunk.
async function pngSize(path) {
  const bytes = await readFile(path);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

for (const [name, viewport] of SIZES) {
  test(`at ${viewport.width}×${viewport.height} every section is one link away, ${name === "phone" ? "in one column" : "side by side"}`, async () => {
    const { page, errors } = await openPage(shared.browser, shared.server.origin + "/");
    await page.setViewportSize(viewport);
    await page.getByTestId("analytical-panel").waitFor({ timeout: 30_000 });
    await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
    // Measured at one moment: the animation's panel mounts above them when
    // the run's first snapshot comes, and would move one but not another.
    const [workload, config, models] = await page.evaluate(() =>
      ["workload", "config", "analytical-panel"].map((id) => {
        const { x, y, width, height } = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
        return { x, y, width, height };
      }),
    );
    if (name === "phone") {
      // One column, the results first: what the phone's reader came for.
      assert.ok(models.x === workload.x && models.y + models.height < workload.y, "one column: the models above the workload");
    } else {
      assert.ok(models.x > workload.x + workload.width, "the models' panel is right of the workload's");
      // The columns start level (the panels above the models' come and go with a run).
      const [inputs, outputs] = await page.evaluate(() =>
        [".column.inputs", ".column.outputs"].map((c) => document.querySelector(c).getBoundingClientRect().top));
      assert.ok(Math.abs(inputs - outputs) < 1, `the two columns start level (${inputs} vs ${outputs})`);
    }
    // A section's link brings it into view (below the dock, where there is one).
    // The run's report mounts above the models' panel when the run ends, and
    // the strip's scale card changes height when its figure comes (on two
    // cores the scale models now run beside the end of the run), so the link
    // is followed once all three figures are there: a change above would move
    // the models' panel after the scroll.
    await figuresSettled(page);
    await page.getByTestId("nav-analytical-panel").click();
    await page.waitForFunction(() => {
      const box = document.querySelector('[data-testid="analytical-panel"]').getBoundingClientRect();
      // Scrolling moves by whole pixels and a panel's top can fall between two.
      return box.top > -1 && box.top < window.innerHeight / 2;
    }, null, { timeout: 5_000 });
    if (name !== "phone") {
      const dock = await page.getByTestId("dock").boundingBox();
      const panel = await page.getByTestId("analytical-panel").boundingBox();
      assert.ok(panel.y >= dock.y + dock.height - 1, `the panel starts below the dock (${panel.y} vs ${dock.y + dock.height})`);
    }
    assert.match(page.url(), /#x=/, "the link left the experiment in the address");
    // The keyboard shortcuts, in a popover from the section links.
    await page.getByTestId("keys-help").locator("summary").click();
    const popover = page.getByTestId("keys-help").locator(".popover");
    await popover.waitFor({ state: "visible", timeout: 5_000 });
    const text = await popover.textContent();
    for (const key of ["Space", "→", "Shift", "↓", "play or pause", "step one cycle"]) {
      assert.ok(text.includes(key), `the popover lists ${key}`);
    }
    const box = await popover.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, "the popover fits the window");
    await page.screenshot({ path: `${SCREENSHOTS}layout-${name}-sections.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("a phone leads with the strip and the animation, folds to three screens, and explains on a tap", async () => {
  const screen = { width: 390, height: 844 };
  const context = await shared.browser.newContext({ viewport: screen, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  await page.goto(shared.server.origin + "/");
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  await page.getByTestId("animation").waitFor();
  const top = (testid) => page.getByTestId(testid).evaluate((e) => e.getBoundingClientRect().top + scrollY);
  const [strip, toolbar, animation, picture, workload] = await Promise.all(
    ["ipc-summary", "toolbar", "animation-panel", "animation-canvas", "workload"].map(top),
  );
  assert.ok(strip < toolbar && strip < screen.height / 2, `the strip first, on the first screen (at ${strip} px)`);
  assert.ok(animation < toolbar && animation < workload, "the animation before the toolbar and the experiment's panels");
  // The animation on the first screen, not one swipe down: its panel and at
  // least a row of its SMs (issue 42, "what to look at").
  assert.ok(animation < screen.height, `the animation's panel on the first screen (at ${animation} px)`);
  assert.ok(picture + 100 <= screen.height, `the animation's picture starts on the first screen (at ${picture} px)`);
  await page.screenshot({ path: `${SCREENSHOTS}layout-phone-top.png` });

  // Tables fit their panel or scroll inside it; text is 11 px or more.
  const spilled = await page.evaluate(() =>
    [...document.querySelectorAll(".panel table")].filter((table) => {
      const panel = table.closest(".panel").getBoundingClientRect();
      let box = table.parentElement;
      while (box && !box.classList.contains("panel") && getComputedStyle(box).overflowX === "visible") box = box.parentElement;
      const scrolls = box && ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
      return !scrolls && table.getBoundingClientRect().right > panel.right + 1;
    }).map((table) => table.className),
  );
  assert.deepEqual(spilled, [], "every table fits or scrolls inside its panel");
  // The sliders' rows too: each value box and its help inside the panel
  // (the knob grids put the help under the slider at this width).
  const outside = await page.evaluate(() =>
    [...document.querySelectorAll(".panel .knob-value, .panel .knob-help")]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > e.closest(".panel").getBoundingClientRect().right + 1)
      .map((e) => `${e.className} ${e.dataset.testid ?? e.textContent.slice(0, 30)}`),
  );
  assert.deepEqual(outside, [], "every slider's value box and help inside its panel");
  const small = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) && e.getClientRects().length)
      .filter((e) => parseFloat(getComputedStyle(e).fontSize) < 11)
      .map((e) => `${e.tagName} ${e.textContent.trim().slice(0, 30)}`),
  );
  assert.deepEqual(small, [], "no text under 11 px");

  // A hover text on a tap: the simulated card's, then a panel heading's.
  for (const testid of ["ipc-simulated", "animation-panel"]) {
    const explained = testid === "ipc-simulated" ? page.getByTestId(testid) : page.getByTestId(testid).locator("h2");
    const title = await page.getByTestId(testid).evaluate((e) => (e.closest("[title]") ?? e.querySelector("h2[title]")).title);
    await explained.scrollIntoViewIfNeeded();
    await explained.tap({ position: { x: 5, y: 5 } });
    const bubble = page.getByTestId("tap-explanation");
    await bubble.waitFor({ state: "visible", timeout: 5_000 });
    assert.equal(await bubble.textContent(), title);
    const box = await bubble.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= screen.width, "the bubble fits the screen");
  }
  // Whatever a mouse learns by hovering a finger learns by a tap (issue 42):
  // a legend entry (focusable for the keyboard too), a scale-panel label
  // (whose tap still ticks its box), a chart band's and a marker's SVG
  // <title>, and a warp on the animation's canvas.
  const bubble = page.getByTestId("tap-explanation");
  const tapShows = async (target, expected, what, position) => {
    await target.scrollIntoViewIfNeeded();
    await target.tap(position ? { position } : {});
    await bubble.waitFor({ state: "visible", timeout: 5_000 });
    assert.equal(await bubble.textContent(), expected, what);
    const box = await bubble.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= screen.width, `${what}: the bubble fits the screen`);
  };
  const entry = page.getByTestId("animation-legend").locator("li").nth(1);
  await tapShows(entry, await entry.getAttribute("title"), "a legend entry");
  assert.match(await bubble.textContent(), /^waiting on memory: /);
  await page.screenshot({ path: `${SCREENSHOTS}layout-phone-tap-legend.png` });

  const validate = page.getByTestId("scale-validate");
  const label = validate.locator("xpath=..");
  const ticked = await validate.isChecked();
  await tapShows(label, await label.getAttribute("title"), "a scale-panel label");
  assert.notEqual(await validate.isChecked(), ticked, "the label's tap still ticks its box");
  await label.tap();
  await bubble.waitFor({ state: "hidden", timeout: 5_000 });
  assert.equal(await validate.isChecked(), ticked, "a second tap unticks it and hides the explanation");

  await page.getByTestId("load-published").tap();
  await page.getByTestId("published-benchmark").selectOption({ label: "dct" });
  const band = page.getByTestId("published-miss-curve").getByTestId("chart-band");
  await band.waitFor();
  const bandTitle = await band.locator("title").textContent();
  assert.match(bandTitle, /^cliff 64→128 SMs: /);
  await tapShows(band.locator("rect"), bandTitle, "a chart's band", { x: 2, y: 4 });
  const point = page.getByTestId("published-miss-curve").locator(".point").first();
  await tapShows(point, await point.locator("title").textContent(), "a chart's marker");

  const canvas = page.getByTestId("animation-canvas");
  await canvas.scrollIntoViewIfNeeded();
  // SM 0's first warp cell starts 2 px in from the canvas's corner.
  await canvas.tap({ position: { x: 3, y: 3 } });
  const tooltip = page.getByTestId("animation-tooltip");
  await tooltip.waitFor({ state: "visible", timeout: 5_000 });
  assert.match(await tooltip.textContent(), /^SM 0, warp 0\b/, "a tap on the canvas explains the warp under it");
  const tip = await tooltip.boundingBox();
  assert.ok(tip.x >= 0 && tip.x + tip.width <= screen.width, "the canvas's tooltip fits the screen");
  await page.screenshot({ path: `${SCREENSHOTS}layout-phone-tap.png` });

  // Every section folded: the page is at most three screens tall.
  const folds = page.getByTestId("fold");
  const n = await folds.count();
  assert.ok(n >= 6, `every panel heading has a Fold button (${n})`);
  for (let i = 0; i < n; i++) await folds.nth(i).tap();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height <= 3 * screen.height, `the folded page is ${height} px, over three screens`);
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: `${SCREENSHOTS}layout-phone-folded.png`, fullPage: true });
  assert.equal(await page.getByTestId("animation").isVisible(), false, "a folded panel hides its content");
  const unfold = page.getByTestId("animation-panel").getByTestId("fold");
  assert.equal(await unfold.getAttribute("aria-expanded"), "false");
  await unfold.tap();
  assert.equal(await page.getByTestId("animation").isVisible(), true, "and shows it again");
  // A link into a folded panel unfolds it: the glossary, from a "?".
  await page.getByTestId("report-panel").getByTestId("fold").tap();
  await page.getByTestId("report-panel").getByTestId("help-link").tap();
  await page.locator("#glossary-report").waitFor({ state: "visible", timeout: 5_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
