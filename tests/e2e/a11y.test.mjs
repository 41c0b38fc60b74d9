// Accessibility (issue 42): axe-core, run in the page on its main states
// (fresh, a run playing, a finished run, a handout's lab-step link, and a
// 390-px phone), finds no serious or critical violation (contrast, names of
// controls and images, roles, ARIA). axe-core is injected from
// node_modules, so the check needs no network.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { linkOf, openPage, serverAndBrowser } from "./harness.mjs";

const shared = serverAndBrowser();
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

// axe's serious and critical violations on the page as it is, one line each.
async function seriousViolations(page) {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => (await window.axe.run(document)).violations);
  return violations
    .filter((violation) => ["serious", "critical"].includes(violation.impact))
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length}×): ${v.help}: ${v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | ")}`);
}

async function opened(url, viewport = { width: 1280, height: 900 }) {
  const { page, errors } = await openPage(shared.browser, url);
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
  await page.close();
});

test("a handout's lab-step link and a phone: no serious or critical violation", async () => {
  const handout = readFileSync(new URL("../../docs/labs/2-warp-scheduling.md", import.meta.url), "utf8");
  const fragment = handout.match(/\((http:\/\/localhost:8080\/)(#x=[^)\s]+)\)/)[2];
  const { page, errors } = await opened(shared.server.origin + "/" + fragment);
  await page.getByTestId("step-banner").waitFor();
  await finished(page);
  assert.deepEqual(await seriousViolations(page), [], "a lab step");
  await page.close();
  const phone = await opened(shared.server.origin + "/", { width: 390, height: 844 });
  await finished(phone.page);
  assert.deepEqual(await seriousViolations(phone.page), [], "a phone");
  assert.deepEqual([...errors, ...phone.errors], []);
  await phone.page.close();
});
