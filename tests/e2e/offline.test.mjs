// Offline use and a sub-path: dist/ served under SUB_PATH, the service worker
// (www/sw.js) takes control of the page, and with the network gone a reload
// still mounts the app and generates the default workload, and the kernel
// editor (its bundle cached with the shell) opens an example and compiles it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SCREENSHOTS, SUB_PATH, openPage, serverAndBrowser, textOf } from "./harness.mjs";

const shared = serverAndBrowser();

test("the app opens offline under a sub-path once its service worker controls it", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + SUB_PATH);
  await page.getByTestId("warp-instructions").waitFor({ timeout: 20_000 });
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, shared.server.origin + SUB_PATH, "the worker's scope is the page's directory");
  // The page that registered the worker is claimed by it; a reload is served through it.
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 10_000 });
  const cached = await page.evaluate(async () => {
    const names = await caches.keys();
    const cache = await caches.open(names.find((name) => name.startsWith("warplab-")));
    return (await cache.keys()).map((request) => new URL(request.url).pathname);
  });
  for (const file of ["index.html", "style.css", "worker.js", "editor.js", "warplab_app_bg.wasm", "warplab_worker_bg.wasm"]) {
    assert.ok(cached.includes(SUB_PATH + file), `${file} is cached: ${cached}`);
  }

  await page.context().setOffline(true);
  const before = shared.server.requested.length;
  await page.reload();
  const warpInstructions = page.getByTestId("warp-instructions");
  await warpInstructions.waitFor({ timeout: 20_000 });
  assert.equal(await textOf(page, "workload-label"), "vecadd");
  assert.ok(Number(await warpInstructions.textContent()) > 0);
  await page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
  await page.getByTestId("workload-select").selectOption("example:histogram");
  await page.locator(".cm-editor .cm-content").waitFor({ timeout: 20_000 });
  await page.getByTestId("sass-listing").waitFor({ timeout: 60_000 });
  assert.deepEqual(shared.server.requested.slice(before), [], "nothing reached the server while offline");
  await page.screenshot({ path: `${SCREENSHOTS}offline-sub-path.png` });
  assert.deepEqual(errors, []);
  await page.close();
});
