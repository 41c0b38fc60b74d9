// Issue 41, the page: a CUDA C kernel written in the editor. An example opens
// from a link; an edit with a typo is marked at its line and column with the
// compiler's message; fixed, it compiles and runs in the worker with the main
// thread free, the three IPCs come (the scale model's too), each source line
// and SASS instruction shows what issued and stalled there (the stalls said
// to be sampled), hovering links the two; the copied link opens the same
// source and results in a new page, where the animation shows and sampling
// runs it again. The other error classes (a missing `;`, a type mismatch, an
// unsupported construct, a shared array too large, faults, launches whose
// shared memory or registers the GPU cannot hold, a budget run out) come back located exactly as the CLI prints
// them. Every shipped example opens from the menu and from its link.
// Screenshots of the editor with its listing and figures at 1280 and 390 px.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  assertMainThreadFree,
  CLI,
  dataValue,
  experimentIn,
  linkOf,
  runCli,
  SCREENSHOTS,
  serverAndBrowser,
  textOf,
  watchLongTasks,
} from "./harness.mjs";

const shared = serverAndBrowser();

const EXAMPLE = await readFile(new URL("../../crates/cuda/examples/vecadd.cu", import.meta.url), "utf8");
// A smaller problem, so the browser simulates it in seconds.
const FIXED = EXAMPLE.replace("#define N (1 << 20)", "#define N (1 << 16)");
// Line 8 is `        c[i] = a[i] + b[i];`: `q` is at column 23.
const TYPO = FIXED.replace("c[i] = a[i] + b[i];", "c[i] = a[i] + q[i];");

// A page in a context that may use the clipboard, collecting errors.
async function openKernelPage(url) {
  const context = await shared.browser.newContext({
    viewport: { width: 1280, height: 900 },
    permissions: ["clipboard-read", "clipboard-write"],
  });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(url);
  await page.locator(".cm-editor .cm-content").waitFor({ timeout: 60_000 });
  return { page, errors, close: () => context.close() };
}

// Replaces the editor's whole text, as a paste would.
async function replaceText(page, text) {
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
}

// The editor's text, line by line as CodeMirror draws it. It draws only the
// lines near the window's view, so this brings the editor into the window and
// scrolls through it, keeping each line by its place, then back to its top.
const editorText = (page) =>
  page.locator(".cm-scroller").evaluate(async (scroller) => {
    const frame = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    scroller.scrollIntoView({ block: "start" });
    const lines = new Map();
    for (let top = 0; ; top += scroller.clientHeight / 2) {
      scroller.scrollTop = top;
      await frame();
      for (const line of scroller.querySelectorAll(".cm-line")) lines.set(line.offsetTop, line.textContent);
      if (top >= scroller.scrollHeight - scroller.clientHeight) break;
    }
    scroller.scrollTop = 0;
    await frame();
    return [...lines].sort(([a], [b]) => a - b).map(([, text]) => text).join("\n");
  });

// Waits for the three IPCs: the simulation, the headline model, and the scale
// model's prediction from its two scale models of the kernel.
async function threeIpcs(page) {
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 240_000 });
  await page.locator('[data-testid="ipc-analytical-value"][data-value]').waitFor({ timeout: 120_000 });
  await page.locator('[data-testid="ipc-scale-value"][data-value], [data-testid="ipc-scale-none"]').first().waitFor({ timeout: 300_000 });
  const none = page.getByTestId("ipc-scale-none");
  assert.equal(await none.count(), 0, `no scale-model figure: ${(await none.count()) && (await none.textContent())}`);
  return {
    simulated: await dataValue(page, "ipc-simulated-value"),
    analytical: await dataValue(page, "ipc-analytical-value"),
    scale: await dataValue(page, "ipc-scale-value"),
  };
}

// The per-PC sampling interval (`SAMPLE_INTERVAL` in crates/sim/src/per_pc.rs),
// and what the page says of it wherever it shows stall figures.
const SAMPLE_INTERVAL = 64;
const SAMPLED = `Stall warp-cycles are a sampled estimate: every ${SAMPLE_INTERVAL} cycles each resident warp's state is charged as ${SAMPLE_INTERVAL} warp-cycles to the instruction it waits at (issued counts and bank-conflict cycles are exact).`;

