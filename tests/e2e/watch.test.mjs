// Watching a run (issue 42): a run that finished at speed "max" leaves the
// animation on a frame from its middle, with warps on the SMs, and Replay
// enabled; Replay plays it again at the link's replay speed while the strip
// keeps the finished run's figure; Follow on a finished run follows the
// chosen load's first miss in its replay; following a load chosen by its PC
// lists its issue by a warp at that PC, then its sector request's hops (L1,
// MSHR, crossbar, L2 slice, DRAM, back) in increasing cycles. Screenshots of
// the finished frame and the followed hops.
import { test } from "node:test";
import assert from "node:assert/strict";
import { dataValue, experimentIn, linkOf, openPage, SCREENSHOTS, serverAndBrowser, textOf } from "./harness.mjs";

const shared = serverAndBrowser();

test("a finished run shows a frame with warps and Replay; a replay and a followed request", async () => {
  const link = await linkOf({
    config: { preset: "mdm-pascal-28sm" },
    workload: { generated: { kernel: "strided", size: 28, knobs: [["gs", 32]] } },
    view: { watch_sm: 3, speed: 0, replay_speed: 2000 },
  });
  const { page, errors } = await openPage(shared.browser, shared.server.origin + "/" + link);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('[data-testid="ipc-simulated-value"][data-value]').waitFor({ timeout: 120_000 });
  const simulated = await dataValue(page, "ipc-simulated-value");

  // Finished: not the empty last frame but one from the middle, warps and all.
  const replay = page.getByTestId("replay");
  await replay.waitFor();
  assert.equal(await replay.isEnabled(), true, "Replay is enabled on a finished run");
  const resident = Number(await page.getByTestId("animation").getAttribute("data-resident-warps"));
  assert.ok(resident > 0, `the frame shown has warps on its SMs: ${resident}`);
  assert.match(await textOf(page, "animation-ended-note"), /^The run ended at cycle [\d,]+, every SM empty; shown is cycle/);
  assert.equal(await page.getByTestId("speed").locator("option:checked").textContent(), "2k cycles/s");
  await page.getByTestId("animation-panel").screenshot({ path: `${SCREENSHOTS}watch-finished.png` });

  // Follow a load on a finished run: replayed from its start, that load's
  // first miss followed, and the choice kept though the replay redraws the panel.
  const choice = page.getByTestId("follow-load");
  const options = await choice.locator("option").evaluateAll((all) => all.map((o) => [o.value, o.textContent]));
  assert.equal(options[0][0], "", "any load's miss is the default");
  const loads = options.slice(1);
  assert.ok(loads.length > 0, "the workload's loads are offered");
  for (const [pc, text] of loads) assert.match(text, /^PC 0x[0-9a-f]{4} LD/, `a load, by PC: ${pc} ${text}`);
  await choice.selectOption(loads[0][0]);
  await page.getByTestId("follow").click();
  await page.getByTestId("follow-summary").filter({ hasText: "cycles from its issue to the data" }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId("follow-hops").getAttribute("data-load-pc"), loads[0][0]);
  assert.equal(await choice.inputValue(), loads[0][0], "the choice is kept");
  const first = Number(await page.getByTestId("follow-hop").first().getAttribute("data-cycle"));
  assert.ok(first < 10_000, `the replay's first miss, early in the run: cycle ${first}`);
  assert.equal(await dataValue(page, "ipc-simulated-value"), simulated, "the strip keeps the finished run's IPC");
  // The replay's speeds are for watching; Go jumps to its end.
  assert.equal(await page.getByTestId("speed").locator("option", { hasText: "max" }).count(), 0);
  await page.getByTestId("seek-input").fill("100000000");
  await page.getByTestId("seek").click();
  await replay.waitFor({ timeout: 60_000 });

  // Replay: the animation starts over at the link's replay speed; the figures stay.
  await replay.click();
  await page.getByTestId("pause").waitFor({ timeout: 20_000 });
  const cycle = async () => Number((await textOf(page, "animation-cycle")).replaceAll(",", ""));
  const early = await cycle();
  await page.waitForTimeout(1_000);
  const later = await cycle();
  assert.ok(later > early && later < early + 10_000, `replayed at about 2k cycles/s: ${early} → ${later}`);
  assert.equal(await dataValue(page, "ipc-simulated-value"), simulated, "the strip keeps the finished run's IPC");
  assert.equal((await experimentIn(page.url())).view.replay_speed, 2000, "the link keeps the replay speed");

  // Follow a chosen load: its issue on SM 3, then its sector through every
  // hop, in increasing cycles.
  await page.getByTestId("pause").click();
  await page.getByTestId("play").waitFor();
  const [pc] = loads.at(-1);
  await choice.selectOption(pc);
  assert.match(await textOf(page, "follow"), new RegExp(`^Follow the load at PC 0x0*${pc.slice(2)} on SM 3$`));
  await page.getByTestId("follow").click();
  await page.getByTestId("follow-summary").filter({ hasText: "cycles from its issue to the data" }).waitFor({ timeout: 60_000 });
  const table = page.getByTestId("follow-hops");
  assert.equal(await table.getAttribute("data-load-pc"), pc, "the hops are the chosen load's");
  const warp = await table.getAttribute("data-load-warp");
  assert.match(await textOf(page, "follow-summary"), new RegExp(`^Warp ${warp}'s load at PC 0x0*${pc.slice(2)} `));
  const hops = await page.getByTestId("follow-hop").evaluateAll((rows) =>
    rows.map((row) => ({ step: row.dataset.step, cycle: Number(row.dataset.cycle), text: row.textContent })),
  );
  assert.equal(hops[0].step, "Issued", "the first hop is the load's issue");
  assert.match(hops[0].text, new RegExp(`SM 3, warp ${warp}issued LD.* at PC 0x0*${pc.slice(2)} `));
  assert.ok(hops[1].cycle > hops[0].cycle, "the L1 misses after the issue");
  hops.shift();
  const steps = hops.map((hop) => hop.step);
  assert.deepEqual(steps.slice(0, 4), ["L1Miss", "RequestCrossbar", "AtL2Slice", "L2Lookup"]);
  assert.deepEqual(steps.slice(-3), ["ReplyCrossbar", "AtSm", "MshrFreed"]);
  if (steps.length === 9) assert.deepEqual(steps.slice(4, 6), ["ToDram", "FromDram"]);
  else assert.equal(steps.length, 7, `an L2 hit has no DRAM hop: ${steps}`);
  for (let i = 1; i < hops.length; i++) {
    assert.ok(hops[i].cycle >= hops[i - 1].cycle, `hop ${i} at ${hops[i].cycle}, after ${hops[i - 1].cycle}`);
  }
  assert.ok(hops.at(-1).cycle > hops[0].cycle, "the round trip takes cycles");
  assert.ok(hops[0].cycle >= later, "the miss followed is one after the pause");
  // The run paused when the data came home, at the last hop's cycle or just after.
  await page.getByTestId("play").waitFor();
  assert.ok((await cycle()) >= hops.at(-1).cycle);
  await page.getByTestId("follow-request").screenshot({ path: `${SCREENSHOTS}watch-follow.png` });
  assert.deepEqual(errors, []);
});
