// Saving what the page shows: the config as gpgpusim.config, and a chart as
// SVG (stand-alone, with its title and axis titles), PNG and CSV.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { openWithPreset, serverAndBrowser } from "./harness.mjs";

const shared = serverAndBrowser();

// Clicks `locator` and returns the download's file name and bytes.
async function download(page, locator) {
  const [saved] = await Promise.all([page.waitForEvent("download"), locator.click()]);
  return { name: saved.suggestedFilename(), bytes: await readFile(await saved.path()) };
}

test("the config and the CPI chart can be saved", async () => {
  const { page, errors } = await openWithPreset(shared, "mdm-pascal-28sm", 28, { width: 1280, height: 900 });
  const config = await download(page, page.getByTestId("config-download"));
  assert.equal(config.name, "gpgpusim.config");
  assert.match(config.bytes.toString(), /-gpgpu_n_clusters 28\b/);

  const chart = page.getByTestId("cpi-chart");
  await chart.locator("svg.chart-drawing").waitFor({ timeout: 30_000 });
  const svg = await download(page, chart.getByTestId("export-svg"));
  assert.equal(svg.name, "cpi-chart.svg");
  const text = svg.bytes.toString();
  assert.match(text, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(text, /<title>CPI stacks<\/title>/);
  // The unit is an aside (a tspan a narrow drawing hides), so read the
  // drawing's text without its tags.
  const drawnText = text.replace(/<[^>]+>/g, "");
  assert.match(drawnText, /SM cycles per warp instruction \(CPI\)/, "the axis title with its unit");
  assert.doesNotMatch(text, /class="aside"[^>]*display:\s*none/, "the unit is shown in the saved file");
  assert.match(text, /style="[^"]*fill:/, "styles written on the elements");

  const png = await download(page, chart.getByTestId("export-png"));
  assert.equal(png.name, "cpi-chart.png");
  assert.deepEqual([...png.bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");

  const csv = await download(page, chart.getByTestId("export-csv"));
  assert.equal(csv.name, "cpi-chart.csv");
  const lines = csv.bytes.toString().trim().split("\n");
  const terms = ["base", "issue", "in-flight fill", "barrier", "stores at exit", "mshr", "noc", "dram", "LD/ST unit", "units", "L2 slice", "NoC bandwidth", "DRAM bandwidth", "slowest warp", "kernel start"];
  assert.equal(lines[0], ["bar", ...terms.map((t) => `${t} (SM cycles per warp instruction)`)].join(","));
  assert.equal(lines.length, 9, "a header and one line per model (eight)");
  assert.deepEqual(errors, []);
  await page.close();
});