// Line 8's gutter figure: warp instructions issued and warp-cycles stalled there.
async function lineFigure(page, line) {
  const figure = page.locator(`.cm-figure[data-line="${line}"]`);
  await figure.waitFor({ timeout: 60_000 });
  return { issued: Number(await figure.getAttribute("data-issued")), stalled: Number(await figure.getAttribute("data-stalled")), title: await figure.getAttribute("title") };
}

test("edit a kernel, see its error marked, fix it, run it, share it", async () => {
  const first = await openKernelPage(`${shared.server.origin}/#example=vecadd`);
  const { page } = first;
  assert.equal(await textOf(page, "kernel-file"), "vecadd.cu");
  assert.equal(await editorText(page), EXAMPLE, "the example as shipped");
  await page.getByTestId("sass-listing").waitFor({ timeout: 60_000 });

  // A typo: Ctrl+Enter compiles, and the error is marked where clang puts it.
  await replaceText(page, TYPO);
  await page.keyboard.press("Control+Enter");
  const message = "vecadd.cu:8:23: error: use of undeclared identifier 'q'";
  await page.getByTestId("kernel-error").waitFor({ timeout: 60_000 });
  assert.equal(await textOf(page, "kernel-error"), message);
  const area = await page.locator('[data-testid="workload"] [data-testid="error"]').textContent();
  assert.equal(area.trim(), message, "the page's error area");
  const marked = page.locator(".cm-errorLine");
  assert.equal(await marked.getAttribute("data-line"), "8");
  assert.equal(await page.locator(".cm-lintRange-error").textContent(), "q", "the mark covers the name");
  assert.equal(await editorText(page), TYPO, "the user's text stays");
  await page.getByTestId("kernel-panel").screenshot({ path: `${SCREENSHOTS}kernel-error.png` });

  // Fixed and run with the button: the workers compile and simulate it while
  // the main thread stays free.
  await watchLongTasks(page);
  await replaceText(page, FIXED);
  await page.getByTestId("compile-run").click();
  const ipcs = await threeIpcs(page);
  await assertMainThreadFree(page, "while the kernel compiled and ran");
  assert.ok(ipcs.simulated > 0 && ipcs.analytical > 0 && ipcs.scale > 0, JSON.stringify(ipcs));
  const figure = await lineFigure(page, 8);
  assert.ok(figure.issued > 0 && figure.stalled > 0, JSON.stringify(figure));
  // Stalls are sampled (crates/sim/src/per_pc.rs): whole samples of 64 warp-cycles, and the page says so.
  assert.equal(figure.stalled % SAMPLE_INTERVAL, 0, "stalls come in whole samples");
  assert.match(
    figure.title,
    /^Line 8: \d+ warp instructions issued; warps waited here \d+ warp-cycles: memory \d+, dependence \d+, barrier \d+, structural \d+; shared-memory bank conflicts held the LD\/ST unit 0 cycles\. /,
  );
  assert.ok(figure.title.endsWith(`. ${SAMPLED}`), figure.title);
  assert.ok((await textOf(page, "figures-legend")).endsWith(`. ${SAMPLED}`), "the gutter's legend says so");
  const listingNote = page.getByTestId("sass-sampling");
  assert.equal(
    await listingNote.textContent(),
    `issued and bank are exact counts; mem, dep, bar and struct are estimates from warp states sampled every ${SAMPLE_INTERVAL} cycles.`,
  );
  assert.equal(await listingNote.getAttribute("title"), SAMPLED, "the listing says so");
  // The listing's rows of line 8 add up to the line's figure, and waited on memory.
  const rows = page.locator('.sass-row[data-line="8"]');
  const issued = await rows.locator('[data-testid="sass-issued"]').evaluateAll((cells) => cells.reduce((sum, c) => sum + Number(c.dataset.value), 0));
  assert.equal(issued, figure.issued);
  const memory = await rows.locator('[data-testid="sass-memory"]').evaluateAll((cells) => cells.reduce((sum, c) => sum + Number(c.dataset.value), 0));
  assert.ok(memory > 0, "the loads of line 8 wait on memory");

  // Hovering an instruction highlights its line, and a line its instructions.
  await rows.first().hover();
  await page.locator('.cm-linked[data-line="8"]').waitFor({ timeout: 5_000 });
  await page.locator('.cm-line:has-text("int i = blockIdx.x")').hover();
  await page.waitForFunction(() => {
    const linked = [...document.querySelectorAll(".sass-row.linked")];
    return linked.length > 0 && linked.every((row) => row.dataset.line === "6");
  }, null, { timeout: 5_000 });
  await shots(page, "kernel-editor");

  // The copied link carries the source; a new page opens the same source and results.
  await page.getByTestId("copy-link").click();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal((await experimentIn(link)).workload.kernel.source, FIXED, "warplab experiment show reads the source");
  const second = await openKernelPage(link);
  assert.equal(await editorText(second.page), FIXED);
  const again = await threeIpcs(second.page);
  assert.equal(again.simulated, ipcs.simulated, "the same simulated IPC");
  assert.equal(again.analytical, ipcs.analytical, "the same analytical IPC");
  assert.equal(again.scale, ipcs.scale, "the same scale-model IPC");
  assert.deepEqual(await lineFigure(second.page, 8), figure, "the same figures on line 8");
  // Everything else works on an authored kernel: the animation, and sampling.
  await second.page.getByTestId("animation-panel").waitFor({ timeout: 10_000 });
  await second.page.getByTestId("sampling-select").selectOption("photon");
  await second.page.waitForFunction(() => /^Simulated \(Photon sampling\)/.test(document.querySelector('[data-testid="ipc-simulated"]')?.textContent ?? ""), null, { timeout: 120_000 });
  await second.page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  assert.deepEqual(first.errors, []);
  assert.deepEqual(second.errors, []);
  await second.close();
  await first.close();
});

