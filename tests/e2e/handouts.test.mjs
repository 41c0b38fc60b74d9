// The course-lab handouts (docs/labs/N-*.md) run entirely from their links:
// every step's link, opened in the page, shows its step's banner, scrolled
// to the panel it names, and the figures the handout's table states (each page's data-value, rounded to one decimal), one of them
// served under a sub-path (a "no prediction" cell: the page says so and
// why); a step whose banner asks to watch a replay opens at the speed it
// names, and Replay plays at that pace; lab 3's published accuracy shows as stated once
// the published benchmarks are loaded. crates/cli/tests/handouts.rs checks
// the same tables against the CLI's figures, so page, CLI and docs agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { openPage, serverAndBrowser, SCREENSHOTS, SUB_PATH, unversioned } from "./harness.mjs";

const shared = serverAndBrowser();
const LABS = new URL("../../docs/labs/", import.meta.url).pathname;
const NOT_STATED = "—";
// What a table states where the scale-model rule gives no prediction.
const NO_PREDICTION = "no prediction";
// The strip's figures in the tables' column order: the headline model's
// (warplab's core model) and MDM's as published, which the strip shows under
// it.
const FIGURES = ["simulated", "analytical", "mdm", "scale"];
const HEAD = "| step | link | simulated IPC | warplab core model IPC | MDM IPC | scale-model IPC |";

// The text between two marker comments of a handout.
function between(text, name, begin, end) {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  assert.ok(start >= 0 && stop > start, `${name}: ${begin} … ${end}`);
  return text.slice(start + begin.length, stop);
}

