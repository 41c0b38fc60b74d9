// Watching a run (issue 42): a run that finished at speed "max" leaves the
// animation on a frame from its middle, with warps on the SMs, and Replay
// enabled; Replay plays it again at the link's replay speed while the strip
// keeps the finished run's figure; Follow on a finished run follows its
// replay's first miss; following the watched SM's next L1 miss
// lists the request's hops (L1, MSHR, crossbar, L2 slice, DRAM, back) in
// increasing cycles. Screenshots of the finished frame and the followed hops.
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

  // Follow on a finished run: replayed from its start, its first miss followed.
  await page.getByTestId("follow").click();
  await page.getByTestId("follow-summary").filter({ hasText: "cycles from the L1 miss" }).waitFor({ timeout: 60_000 });
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

  // Follow: SM 3's next L1 miss, through every hop, in increasing cycles.
  await page.getByTestId("pause").click();
  await page.getByTestId("play").waitFor();
  await page.getByTestId("follow").click();
  await page.getByTestId("follow-summary").filter({ hasText: "cycles from the L1 miss" }).waitFor({ timeout: 60_000 });
  const hops = await page.getByTestId("follow-hop").evaluateAll((rows) =>
    rows.map((row) => ({ step: row.dataset.step, cycle: Number(row.dataset.cycle) })),
  );
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