// The editor with its listing at a laptop's and a phone's width; the body never scrolls sideways.
async function shots(page, name) {
  const panel = page.getByTestId("kernel-panel");
  // Hovering a long line may have scrolled the editor sideways.
  await page.locator(".cm-scroller").evaluate((e) => (e.scrollLeft = 0));
  await panel.screenshot({ path: `${SCREENSHOTS}${name}.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  await panel.screenshot({ path: `${SCREENSHOTS}${name}-phone.png` });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page fits a phone's width: ${overflow} px too wide`);
  await page.setViewportSize({ width: 1280, height: 900 });
}

// The error a kernel file stops with when a link opens it.
async function errorOf(name, source) {
  const link = await linkOf({ config: { preset: "SM7_QV100" }, workload: { kernel: { name, source } } });
  const { page, errors, close } = await openKernelPage(`${shared.server.origin}/${link}`);
  await page.getByTestId("kernel-error").waitFor({ timeout: 120_000 });
  const shown = { message: await textOf(page, "kernel-error"), line: await page.locator(".cm-errorLine").getAttribute("data-line") };
  assert.deepEqual(errors, []);
  await close();
  return shown;
}

test("a fault and a budget run out stop at their source line, as the CLI prints them", async () => {
  const oob =
    "__global__ void k(const float* a, float* b, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    b[i] = a[i + 1];\n}\nvoid host() {\n    float* a = device_array<float>(64);\n    float* b = device_array<float>(64);\n    k<<<2, 32>>>(a, b, 64);\n}\n";
  assert.deepEqual(await errorOf("k.cu", oob), {
    message: "k.cu:3:12: error: invalid __global__ read of size 4 bytes by thread (31,0,0) in block (1,0,0): index 64 is out of bounds for 'a' (64 elements)",
    line: "3",
  });
  const spin = "__global__ void spin(int* a) {\n    int x = 0;\n    while (x >= 0) {\n        x = x + 1 - 1;\n    }\n    a[0] = x;\n}\nvoid host() {\n    int* a = device_array<int>(1);\n    spin<<<1, 32>>>(a);\n}\n";
  assert.deepEqual(await errorOf("spin.cu", spin), {
    message:
      "spin.cu:3:12: error: kernel 'spin' ran past its budget of 20000000 warp instructions in one launch (the page's limit per launch; natively `warplab run --kernel spin.cu` allows 100000000, and `warplab kernel check spin.cu --max-warp-insts N` any N)",
    line: "3",
  });
});

// The first line `warplab kernel check` prints for the file `name` holding
// `source` on SM7_QV100, the page's GPU in `errorOf`'s links.
async function cliError(name, source) {
  const dir = await mkdtemp(join(tmpdir(), "warplab-e2e-"));
  await writeFile(join(dir, name), source);
  const failed = await runCli(CLI, ["kernel", "check", name], { cwd: dir }).then(
    () => assert.fail(`${name} ran`),
    (error) => error,
  );
  await rm(dir, { recursive: true });
  assert.equal(failed.code, 2, failed.stderr);
  return failed.stderr.split("\n")[0];
}

// A kernel `k(float* a, int n)` with `body` from line 2, launched by a host
// whose launch is `launch`.
const kernelWith = (body, launch = "k<<<2, 32>>>(a, 64);") =>
  `__global__ void k(float* a, int n) {\n${body}\n}\nvoid host() {\n    float* a = device_array<float>(64);\n    ${launch}\n}\n`;

// A kernel `wide` that loads `n` values before adding any, so all `n` are
// live at once and each thread needs more than `n` registers, launched as
// one block of `threads` on line n + 6, past the editor's height: the
// editor scrolls to the error to mark it.
function manyLiveValues(n, threads) {
  const loads = Array.from({ length: n }, (_, i) => `    float v${i} = a[${i}];\n`).join("");
  const sum = Array.from({ length: n - 1 }, (_, i) => ` s += v${i + 1};`).join("");
  const kernel = `__global__ void wide(float* a) {\n${loads}    float s = v0;${sum} a[threadIdx.x] = s;\n}\n`;
  return `${kernel}void host() {\n    float* a = device_array<float>(${threads});\n    wide<<<1, ${threads}>>>(a);\n}\n`;
}

test("every other error class is marked at its line with the CLI's message", async () => {
  const index = "    int i = blockIdx.x * blockDim.x + threadIdx.x;";
  const cases = [
    // clang's place for a missing `;`: just after the statement's last token, not at the next line's.
    ["semi.cu", kernelWith(`${index}\n    if (i < n) a[i] = 2.0f * a[i]`), "semi.cu:3:34: error: expected ';' after expression", "3"],
    [
      "type.cu",
      kernelWith(`${index}\n    int* p = a;\n    p[i] = n;`),
      "type.cu:3:14: error: cannot initialize a variable of type 'int *' with an lvalue of type 'float *'",
      "3",
    ],
    ["switch.cu", kernelWith(`${index}\n    switch (i) {\n    }\n    a[i] = n;`), "switch.cu:3:5: error: 'switch' is not supported; use 'if' and 'else'", "3"],
    [
      "shared.cu",
      kernelWith(`    __shared__ float tile[256][128];\n${index}\n    tile[0][threadIdx.x] = a[i];\n    a[i] = tile[0][threadIdx.x];`),
      "shared.cu:2:22: error: the '__shared__' arrays of kernel 'k' need 131072 bytes, more than the 65536 bytes of shared memory per block",
      "2",
    ],
    [
      "div.cu",
      "__global__ void k(int* a, int d) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    a[i] = 100 / (d - i);\n}\nvoid host() {\n    int* a = device_array<int>(64);\n    k<<<2, 32>>>(a, 40);\n}\n",
      "div.cu:3:12: error: integer division by zero by thread (8,0,0) in block (1,0,0)",
      "3",
    ],
    [
      "launch.cu",
      kernelWith(`${index}\n    a[i] = n;`, "k<<<2, 32, 131072>>>(a, 64);"),
      "launch.cu:7:5: error: too many resources requested for launch: 'k' needs 131072 bytes of shared memory per block, more than the GPU's 65536",
      "7",
    ],
    [
      "regs.cu",
      manyLiveValues(80, 1024),
      "regs.cu:86:5: error: too many resources requested for launch: 'wide' needs 86016 registers per block (82 per thread), more than the GPU's 65536",
      "86",
    ],
  ];
  for (const [name, source, message, line] of cases) {
    assert.equal(await cliError(name, source), message, `the CLI on ${name}`);
    assert.deepEqual(await errorOf(name, source), { message, line }, `the page on ${name}`);
  }
});

test("an example opens from the toolbar's workload menu with its listing", async () => {
  const { page, errors, close } = await openKernelPageFromMenu("transpose");
  assert.equal(await textOf(page, "kernel-file"), "transpose.cu");
  const source = await readFile(new URL("../../crates/cuda/examples/transpose.cu", import.meta.url), "utf8");
  await page.getByTestId("sass-listing").waitFor({ timeout: 60_000 });
  // The editor draws only the lines in view; the address carries the whole text.
  await page.waitForFunction(() => location.hash.startsWith("#x=6"));
  assert.equal((await experimentIn(page.url())).workload.kernel.source, source);
  const kernels = await page.getByTestId("sass-kernel").evaluateAll((hs) => hs.map((h) => h.firstChild.textContent));
  assert.deepEqual(kernels, ["transpose_naive", "transpose_tiled", "transpose_padded"]);
  assert.equal(await page.getByTestId("workload-select").inputValue(), "example:transpose", "the menu shows the example");
  // Tab indents the line by four spaces, and stays in the editor.
  await page.locator(".cm-line").first().click();
  await page.keyboard.press("Home");
  await page.keyboard.press("Tab");
  assert.equal(await page.locator(".cm-line").first().textContent(), "    " + source.split("\n")[0]);
  assert.ok(await page.locator(".cm-content").evaluate((e) => e.contains(document.activeElement)), "focus stays");
  assert.deepEqual(errors, []);
  await close();
});

// The default page, then an example chosen from the toolbar's menu.
async function openKernelPageFromMenu(name) {
  const page = await shared.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  await page.goto(`${shared.server.origin}/`);
  await page.getByTestId("workload-select").selectOption(`example:${name}`);
  await page.locator(".cm-editor .cm-content").waitFor({ timeout: 60_000 });
  return { page, errors, close: () => page.close() };
}

// Every example shipped in crates/cuda/examples/, by its file's name.
const EXAMPLES = new URL("../../crates/cuda/examples/", import.meta.url);
const exampleNames = (await readdir(EXAMPLES)).filter((file) => file.endsWith(".cu")).map((file) => file.slice(0, -3));

test("every example opens from the menu and from its link, compiled and run as the CLI does", async () => {
  assert.ok(exampleNames.length >= 5, `the examples: ${exampleNames}`);
  for (const name of exampleNames.sort()) {
    const source = await readFile(new URL(`${name}.cu`, EXAMPLES), "utf8");
    const { stdout } = await runCli(CLI, ["kernel", "check", `${name}.cu`, "--json"], { cwd: EXAMPLES.pathname });
    const checked = JSON.parse(stdout);
    const fromMenu = await openKernelPageFromMenu(name);
    await assertOpened(fromMenu.page, name, source, checked);
    await fromMenu.close();
    const fromLink = await openKernelPage(`${shared.server.origin}/#example=${name}`);
    await assertOpened(fromLink.page, name, source, checked);
    assert.deepEqual([fromMenu.errors, fromLink.errors], [[], []], name);
    await fromLink.close();
  }
});

test("a 10-M-instruction example compiles and runs in the workers with the main thread free", async () => {
  const { page, errors, close } = await openKernelPage(`${shared.server.origin}/#example=matmul`);
  await page.getByTestId("sass-listing").waitFor({ timeout: 120_000 });
  await page.locator('[data-testid="compile-run"]:not([disabled])').waitFor({ timeout: 120_000 });
  await watchLongTasks(page);
  await page.getByTestId("compile-run").click();
  // Compiling matmul.cu and running its 10.3 M warp instructions takes the workers seconds.
  await page.locator('[data-testid="compile-run"][disabled]').waitFor({ timeout: 10_000 });
  assert.equal(await textOf(page, "compile-run"), "Compiling…");
  await page.locator('[data-testid="compile-run"]:not([disabled])').waitFor({ timeout: 120_000 });
  await assertMainThreadFree(page, "while matmul.cu compiled and ran functionally");
  assert.deepEqual(errors, []);
  await close();
});

// `page` holds the example `name` with its `source`: the editor shows it, the
// address carries it, and the workers compiled it to the kernels and ran it to
// the warp instructions `warplab kernel check --json` reports (`checked`).
async function assertOpened(page, name, source, checked) {
  assert.equal(await textOf(page, "kernel-file"), `${name}.cu`);
  assert.equal(await page.getByTestId("workload-select").inputValue(), `example:${name}`, `the menu shows ${name}`);
  // The listing comes once the workers have compiled the file and run it
  // functionally: for matmul's and reduction's 10-11 M warp instructions,
  // seconds, or a minute and more on a busy 2-core machine.
  await page.getByTestId("sass-listing").waitFor({ timeout: 240_000 });
  const kernels = await page.getByTestId("sass-kernel").evaluateAll((hs) => hs.map((h) => h.firstChild.textContent));
  assert.deepEqual(kernels, checked.kernels.map((kernel) => kernel.name), `${name}'s kernels`);
  await page.waitForFunction(
    (expected) => document.querySelector('[data-testid="warp-instructions"]')?.textContent.trim() === expected,
    String(checked.warp_insts),
    { timeout: 120_000 },
  );
  await page.waitForFunction(() => location.hash.startsWith("#x="));
  assert.equal((await experimentIn(page.url())).workload.kernel.source, source, `the address carries ${name}`);
  assert.equal(await editorText(page), source, `the editor holds ${name}`);
}

test("an Accel-Sim trace's run lists its instructions by PC with their stalls", async () => {
  const page = await shared.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  await page.goto(`${shared.server.origin}/`);
  await page.getByTestId("workload-select").selectOption("sample:vectoradd");
  await page.getByTestId("per-pc-panel").waitFor({ timeout: 180_000 });
  const rows = page.locator('[data-testid="per-pc-launch"] .sass-row');
  const issued = await rows.locator('[data-testid="sass-issued"]').evaluateAll((cells) => cells.reduce((sum, c) => sum + Number(c.dataset.value), 0));
  const pcs = Number((await page.locator('[data-testid="per-pc-launch"] summary').textContent()).match(/\((\d+) PCs\)/)[1]);
  assert.equal(await rows.count(), Math.min(pcs, 20), "the 20 PCs warps waited at most");
  const all = Number(await textOf(page, "warp-instructions"));
  assert.ok(issued > 0 && issued <= all, `${issued} of ${all} warp instructions issued at the PCs listed`);
  const memory = await rows.locator('[data-testid="sass-memory"]').evaluateAll((cells) => cells.reduce((sum, c) => sum + Number(c.dataset.value), 0));
  assert.ok(memory > 0, "vectoradd's warps wait on memory somewhere");
  assert.equal(await page.locator(".kernel-panel").count(), 0, "no editor for a trace");
  await page.getByTestId("per-pc-panel").screenshot({ path: `${SCREENSHOTS}per-pc-trace.png` });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a source too long for a link says so and the experiment file carries it", async () => {
  const { page, errors, close } = await openKernelPageFromMenu("vecadd");
  await page.getByTestId("sass-listing").waitFor({ timeout: 60_000 });
  // Text that does not compress: 9,000 characters from a seeded generator.
  let x = 1;
  let noise = "// ";
  for (let i = 0; i < 9000; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    noise += String.fromCharCode(33 + ((x >>> 16) % 90));
  }
  await replaceText(page, noise);
  await page.getByTestId("link-too-long").waitFor({ timeout: 10_000 });
  assert.match(await textOf(page, "link-too-long"), /^The kernel's source makes a link of \d+ bytes, more than the 8192 a link may have: use Download experiment instead/);
  assert.ok(await page.getByTestId("copy-link").isDisabled(), "no link to copy");
  assert.ok(!(await page.evaluate(() => location.hash.startsWith("#x="))), "the address carries no older experiment");
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-experiment").click()]);
  const experiment = JSON.parse(await readFile(await download.path(), "utf8"));
  assert.deepEqual(experiment.workload, { kernel: { name: "vecadd.cu", source: noise } });
  assert.deepEqual(errors, []);
  await close();
});
