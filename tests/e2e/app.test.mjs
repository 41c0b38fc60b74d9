// The app end to end: dist/ served at the root and under a sub-path; the
// worker generates the default vecadd workload and reads the bundled
// vectoradd trace, and the page shows their counts; the generator form drives
// the worker.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { launchChromium, openPage, serveDist, SCREENSHOTS, SUB_PATH, textOf, waitForText } from "./harness.mjs";

let server;
let browser;

before(async () => {
  server = await serveDist();
  browser = await launchChromium();
  await mkdir(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// A knob's exact value, as its number field shows it.
async function knob(page, name) {
  return Number(await page.getByTestId(`knob-${name}-value`).inputValue());
}

for (const [name, base] of [["root", "/"], ["sub-path", SUB_PATH]]) {
  test(`the generated default and the sample trace appear (served at ${name})`, async () => {
    server.requested.length = 0;
    const { page, errors } = await openPage(browser, server.origin + base);
    const warpInstructions = page.getByTestId("warp-instructions");
    await warpInstructions.waitFor({ timeout: 20_000 });
    // The default experiment: vecadd generated in the worker, nothing downloaded.
    assert.equal(await textOf(page, "workload-label"), "vecadd");
    assert.equal(await textOf(page, "generated-spec"), "vecadd");
    // One 15-instruction warp per 32 of the size × 1024 elements.
    assert.equal(await warpInstructions.textContent(), String(((await knob(page, "size")) * 1024 / 32) * 15));
    assert.deepEqual(server.requested.filter((path) => path.includes("sample-traces")), []);
    await page.screenshot({ path: `${SCREENSHOTS}app-${name}.png`, fullPage: true });
    await page.getByTestId("workload-select").selectOption("sample:vectoradd");
    await waitForText(page, "warp-instructions", "344");
    assert.equal(await page.getByTestId("thread-instructions").textContent(), "10516");
    assert.equal(await page.getByTestId("kernel-name").textContent(), "_Z6vecAddIfEvPT_S1_S1_i");
    assert.equal(await page.getByTestId("workload-label").textContent(), "vectoradd");
    assert.deepEqual(errors, []);
    // Relative URLs only: nothing outside the base was requested.
    const outside = server.requested.filter((path) => !path.startsWith(base));
    assert.deepEqual(outside, []);
    assert.ok(server.requested.some((path) => path.endsWith("/sample-traces/vectoradd-sm61-gtx1080-v4/kernel-1.traceg")));
    await page.close();
  });
}

test("a missing trace file is shown as an error, not a crash", async () => {
  // Ask for the sample while the server hides the kernel trace: the page must
  // show the worker's message naming the file.
  const { origin } = server;
  const context = await browser.newContext();
  await context.route("**/kernel-1.traceg", (route) => route.fulfill({ status: 404, body: "gone" }));
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(origin + "/");
  await page.getByTestId("warp-instructions").waitFor({ timeout: 20_000 });
  await page.getByTestId("workload-select").selectOption("sample:vectoradd");
  const error = page.getByTestId("error");
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.textContent(), /kernel-1\.traceg: HTTP 404/);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the generator form drives the worker: strided with gs = 32 touches a sector run per thread", async () => {
  const { page, errors } = await openPage(browser, server.origin + "/");
  await page.getByTestId("warp-instructions").waitFor({ timeout: 20_000 });
  const kernels = await page.getByTestId("workload-select").locator('optgroup[label="Generated kernels"] option').allTextContents();
  assert.ok(kernels.includes("vecadd (generated)") && kernels.includes("strided (generated)"), kernels);
  assert.equal(await page.getByTestId("workload-select").inputValue(), "generator:vecadd");

  await page.getByTestId("workload-select").selectOption("generator:strided");
  await waitForText(page, "workload-label", "strided");
  const [size, n] = [await knob(page, "size"), await knob(page, "n")];
  assert.equal(await knob(page, "gs"), 1);
  const threads = size * 1024;
  // gs = 1: the threads' runs of n floats overlap into one array of threads + n - 1 floats.
  assert.equal(await textOf(page, "sectors"), String(Math.ceil(((threads + n - 1) * 4) / 32)));

  // The gs slider is logarithmic over 1..1024: its middle is 32.
  await page.getByTestId("knob-gs").fill("500");
  assert.equal(await knob(page, "gs"), 32);
  assert.equal(await textOf(page, "generated-spec"), "strided:gs=32");
  // The status shows while the worker generates (a second or less).
  await page.getByTestId("status").filter({ hasText: /^Generating strided:gs=32 in the worker/ }).waitFor({ timeout: 5_000 });
  await waitForText(page, "workload-label", "strided:gs=32");
  // gs = 32: each thread's n floats start 128 bytes after its neighbour's, in a run of their own.
  assert.equal(await textOf(page, "sectors"), String(threads * Math.ceil((n * 4) / 32)));
  await page.getByTestId("workload").screenshot({ path: `${SCREENSHOTS}generator-strided.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a spec at or past a knob's limit is an error that keeps the form and the last summary", async () => {
  const { page, errors } = await openPage(browser, server.origin + "/");
  await page.getByTestId("warp-instructions").waitFor({ timeout: 20_000 });
  await page.getByTestId("workload-select").selectOption("generator:strided");
  await waitForText(page, "workload-label", "strided");
  const shown = await textOf(page, "warp-instructions");

  // The largest size: too much for the browser, refused before any work.
  await page.getByTestId("knob-size").focus();
  await page.keyboard.press("End");
  const max = await page.getByTestId("knob-size-value").getAttribute("max");
  assert.equal(String(await knob(page, "size")), max);
  const error = page.getByTestId("error");
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.textContent(), new RegExp(`^strided:size=${max}: about \\d+ warp instructions, .*warplab info --gen`));
  assert.equal(await textOf(page, "warp-instructions"), shown, "the last summary stays");
  assert.equal(await textOf(page, "generated-spec"), `strided:size=${max}`, "the form keeps the user's value");

  // Past the limit, typed: the generator's own message.
  await page.getByTestId("knob-size-value").fill("0");
  await waitForText(page, "error", `\`size\` = 0 is outside 1..=${max}`);
  assert.equal(await knob(page, "size"), 0);

  // And back to a valid size.
  await page.getByTestId("knob-size-value").fill("2");
  await waitForText(page, "workload-label", "strided:size=2");
  assert.equal(await page.getByTestId("error").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a workload sized for the GPU is generated again when the GPU changes", async () => {
  const { page, errors } = await openPage(browser, server.origin + "/");
  await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
  // pchase-l2 chases pointers over an array sized for the config's caches.
  await page.getByTestId("workload-select").selectOption("generator:pchase-l2");
  await waitForText(page, "workload-label", "pchase-l2");
  const sectors = await textOf(page, "sectors");
  await page.getByTestId("preset-select").selectOption("SM90_H100");
  await waitForText(page, "config-sms", "132");
  await page.waitForFunction(
    (before) => document.querySelector('[data-testid="sectors"]')?.textContent.trim() !== before,
    sectors,
    { timeout: 20_000 },
  );
  assert.equal(await textOf(page, "workload-label"), "pchase-l2");
  assert.ok(Number(await textOf(page, "sectors")) > Number(sectors), "H100's larger caches get a larger array");
  assert.deepEqual(errors, []);
  await page.close();
});
