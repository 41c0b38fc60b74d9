// Accessibility (issue 42): axe-core, through `@axe-core/playwright`'s
// AxeBuilder as the issue asks, run on the page's main states (fresh, a run
// playing, a finished run, a handout's lab-step link, a 390-px phone, and the
// kernel editor with an example and with an error marked) finds no serious
// or critical violation (contrast, names of controls and images, roles,
// ARIA). AxeBuilder injects axe-core from node_modules, so the check needs
// no network; it drives playwright-core, its only peer dependency, and
// wants each page in a context the test made (it opens a page beside it). (It
// declares node >= 22.12 as its engine; it runs on Debian's node 20, and
// `npm ci` only warns.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AxeBuilder } from "@axe-core/playwright";
import { linkOf, openPage, serverAndBrowser } from "./harness.mjs";

const shared = serverAndBrowser();

// axe's serious and critical violations on the page as it is, one line each.
async function seriousViolations(page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => ["serious", "critical"].includes(violation.impact))
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.help}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`);
}

async function opened(url, viewport = { width: 1280, height: 900 }) {
  const { page, errors } = await openPage(shared.browser, url, { inContext: true });
  await page.setViewportSize(viewport);
  await page.getByTestId("config-sms").waitFor({ timeout: 30_000 });
  return { page, errors };
}

const finished = (page) => page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });

test("fresh, playing and finished: no serious or critical violation", async () => {
  const link = await linkOf({
    config: { preset: "mdm-pascal-28sm" },
    workload: { generated: { kernel: "strided", size: 28, knobs: [["gs", 32]] } },
    view: { watch_sm: 0, speed: 1000 },
  });
  const { page, errors } = await opened(shared.server.origin + "/" + link);
  assert.deepEqual(await seriousViolations(page), [], "fresh");
  await page.getByTestId("pause").waitFor({ timeout: 30_000 });
  await page.getByTestId("animation-canvas").waitFor();
  assert.deepEqual(await seriousViolations(page), [], "playing");
  await page.getByTestId("speed").selectOption({ label: "max" });
  await finished(page);
  await page.getByTestId("report-panel").waitFor();
  assert.deepEqual(await seriousViolations(page), [], "finished");
  assert.deepEqual(errors, []);
  await page.context().close();
});

test("a handout's lab-step link and a phone: no serious or critical violation", async () => {
  const handout = readFileSync(new URL("../../docs/labs/2-warp-scheduling.md", import.meta.url), "utf8");
  const fragment = handout.match(/\((http:\/\/localhost:8080\/)(#x=[^)\s]+)\)/)[2];
  const { page, errors } = await opened(shared.server.origin + "/" + fragment);
  await page.getByTestId("step-banner").waitFor();
  await finished(page);
  assert.deepEqual(await seriousViolations(page), [], "a lab step");
  await page.context().close();
  const phone = await opened(shared.server.origin + "/", { width: 390, height: 844 });
  await finished(phone.page);
  assert.deepEqual(await seriousViolations(phone.page), [], "a phone");
  assert.deepEqual([...errors, ...phone.errors], []);
  await phone.page.context().close();
});

test("the kernel editor, with an example and with an error marked: no serious or critical violation", async () => {
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/#example=vecadd", { inContext: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator(".cm-editor .cm-content").waitFor({ timeout: 60_000 });
  await page.getByTestId("sass-listing").waitFor({ timeout: 60_000 });
  await page.getByTestId("kernel-panel").scrollIntoViewIfNeeded();
  assert.deepEqual(await seriousViolations(page), [], "an example in the editor, with its SASS listing");
  // A typo, compiled with Ctrl+Enter: the compiler's message, the line marked.
  const example = readFileSync(new URL("../../crates/cuda/examples/vecadd.cu", import.meta.url), "utf8");
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(example.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + q[i];"));
  await page.keyboard.press("Control+Enter");
  await page.getByTestId("kernel-error").waitFor({ timeout: 60_000 });
  await page.locator(".cm-errorLine").waitFor();
  assert.deepEqual(await seriousViolations(page), [], "an error marked in the editor");
  assert.deepEqual(errors, []);
  await page.context().close();
});
