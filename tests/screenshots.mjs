// `cargo xtask screenshots`: the README's two pictures, taken from the page
// as it is now, in a 1280 × 800 window:
// - docs/screenshot.png: the default experiment once its three IPCs show;
// - docs/screenshot-run.png: strided with gs = 32 on the MDM paper's 28-SM
//   Pascal GPU, paused part-way through its run, the animation in view.
// Not a test: run it after changing the page, and commit the pictures.
import { launchChromium, openPage, serveDist, waitForText } from "./e2e/harness.mjs";

const DOCS = new URL("../docs/", import.meta.url).pathname;
export const WINDOW = { width: 1280, height: 800 };

// The default experiment once its three IPCs show, written to `path`; returns the page's errors.
export async function defaultExperiment(browser, origin, path) {
  const { page, errors } = await openPage(browser, origin + "/");
  await page.setViewportSize(WINDOW);
  await page.waitForFunction(
    () => ["simulated", "analytical", "scale"].every((kind) =>
      document.querySelector(`[data-testid="ipc-${kind}-value"]`)?.hasAttribute("data-value")
    ),
    null,
    { polling: 250, timeout: 300_000 },
  );
  await page.screenshot({ path });
  await page.close();
  return errors;
}

// Strided gs = 32 on mdm-pascal-28sm paused a third of the way, the
// animation in view, written to `path`; returns the page's errors.
export async function pausedRun(browser, origin, path) {
  const { page, errors } = await openPage(browser, origin + "/");
  await page.setViewportSize(WINDOW);
  await page.getByTestId("config-sms").waitFor({ timeout: 30_000 });
  await page.getByTestId("preset-select").selectOption("mdm-pascal-28sm");
  await waitForText(page, "config-sms", "28");
  await page.getByTestId("workload-select").selectOption("generator:strided");
  await waitForText(page, "workload-label", "strided");
  await page.getByTestId("knob-gs").fill("500"); // the log slider's middle: 32
  await waitForText(page, "workload-label", "strided:gs=32");
  await page.getByTestId("run").click();
  // Part-way: a third of the warp instructions issued, the MSHRs in use.
  await page.waitForFunction(
    () => {
      const bar = document.querySelector('[data-testid="run-progress"]');
      const mshrs = document.querySelector('[data-testid="animation-mshrs"]');
      return bar && bar.value / bar.max >= 0.33 && Number(mshrs?.textContent.replaceAll(",", "")) > 0;
    },
    null,
    { polling: 100, timeout: 120_000 },
  );
  await page.getByTestId("pause").click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="run-status"]')?.textContent.startsWith("paused"),
    null,
    { timeout: 30_000 },
  );
  // The animation's panel at the top, below the toolbar that stays in view.
  await page.getByTestId("animation-panel").evaluate((panel) => {
    panel.scrollIntoView({ block: "start" });
    window.scrollBy(0, -(document.querySelector(".toolbar")?.offsetHeight ?? 0) - 8);
  });
  await page.screenshot({ path });
  await page.close();
  return errors;
}

// Run as a script (`cargo xtask screenshots`): the pictures go to docs/.
if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await serveDist();
  const browser = await launchChromium();
  try {
    const errors = [
      ...(await defaultExperiment(browser, server.origin, `${DOCS}screenshot.png`)),
      ...(await pausedRun(browser, server.origin, `${DOCS}screenshot-run.png`)),
    ];
    if (errors.length > 0) {
      throw new Error(`the page reported errors:\n${errors.join("\n")}`);
    }
    console.log(`wrote ${DOCS}screenshot.png and ${DOCS}screenshot-run.png`);
  } finally {
    await browser.close();
    await server.close();
  }
}