// Each handout with its table's rows: { step, fragment, figures: [simulated, core model, MDM, scale-model] }.
function handouts() {
  return readdirSync(LABS)
    .filter((name) => /^\d-.*\.md$/.test(name))
    .sort()
    .map((name) => {
      const text = readFileSync(LABS + name, "utf8");
      const table = between(text, name, "<!-- figures:begin -->", "<!-- figures:end -->");
      assert.ok(table.includes(HEAD), `${name}: the table's columns are ${HEAD}`);
      const rows = table
        .split("\n")
        .filter((line) => line.startsWith("| ") && !line.startsWith("| step "))
        .map((line) => {
          const [step, link, ...figures] = line.split("|").slice(1, -1).map((cell) => cell.trim());
          const fragment = link.match(/\((?:[^)#]*)(#x=[^)]+)\)/)?.[1];
          assert.ok(fragment, `${name}: step ${step}: a link with #x=`);
          return { step, fragment, figures };
        });
      assert.ok(rows.length > 0, `${name}: the table has rows`);
      return { name, text, rows };
    });
}

// The page's figure `id` once it is there, as a number.
async function figure(page, id, timeout) {
  const value = page.locator(`[data-testid="ipc-${id}-value"][data-value]`);
  await value.waitFor({ timeout });
  return Number(await value.getAttribute("data-value"));
}

// `value` is what the handout states, `stated`, to its decimals (a value
// exactly halfway may round either way between Rust and JavaScript).
function rounds(value, stated, decimals, what) {
  const half = 0.5 * 10 ** -decimals;
  const ok = value.toFixed(decimals) === stated || Math.abs(Math.abs(value - Number(stated)) - half) < 1e-9;
  assert.ok(ok, `${what}: the page shows ${value}, the handout states ${stated}`);
}

// Opens one step's link and checks every figure the handout states.
async function checkStep(name, row, base) {
  const started = Date.now();
  const { page, errors } = await openPage(shared.browser, base + row.fragment);
  for (const [index, id] of FIGURES.entries()) {
    const stated = row.figures[index];
    if (stated === NOT_STATED) continue;
    // The scale-model figure follows the run of the target and the scale models' runs.
    const timeout = id === "scale" ? 240_000 : 90_000;
    if (stated === NO_PREDICTION) {
      // The card says the rule gives no prediction, and why, instead of a figure.
      await page.getByTestId(`ipc-${id}-none`).waitFor({ timeout });
      const why = await page.getByTestId(`ipc-${id}-why`).textContent();
      assert.match(why, /^The rule gives none: .*below what the \d+-SM scale model measured\.$/, `${name} step ${row.step}`);
      assert.equal(await page.locator(`[data-testid="ipc-${id}-value"][data-value]`).count(), 0, "no figure");
      continue;
    }
    const value = await figure(page, id, timeout);
    rounds(value, stated, 1, `${name} step ${row.step}: ${id} IPC`);
  }
  assert.equal(unversioned(page.url()), unversioned(base + row.fragment), "opening a link does not change it");
  await checkBanner(page, name, row);
  console.log(`# ${name} step ${row.step}: figures shown in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { page, errors };
}

// The step's banner: its lab (the handout's number), its step, and a link to
// the panel its link names, which the page has scrolled into view.
async function checkBanner(page, name, row) {
  const what = `${name} step ${row.step}: the banner`;
  assert.equal((await page.getByTestId("step-banner-step").textContent()).trim(), row.step, what);
  assert.match(await page.getByTestId("step-banner-lab").textContent(), new RegExp(`^Lab ${name[0]}: `), what);
  assert.ok((await page.getByTestId("step-banner-watch").textContent()).trim().length > 0, what);
  const panel = new URLSearchParams(row.fragment.slice(row.fragment.indexOf("&") + 1)).get("panel");
  assert.ok(panel, `${what}: the link names a panel`);
  await page.waitForFunction((id) => {
    const box = document.getElementById(id)?.getBoundingClientRect();
    return !!box && box.top < innerHeight && box.bottom > 0;
  }, panel, { timeout: 20_000 });
}

// A step whose banner asks to watch a replay ("replayed at N cycles/s"):
// the finished run's speed select shows N, and Replay plays at that pace
// (slowly: the strip keeps its figure while the animation starts over).
async function checkReplay(page, name, row) {
  const watch = new URLSearchParams(row.fragment.slice(row.fragment.indexOf("&") + 1)).get("watch");
  const speed = watch.match(/replayed at ([\d,]+) cycles\/s/)?.[1];
  if (!speed) return;
  const what = `${name} step ${row.step}: the replay`;
  const replay = page.getByTestId("replay");
  await replay.waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId("speed").locator("option:checked").textContent(), `${speed} cycles/s`, what);
  const ended = Number((await page.getByTestId("animation-ended-note").textContent()).match(/ended at cycle ([\d,]+)/)[1].replaceAll(",", ""));
  await replay.click();
  await page.getByTestId("pause").waitFor({ timeout: 20_000 });
  const cycle = async () => Number((await page.getByTestId("animation-cycle").textContent()).replaceAll(",", ""));
  const early = await cycle();
  await page.waitForTimeout(2_000);
  const later = await cycle();
  const perSecond = Number(speed.replaceAll(",", ""));
  assert.ok(later > early && later < early + 10 * perSecond, `${what}: at about ${speed} cycles/s: ${early} → ${later}`);
  // Go to the middle of the run, as the handout says: the replay pauses there.
  await page.getByTestId("seek-input").fill(String(Math.round(ended / 2)));
  await page.getByTestId("seek").click();
  await page.getByTestId("play").waitFor({ timeout: 60_000 });
  // The panel just below the dock, which stays at the top of the window.
  await page.getByTestId("animation-panel").evaluate((panel) => {
    const dock = document.querySelector('[data-testid="dock"]').getBoundingClientRect().bottom;
    scrollBy(0, panel.getBoundingClientRect().top - dock - 8);
  });
  await page.screenshot({ path: `${SCREENSHOTS}handout-${row.step}-replay.png` });
}

const all = handouts();

for (const [index, { name, text, rows }] of all.entries()) {
  test(`${name}: every step's link shows the figures the handout states`, async () => {
    for (const [i, row] of rows.entries()) {
      // One link of the first handout under the sub-path an instructor might serve it from.
      const base = index === 0 && i === 0 ? shared.server.origin + SUB_PATH : shared.server.origin + "/";
      const { page, errors } = await checkStep(name, row, base);
      await checkReplay(page, name, row);
      if (i === rows.length - 1) {
        await page.screenshot({ path: `${SCREENSHOTS}handout-${name.replace(/\.md$/, "")}.png` });
      }
      if (text.includes("<!-- published:begin -->") && i === 0) {
        await checkPublished(page, name, text);
      }
      assert.deepEqual(errors, [], `${name} step ${row.step}: page errors`);
      await page.close();
    }
  });
}

// The paper's published accuracy, as lab 3 states it, in the scale panel.
async function checkPublished(page, name, text) {
  const sentence = between(text, name, "<!-- published:begin -->", "<!-- published:end -->");
  const [, mean, max] = sentence.match(/\*\*([\d.]+)%\*\*.*\*\*([\d.]+)%\*\*/) ?? [];
  assert.ok(mean && max, `${name}: the published sentence states a mean and a maximum`);
  await page.getByTestId("load-published").click();
  const shown = async (id) => Number(await page.getByTestId(id).getAttribute("data-value"));
  await page.getByTestId("published-mean").waitFor({ timeout: 20_000 });
  rounds(await shown("published-mean"), mean, 2, `${name}: published mean error`);
  rounds(await shown("published-max"), max, 2, `${name}: published maximum error`);
}
