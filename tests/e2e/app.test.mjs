// The app end to end: dist/ served at the root and under a sub-path; the
// worker reads the bundled vectoradd trace and the page shows its counts.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { launchChromium, openPage, serveDist, SCREENSHOTS, SUB_PATH } from "./harness.mjs";

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

for (const [name, base] of [["root", "/"], ["sub-path", SUB_PATH]]) {
  test(`the worker's trace summary appears (served at ${name})`, async () => {
    server.requested.length = 0;
    const { page, errors } = await openPage(browser, server.origin + base);
    const warpInstructions = page.getByTestId("warp-instructions");
    await warpInstructions.waitFor({ timeout: 20_000 });
    assert.equal(await warpInstructions.textContent(), "344");
    assert.equal(await page.getByTestId("thread-instructions").textContent(), "10516");
    assert.equal(await page.getByTestId("kernel-name").textContent(), "_Z6vecAddIfEvPT_S1_S1_i");
    assert.equal(await page.getByTestId("workload-label").textContent(), "vectoradd");
    await page.screenshot({ path: `${SCREENSHOTS}app-${name}.png`, fullPage: true });
    assert.deepEqual(errors, []);
    // Relative URLs only: nothing outside the base was requested.
    const outside = server.requested.filter((path) => !path.startsWith(base));
    assert.deepEqual(outside, []);
    assert.ok(server.requested.some((path) => path.endsWith("/sample-traces/vectoradd-sm61-gtx1080-v4/kernel-1.traceg")));
    await page.close();
  });
}

test("a missing trace file is shown as an error, not a crash", async () => {
  // Ask for the page while the server hides the kernel trace: the page must
  // show the worker's message naming the file.
  const { origin } = server;
  const context = await browser.newContext();
  await context.route("**/kernel-1.traceg", (route) => route.fulfill({ status: 404, body: "gone" }));
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(origin + "/");
  const error = page.getByTestId("error");
  await error.waitFor({ timeout: 20_000 });
  assert.match(await error.textContent(), /kernel-1\.traceg: HTTP 404/);
  assert.deepEqual(errors, []);
  await context.close();
});
