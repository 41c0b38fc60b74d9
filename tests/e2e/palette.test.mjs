// One colour vocabulary (issue 42): every coloured mark of every chart and
// of the animation's legend is drawn in the colour of the concept it names
// (`data-concept`, the stylesheet's `--concept-<id>`, which crate::palette
// writes), and so is every warp cell the animation's canvas draws (its
// pixels read back), no colour stands for two concepts, every coloured part names
// itself in words (a legend entry, or on a tap or focus), and chart text
// stays 11 px or more on a 390-px phone. Opened from a handout's link, so the
// screenshots show the step banner with the charts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { openPage, serverAndBrowser, SCREENSHOTS } from "./harness.mjs";

const shared = serverAndBrowser();
// Lab 1's step 1c (strided gs = 32 on mdm-pascal-28sm): every report chart
// has data, MSHRs fill, and the CPI stacks have many parts.
const HANDOUT = new URL("../../docs/labs/1-memory-divergence.md", import.meta.url).pathname;
const STEP = readFileSync(HANDOUT, "utf8").match(/\| 1c \| \[open\]\([^)#]*(#x=[^)]+)\)/)[1];
const CHARTS = ["issue-chart", "cache-chart", "mshr-chart", "latency-chart", "cpi-chart"];

// Every concept's colour as the stylesheet has it, id → "rgb(r, g, b)".
function palette(page) {
  return page.evaluate(() => {
    const probe = document.body.appendChild(document.createElement("span"));
    const colours = {};
    for (const sheet of document.styleSheets) {
      for (const rule of sheet.cssRules) {
        if (rule.selectorText !== ":root") continue;
        for (const name of rule.style) {
          if (!name.startsWith("--concept-")) continue;
          probe.style.color = `var(${name})`;
          colours[name.slice("--concept-".length)] = getComputedStyle(probe).color;
        }
      }
    }
    probe.remove();
    return colours;
  });
}

// Every mark that carries a concept: where it is, its concept and the
// colour it is drawn in (a fill, a line's stroke or a swatch's background).
function coloured(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-concept]")].map((element) => {
      const style = getComputedStyle(element);
      const colour = element instanceof SVGElement
        ? (["polyline", "line"].includes(element.localName) ? style.stroke : style.fill)
        : style.backgroundColor;
      const place = element.closest("[data-testid]")?.dataset.testid ?? "?";
      return { place, concept: element.dataset.concept, colour };
    }));
}

