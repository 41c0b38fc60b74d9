// Real inputs in the browser: the bundled presets and samples, the user's
// trace and config files through the pickers and by drag and drop, parsed in
// the worker; a parse error names file and line and keeps what was shown.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { dropFiles, launchChromium, openPage, serveDist, textOf, waitForText } from "./harness.mjs";

const REPO = new URL("../../", import.meta.url).pathname;
const TRACES = `${REPO}crates/trace/test_data/`;

let server;
let browser;

before(async () => {
  server = await serveDist();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// A page with the default workload and preset loaded.
async function freshPage() {
  const opened = await openPage(browser, server.origin + "/");
  await opened.page.getByTestId("warp-instructions").waitFor({ timeout: 20_000 });
  await opened.page.getByTestId("config-sms").waitFor({ timeout: 20_000 });
  return opened;
}

// A fresh page showing the bundled vectoradd trace.
async function vectoraddPage() {
  const opened = await freshPage();
  await opened.page.getByTestId("workload-select").selectOption("sample:vectoradd");
  await waitForText(opened.page, "workload-label", "vectoradd");
  return opened;
}

test("the bundled presets are listed and switch the config view", async () => {
  const { page, errors } = await freshPage();
  const presets = await page.getByTestId("preset-select").locator("option:not([disabled])").allTextContents();
  assert.deepEqual(presets.map((p) => p.trim()), [
    "SM7_QV100", "SM86_RTX3070", "SM80_A100", "SM90_H100", "mdm-pascal-28sm", "scalemodel-128sm", "chiplet-1024sm",
  ]);
  assert.equal(await textOf(page, "config-sms"), "80");
  assert.equal(await page.getByTestId("preset-select").inputValue(), "SM7_QV100");
  await page.getByTestId("preset-select").selectOption("SM90_H100");
  await waitForText(page, "config-sms", "132");
  assert.equal(await textOf(page, "config-label"), "preset SM90_H100");
  const unknown = await page.getByTestId("unknown-options").textContent();
  assert.match(unknown, /-gpgpu_lrc_enabled/);
  assert.doesNotMatch(unknown, /-gpgpu_n_chiplet_partition/);
  // H100 is two chiplets: the chiplet options are modelled, three of them interpreted.
  const chiplets = page.getByTestId("config-group").filter({ hasText: "Chiplets" });
  assert.match(await chiplets.textContent(), /2 \(66 SMs, 20 channels, 40 L2 slices each\)/);
  assert.match(await chiplets.textContent(), /256 packets per L2 slice \(10240 a link direction\) \(interpreted\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("trace files open through the picker, plain and xz", async () => {
  const { page, errors } = await freshPage();
  assert.equal(await page.getByTestId("trace-files").getAttribute("webkitdirectory"), null);
  const matrixmul = `${TRACES}matrixmul-32x32-sm61-gtx1080-v4/`;
  await page.getByTestId("trace-files").setInputFiles([`${matrixmul}kernelslist.g`, `${matrixmul}kernel-1.traceg`]);
  await waitForText(page, "warp-instructions", "4416");
  assert.equal(await textOf(page, "thread-instructions"), "139264");
  const xz = `${TRACES}vectorAdd-sm80-a100-v5-xz/`;
  await page.getByTestId("trace-files").setInputFiles([`${xz}kernelslist.g`, `${xz}kernel-1.traceg.xz`]);
  await waitForText(page, "warp-instructions", "26601");
  assert.equal(await textOf(page, "thread-instructions"), "801056");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a trace folder opens through the folder picker", async () => {
  const { page, errors } = await freshPage();
  await page.getByTestId("trace-folder").setInputFiles(`${TRACES}rodinia-bptree-128-1000-sm90-h100pcie-v5-xz`);
  await waitForText(page, "warp-instructions", String(2 * 21832));
  assert.equal(await textOf(page, "workload-label"), "rodinia-bptree-128-1000-sm90-h100pcie-v5-xz");
  assert.match(await textOf(page, "diagnostics"), /binary version 90 has no opcode table of its own/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a malformed trace shows file, line and field and keeps the previous workload", async () => {
  const { page, errors } = await vectoraddPage();
  await page.getByTestId("trace-files").setInputFiles(`${TRACES}malformed/bad-mask-hex.traceg`);
  const error = page.getByTestId("error");
  await error.waitFor({ timeout: 20_000 });
  assert.equal(
    (await error.textContent()).trim(),
    "bad-mask-hex.traceg:13: mask: expected up to 8 hex digits, found `ffffzzff`",
  );
  assert.equal(await textOf(page, "warp-instructions"), "344", "the sample is still shown");
  assert.equal(await textOf(page, "workload-label"), "vectoradd");
  assert.deepEqual(errors, []);
  await page.close();
});

test("config files open through the picker; a bad one keeps the previous config", async () => {
  const { page, errors } = await freshPage();
  const dir = `${REPO}configs/SM86_RTX3070/`;
  await page.getByTestId("config-files").setInputFiles([
    `${dir}trace.config`, `${dir}gpgpusim.config`, `${dir}config_ampere_islip.icnt`,
  ]);
  await waitForText(page, "config-sms", "46");
  assert.equal(await page.getByTestId("preset-select").inputValue(), "");
  const bad = `${REPO}crates/config/test_data/malformed/bad_cache_field.config`;
  const expected = (await readFile(bad.replace(/\.config$/, ".expected"), "utf8")).trim();
  await page.getByTestId("config-files").setInputFiles(bad);
  const error = page.getByTestId("config").getByTestId("error");
  await error.waitFor({ timeout: 20_000 });
  assert.equal((await error.textContent()).trim(), expected);
  assert.equal(await textOf(page, "config-sms"), "46", "the previous config is still shown");
  assert.deepEqual(errors, []);
  await page.close();
});

test("files dropped on the page open like picked ones", async () => {
  const { page, errors } = await freshPage();
  const dir = `${TRACES}vectorAdd-sm80-a100-v5-xz/`;
  await dropFiles(page, [
    `${dir}kernelslist.g`, `${dir}kernel-1.traceg.xz`, `${REPO}configs/mdm-pascal-28sm/gpgpusim.config`,
  ]);
  await waitForText(page, "warp-instructions", "26601");
  await waitForText(page, "config-sms", "28");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a config file whose -inter_config_file is missing asks for it and keeps the previous config", async () => {
  const { page, errors } = await freshPage();
  const smsBefore = await textOf(page, "config-sms");
  const dir = `${REPO}crates/config/test_data/gtx1080/`;
  await page.getByTestId("config-files").setInputFiles(`${dir}gpgpusim.config`);
  const asking = page.getByTestId("config-needs-file");
  await asking.waitFor({ timeout: 20_000 });
  assert.match(await asking.textContent(), /config_fermi_islip\.icnt/);
  assert.match(await page.getByTestId("config").getByTestId("error").textContent(), /needs the \.icnt file/);
  assert.equal(await textOf(page, "config-sms"), smsBefore, "the previous config is still shown");
  assert.equal(await page.getByTestId("preset-select").inputValue(), "SM7_QV100", "and is still the experiment's");
  for (const [name, viewport] of [
    ["phone", { width: 390, height: 844 }],
    ["laptop", { width: 1280, height: 800 }],
    ["wide", { width: 1920, height: 1080 }],
  ]) {
    await page.setViewportSize(viewport);
    await asking.evaluate((box) => box.scrollIntoView({ block: "center" }));
    const button = await page.getByTestId("config-needed-file").locator("..").boundingBox();
    assert.ok(button.x >= 0 && button.x + button.width <= viewport.width, `the file button fits at ${name}`);
    await page.screenshot({ path: new URL(`../screenshots/config-needs-icnt-${name}.png`, import.meta.url).pathname });
  }
  await page.getByTestId("config-needed-file").setInputFiles(`${dir}config_fermi_islip.icnt`);
  await waitForText(page, "config-sms", "20");
  assert.equal(await asking.count(), 0, "nothing more is asked");
  assert.equal(await page.getByTestId("config").getByTestId("error").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