test("every chart, the animation's legend and its canvas draw each concept in its one colour", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + STEP);
  await page.setViewportSize({ width: 1280, height: 900 });
  for (const chart of CHARTS) await page.locator(`[data-testid=${chart}] svg`).waitFor({ timeout: 90_000 });
  await page.getByTestId("animation-legend").waitFor();
  await page.getByTestId("load-published").click();
  await page.locator("[data-testid=published-scale-chart] .series").first().waitFor({ timeout: 20_000 });

  const colours = await palette(page);
  const ids = Object.keys(colours);
  assert.ok(ids.length >= 30, `the stylesheet names the palette (${ids.length} concepts)`);
  assert.equal(new Set(Object.values(colours)).size, ids.length, "no two concepts share a colour");

  const marks = await coloured(page);
  const places = new Set(marks.map((mark) => mark.place));
  for (const place of [...CHARTS, "animation-legend", "ipc-timeline", "published-scale-chart", "published-miss-curve"]) {
    assert.ok([...places].some((p) => p.startsWith(place)), `${place} draws in the palette (${[...places]})`);
  }
  const seen = new Map();
  for (const { place, concept, colour } of marks) {
    assert.ok(concept in colours, `${place}: ${concept} is a concept of the palette`);
    assert.equal(colour, colours[concept], `${place}: ${concept} is drawn in its colour`);
    seen.set(colour, new Set([...(seen.get(colour) ?? []), concept]));
  }
  for (const [colour, concepts] of seen) assert.equal(concepts.size, 1, `${colour} means ${[...concepts]}`);
  // The case: "at a barrier" is one colour in the animation, the
  // issue slots and the CPI stacks, and the MSHRs' pink is no barrier's.
  const barrier = marks.filter((mark) => mark.concept === "at-barrier").map((mark) => mark.place);
  assert.ok(barrier.includes("animation-legend") && barrier.includes("issue-chart"), `${barrier}`);
  assert.notEqual(colours["at-barrier"], colours.mshr);

  // Nothing coloured in a chart goes without a concept: every bar, segment,
  // marker, line and band, and every legend swatch but the CTA band's grey.
  const bare = await page.evaluate(() => {
    const marks = document.querySelectorAll(
      "figure.chart svg.chart-drawing :is(rect, circle, polyline), ul.legend .swatch, .animation-legend .swatch");
    return [...marks].filter((mark) => !mark.dataset.concept).map((mark) => mark.closest("li")?.textContent ?? mark.outerHTML);
  });
  assert.deepEqual(bare, ["CTA band"], "only the CTA bands' furniture grey has no concept");

  // Colour is never the only encoding: the legend's swatches carry the marks
  // the canvas draws over the states close in colour, and over a full queue.
  const glyphs = await page.getByTestId("animation-legend").evaluate((legend) =>
    Object.fromEntries([...legend.querySelectorAll(".swatch[data-concept]")].map((s) => [s.dataset.concept, s.querySelectorAll("svg rect").length])));
  assert.deepEqual(
    [glyphs["waiting-on-memory"], glyphs["waiting-on-result"], glyphs["at-barrier"], glyphs["unit-busy"], glyphs.done, glyphs["no-warp"], glyphs.issuing],
    [1, 1, 1, 2, 1, 1, 0],
    "a dash, a dot, a wall, a cross, a floor, a flag; ready is plain");
  assert.ok(glyphs["queue-full"] >= 2, "a full queue is hatched");

  // The canvas draws in the same colours: each warp cell's top-left pixel
  // (which no state's mark covers) is its state's `--concept-*` colour, the
  // state read from the hit map through the tooltip at that pixel and named
  // by the legend.
  const named = await page.getByTestId("animation-legend").evaluate((legend) =>
    Object.fromEntries([...legend.querySelectorAll("li")].map((li) =>
      [li.title.slice(0, li.title.indexOf(":")), li.querySelector(".swatch").dataset.concept])));
  const canvas = page.getByTestId("animation-canvas");
  // In the middle of the window, clear of the sticky dock at the top.
  await canvas.evaluate((element) => element.scrollIntoView({ block: "center" }));
  const warpColours = Object.fromEntries(
    ["issuing", "waiting-on-memory", "waiting-on-result", "at-barrier", "waiting-for-fetch", "unit-busy", "done", "no-warp"]
      .map((id) => [colours[id], id]));
  // Top-left corners of runs of warp colours, in reading order, where the
  // canvas is not under the sticky dock.
  const corners = await canvas.evaluate((element, known) => {
    const { width, height } = element;
    const data = element.getContext("2d").getImageData(0, 0, width, height).data;
    const at = (x, y) => (x < 0 || y < 0 ? "" : `rgb(${data[4 * (y * width + x)]}, ${data[4 * (y * width + x) + 1]}, ${data[4 * (y * width + x) + 2]})`);
    const bounds = element.getBoundingClientRect();
    const ratio = width / bounds.width;
    const shown = (x, y) => document.elementFromPoint(bounds.left + x + 0.5, bounds.top + y + 0.5) === element;
    const found = [];
    for (let y = 0; y < height && found.length < 400; y++) {
      for (let x = 0; x < width && found.length < 400; x++) {
        const colour = at(x, y);
        const corner = colour in known && at(x - 1, y) !== colour && at(x, y - 1) !== colour;
        if (corner && shown(x / ratio, y / ratio)) found.push({ x: x / ratio, y: y / ratio, colour });
      }
    }
    return found;
  }, warpColours);
  assert.ok(corners.length > 0, "the canvas draws warp cells");
  const box = await canvas.boundingBox();
  const checked = new Map();
  for (const { x, y, colour } of corners) {
    if (checked.has(colour)) continue;
    // Off the canvas first, so the tooltip read is the new point's.
    const tooltip = page.getByTestId("animation-tooltip");
    await page.mouse.move(box.x + box.width / 2, box.y - 20);
    await tooltip.waitFor({ state: "hidden", timeout: 5_000 });
    // A mouse event's coordinates are whole pixels and the canvas may sit
    // at a fraction of one: a pixel and a half into the cell (3 px or more)
    // lands inside it either way.
    await page.mouse.move(box.x + x + 1.5, box.y + y + 1.5);
    await tooltip.waitFor({ state: "visible", timeout: 5_000 });
    const text = await tooltip.textContent();
    const state = text.match(/^SM \d+, warp \d+(?: \(CTA \d+\))?: (.+?) — /)?.[1];
    if (!state) continue; // an issue bar's green, not a warp
    assert.equal(colour, colours[named[state]], `the canvas draws "${state}" (${text.slice(0, 40)}) in --concept-${named[state]}`);
    checked.set(colour, state);
    if (checked.size >= 3) break;
  }
  assert.ok(checked.size >= 2, `warp cells of two states or more read back (${[...checked.values()]})`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("every coloured part names itself in words, on a tap or focus too", async () => {
  const context = await shared.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  await page.goto(shared.server.origin + "/" + STEP);
  const cpi = page.getByTestId("cpi-chart");
  await cpi.locator("svg").waitFor({ timeout: 90_000 });
  const unnamed = await page.evaluate(() =>
    [...document.querySelectorAll(".segment")].filter((s) => !s.getAttribute("aria-label") || !s.querySelector("title, .focus-label")).length);
  assert.equal(unnamed, 0, "every segment has an accessible name, a tooltip and a focus label");
  // Parts too thin for a value on them name themselves on a tap (the
  // thinnest that a finger can hit) or on focus (the thinnest of all).
  const thin = await cpi.evaluate((figure) => {
    const segments = [...figure.querySelectorAll(".segment")];
    const width = (i) => Number(segments[i].querySelector("rect").getAttribute("width"));
    const unwritten = segments.map((_, i) => i).filter((i) => !segments[i].querySelector(".value"));
    const thinnest = (indices) => indices.reduce((best, i) => (width(i) < width(best) ? i : best));
    return { tapped: thinnest(unwritten.filter((i) => width(i) >= 3)), focused: thinnest(unwritten) };
  });
  for (const [index, how] of [[thin.tapped, "tap"], [thin.focused, "focus"]]) {
    const segment = cpi.locator(".segment").nth(index);
    const label = segment.locator(".focus-label");
    assert.equal(await label.isVisible(), false, `hidden until asked for (${how})`);
    await (how === "tap" ? segment.tap() : segment.focus());
    assert.equal(await label.isVisible(), true, `shown on a ${how}`);
    const name = await segment.getAttribute("aria-label");
    assert.ok(name.startsWith((await label.textContent()).trim()), `${how}: ${name}`);
    await page.locator("h1").tap();
    assert.equal(await label.isVisible(), false, "hidden again after a tap elsewhere");
  }
  // The legends' swatches each come with their name.
  const swatchesWithoutText = await page.evaluate(() =>
    [...document.querySelectorAll("ul.legend li, .animation-legend li")].filter((li) => !li.textContent.trim()).length);
  assert.equal(swatchesWithoutText, 0);
  await context.close();
});

test("chart and legend text stays 11 px or more on a 390-px phone, inside its drawing", async () => {
  const { page } = await openPage(shared.browser, shared.server.origin + "/" + STEP);
  await page.setViewportSize({ width: 390, height: 844 });
  for (const chart of CHARTS) await page.locator(`[data-testid=${chart}] svg`).waitFor({ timeout: 90_000 });
  await page.getByTestId("animation-legend").waitFor();
  await page.getByTestId("load-published").click();
  await page.getByTestId("published-mean").waitFor({ timeout: 20_000 });
  const small = await page.evaluate(() => {
    const out = [];
    for (const text of document.querySelectorAll("svg text")) {
      if (!text.getClientRects().length || getComputedStyle(text).display === "none") continue;
      const svg = text.ownerSVGElement;
      const box = svg.viewBox.baseVal;
      const scale = box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
      const px = parseFloat(getComputedStyle(text).fontSize) * scale;
      const where = `${svg.closest("[data-testid]")?.dataset.testid}: "${text.textContent}"`;
      if (px < 10.95) out.push(`${where} ${px.toFixed(1)} px`);
      // Enlarged, it must still fit in its drawing.
      const [inner, outer] = [text.getBoundingClientRect(), svg.getBoundingClientRect()];
      if (inner.left < outer.left - 1 || inner.right > outer.right + 1) out.push(`${where} runs out of its drawing`);
    }
    for (const item of document.querySelectorAll("ul.legend li, .animation-legend li, .step-banner")) {
      const px = parseFloat(getComputedStyle(item).fontSize);
      if (px < 11) out.push(`${item.textContent}: ${px} px`);
    }
    return out;
  });
  assert.deepEqual(small, [], "text under 11 px, or out of its drawing");
  await page.close();
});

test("screenshots: the step banner with the charts at 1280 and 390 px", async () => {
  for (const [name, viewport] of [["1280", { width: 1280, height: 900 }], ["390", { width: 390, height: 844 }]]) {
    const { page } = await openPage(shared.browser, shared.server.origin + "/" + STEP);
    await page.setViewportSize(viewport);
    await page.getByTestId("step-banner").waitFor();
    for (const chart of CHARTS) await page.locator(`[data-testid=${chart}] svg`).waitFor({ timeout: 90_000 });
    await page.getByTestId("report-panel").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}palette-step-${name}.png` });
    await page.screenshot({ path: `${SCREENSHOTS}palette-step-${name}-full.png`, fullPage: true });
    await page.close();
  }
});
