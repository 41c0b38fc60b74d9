//! What the animation's parts mean, one sentence each, and the hover text
//! that joins a part's name, its value in the current snapshot and that
//! sentence.
//!
//! The sentences live in one table ([`Term::text`]) so the legend, the canvas
//! titles and the tooltips say the same thing.

use warplab_lab::{Depth, NO_CTA, SmSnapshot, Snapshot, WarpState};

use super::layout::Hit;
use super::measure::{self, Queue, StripKind};

/// Everything the animation explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Term {
    /// A warp slot in one state.
    Warp(WarpState),
    /// An SM tile as a whole.
    Sm,
    /// The CTA band under the warp cells.
    Cta,
    /// A scheduler's issue bar.
    Issue,
    /// The L1 data cache's MSHRs.
    L1Mshrs,
    /// The L1's miss queue.
    MissQueue,
    /// A queue of the memory side.
    Queue(Queue),
    /// The IPC-so-far chart.
    Timeline,
}

impl Term {
    /// The term's short name and its one-sentence explanation.
    pub fn text(self) -> (&'static str, &'static str) {
        match self {
            Term::Warp(state) => warp_text(state),
            Term::Sm => (
                "SM",
                "a streaming multiprocessor: one cell per warp slot (a row per scheduler, ending in its issue bar), then its L1 MSHR and miss-queue bars.",
            ),
            Term::Cta => (
                "CTA",
                "the band under a column of warp slots marks the CTA (thread block) they belong to; a CTA's warps share its shared memory and wait for each other at barriers.",
            ),
            Term::Issue => (
                "issue rate",
                "warp instructions this scheduler issued per cycle since the previous snapshot; the bar is full at one per cycle, and a short bar means none of its warps could issue.",
            ),
            Term::L1Mshrs => (
                "L1 MSHRs",
                "miss status holding registers: one per outstanding missed line, so misses to a line already requested wait on it; when all are taken, further misses wait.",
            ),
            Term::MissQueue => (
                "miss queue",
                "requests for missed lines waiting to enter the request crossbar; when it is full, the L1 accepts no new misses.",
            ),
            Term::Queue(queue) => queue_text(queue),
            Term::Timeline => (
                "IPC timeline",
                "thread instructions per cycle from the start of the run up to each cycle; it settles towards the run's final IPC.",
            ),
        }
    }

    /// The short name.
    pub fn name(self) -> &'static str {
        self.text().0
    }

    /// The one-sentence explanation.
    pub fn explanation(self) -> &'static str {
        self.text().1
    }
}

fn warp_text(state: WarpState) -> (&'static str, &'static str) {
    match state {
        WarpState::Ready => ("ready", "its next instruction can issue now: its operands are ready and a unit is free."),
        WarpState::Memory => (
            "waiting on memory",
            "its next instruction reads a register a load has not returned yet, or it waits for a fence or for room in the memory pipeline.",
        ),
        WarpState::Dependence => {
            ("waiting on a result", "its next instruction reads a register that an arithmetic unit is still computing.")
        }
        WarpState::Barrier => ("at a barrier", "it reached a barrier and waits until every warp of its CTA arrives."),
        WarpState::Fetch => (
            "waiting for fetch",
            "its instruction buffer is empty, so it waits for the front end to fetch and decode its next instructions.",
        ),
        WarpState::Structural => {
            ("unit busy", "its next instruction is ready, but every unit that can run it is busy this cycle.")
        }
        WarpState::Done => {
            ("done, draining", "it ran its last instruction; its outstanding loads and stores are draining.")
        }
        WarpState::Empty => ("empty slot", "no warp occupies this slot; it fills when a new CTA launches on this SM."),
    }
}

fn queue_text(queue: Queue) -> (&'static str, &'static str) {
    match queue {
        Queue::RequestCrossbar => {
            ("request crossbar", "packets crossing the network from the SMs towards this L2 slice.")
        }
        Queue::ToL2 => (
            "to L2",
            "requests that arrived from the crossbar, in the ROP latency pipeline and queue, waiting for the L2 to look them up.",
        ),
        Queue::L2Mshrs => ("L2 MSHRs", "L2 misses waiting for DRAM, one entry per missed line."),
        Queue::ToDram => ("to DRAM", "misses and write-backs waiting for the DRAM channel to take them."),
        Queue::FromDram => ("from DRAM", "data DRAM returned, waiting to fill the L2."),
        Queue::ToReplyCrossbar => ("to reply crossbar", "replies waiting to enter the reply crossbar back to the SMs."),
        Queue::DramLatency => {
            ("DRAM latency pipeline", "requests in the fixed -dram_latency delay before they reach the DRAM scheduler.")
        }
        Queue::DramQueue => (
            "DRAM scheduler queue",
            "requests the DRAM scheduler picks from, open-row hits first under FR-FCFS; when it is full, the L2 slices must wait.",
        ),
        Queue::ReplyCrossbar => ("reply crossbar", "packets crossing the network from the L2 slices back to this SM."),
        Queue::RequestLink => (
            "requests out",
            "requests from this chiplet's SMs to L2 slices on other chiplets, waiting for or crossing the inter-chiplet links; when the links' queues are full, they back up into the crossbar.",
        ),
        Queue::ReplyLink => (
            "replies out",
            "replies from this chiplet's L2 slices to SMs on other chiplets, waiting for or crossing the inter-chiplet links.",
        ),
    }
}

/// The title of a memory strip that fits in `width` CSS pixels of 12-px
/// text: naming an item's bars left to right, or, where that is too long
/// (a phone), saying where their names are, so the title is never squeezed
/// below a readable size.
pub fn strip_title(kind: StripKind, width: f64) -> String {
    /// A generous average glyph width of the canvas's 12-px UI font.
    const GLYPH_PX: f64 = 7.0;
    let what = match kind {
        StripKind::Slices => "L2 slices",
        StripKind::Channels => "DRAM channels",
        StripKind::Replies => return "Reply crossbar: packets on their way to each SM".to_owned(),
        StripKind::Links => "Inter-chiplet links of each chiplet",
    };
    let bars: Vec<&str> = kind.queues().iter().map(|&queue| Term::Queue(queue).name()).collect();
    let full = format!("{what}, each: {}", bars.join(" · "));
    if full.chars().count() as f64 * GLYPH_PX <= width {
        full
    } else {
        format!("{what}: {} bars each, named on a tap", bars.len())
    }
}

/// The hover text for what is under the pointer: where, its current value,
/// and what it means.
pub fn describe(hit: Hit, snapshot: &Snapshot, previous: Option<&Snapshot>) -> String {
    let sm_of = |sm: usize| snapshot.sms.get(sm);
    let (subject, value, term) = match hit {
        Hit::Sm(sm) => (format!("SM {sm}"), sm_of(sm).map(sm_summary).unwrap_or_default(), Term::Sm),
        Hit::Warp { sm, warp } => return describe_warp(snapshot, sm, warp),
        Hit::Cta { sm, warp } => (format!("SM {sm}"), cta_summary(sm_of(sm), warp), Term::Cta),
        Hit::Issue { sm, scheduler } => {
            (format!("SM {sm}, scheduler {scheduler}"), issue_summary(snapshot, previous, sm, scheduler), Term::Issue)
        }
        Hit::Mshrs(sm) => {
            (format!("SM {sm} L1 MSHRs"), in_use(sm_of(sm).map(measure::mshr_depth), "in use"), Term::L1Mshrs)
        }
        Hit::MissQueue(sm) => (
            format!("SM {sm} miss queue"),
            in_use(sm_of(sm).map(measure::miss_queue_depth), "waiting"),
            Term::MissQueue,
        ),
        Hit::Queue { kind, item, bar } => {
            let Some(&queue) = kind.queues().get(bar) else { return String::new() };
            let depth = measure::queue_depth(snapshot, queue, item);
            (
                format!("{} {item}, {}", item_name(kind), Term::Queue(queue).name()),
                in_use(Some(depth), "waiting"),
                Term::Queue(queue),
            )
        }
    };
    format!("{subject}: {value} — {}", term.explanation())
}

/// Joins a count with its capacity, e.g. `12 of 32 in use`, or `3 waiting`
/// for a queue without a capacity.
fn in_use(depth: Option<Depth>, verb: &str) -> String {
    match depth {
        Some(Depth { len, capacity: 0 }) => format!("{len} {verb}"),
        Some(Depth { len, capacity }) => format!("{len} of {capacity} {verb}"),
        None => "not in this snapshot".to_owned(),
    }
}

fn item_name(kind: StripKind) -> &'static str {
    match kind {
        StripKind::Slices => "L2 slice",
        StripKind::Channels => "DRAM channel",
        StripKind::Replies => "SM",
        StripKind::Links => "chiplet",
    }
}

/// `SM 3, warp 12 (CTA 5): waiting on memory — its next instruction …`.
fn describe_warp(snapshot: &Snapshot, sm: usize, warp: usize) -> String {
    let Some(slot) = snapshot.sms.get(sm).and_then(|s| s.warps.get(warp)) else {
        return format!("SM {sm}, warp {warp}: not in this snapshot");
    };
    let cta = cta_index(snapshot.sms.get(sm), slot.cta_slot).map(|index| format!(" (CTA {index})")).unwrap_or_default();
    let (name, explanation) = Term::Warp(slot.state).text();
    format!("SM {sm}, warp {warp}{cta}: {name} — {explanation}")
}

/// The grid index of the CTA in `cta_slot`.
fn cta_index(sm: Option<&SmSnapshot>, cta_slot: u16) -> Option<u64> {
    if cta_slot == NO_CTA {
        return None;
    }
    sm?.ctas.iter().find(|cta| cta.slot == cta_slot).map(|cta| cta.index)
}

fn sm_summary(sm: &SmSnapshot) -> String {
    let live = sm.warps.iter().filter(|warp| warp.state != WarpState::Empty).count();
    format!("{live} of {} warp slots hold warps, {} resident", sm.warps.len(), counted(sm.ctas.len() as u64, "CTA"))
}

/// The CTA of the first occupied slot from `warp` on in its column.
fn cta_summary(sm: Option<&SmSnapshot>, warp: usize) -> String {
    let slot = sm.and_then(|sm| sm.warps.get(warp..)).and_then(|rest| rest.iter().find(|w| w.cta_slot != NO_CTA));
    let cta = slot.and_then(|slot| sm?.ctas.iter().find(|cta| cta.slot == slot.cta_slot));
    match cta {
        Some(cta) => format!("CTA {} of kernel {}, {} warps live", cta.index, cta.kernel, cta.live_warps),
        None => "no CTA in these slots".to_owned(),
    }
}

fn issue_summary(snapshot: &Snapshot, previous: Option<&Snapshot>, sm: usize, scheduler: usize) -> String {
    let Some(rate) = measure::issue_rate(snapshot, previous, sm, scheduler) else {
        return "no earlier snapshot to compare with yet".to_owned();
    };
    let cycles = previous.map_or(0, |previous| snapshot.cycle.saturating_sub(previous.cycle));
    format!("{rate:.2} warp instructions per cycle over the last {}", counted(cycles, "cycle"))
}

/// `1 cycle`, `1,500 cycles`.
fn counted(count: u64, noun: &str) -> String {
    format!("{} {noun}{}", grouped(count), if count == 1 { "" } else { "s" })
}

/// `1234567` as `1,234,567`.
pub fn grouped(value: u64) -> String {
    crate::format::count(value)
}

#[cfg(test)]
mod tests {
    use warplab_lab::{CtaSnapshot, WarpSnapshot};

    use super::*;

    fn snapshot() -> Snapshot {
        let warp = |state, cta_slot| WarpSnapshot { state, cta_slot };
        let sm = SmSnapshot {
            warps: vec![warp(WarpState::Memory, 1), warp(WarpState::Ready, 1), warp(WarpState::Empty, NO_CTA)],
            ctas: vec![CtaSnapshot { slot: 1, kernel: 0, index: 5, live_warps: 2 }],
            issued: vec![300, 0],
            mshrs_in_use: 12,
            mshrs: 32,
            miss_queue: 2,
            miss_queue_capacity: 8,
        };
        Snapshot {
            cycle: 1500,
            warp_insts: 0,
            thread_insts: 0,
            schedulers_per_sm: 2,
            sms: vec![sm.clone(), sm],
            request_network: vec![3],
            reply_network: vec![0, 1],
            slices: vec![],
            channels: vec![],
            sm_chiplets: vec![],
            links: vec![],
        }
    }

    fn check(hit: Hit, expect: &str) {
        let now = snapshot();
        let mut before = snapshot();
        before.cycle = 1000;
        before.sms[1].issued = vec![100, 0];
        assert_eq!(describe(hit, &now, Some(&before)), expect);
    }

    #[test]
    fn tooltips_say_where_what_and_why() {
        check(
            Hit::Warp { sm: 1, warp: 0 },
            "SM 1, warp 0 (CTA 5): waiting on memory — its next instruction reads a register a load has not returned yet, or it waits for a fence or for room in the memory pipeline.",
        );
        check(
            Hit::Warp { sm: 0, warp: 2 },
            "SM 0, warp 2: empty slot — no warp occupies this slot; it fills when a new CTA launches on this SM.",
        );
        check(Hit::Warp { sm: 0, warp: 9 }, "SM 0, warp 9: not in this snapshot");
        check(
            Hit::Mshrs(1),
            "SM 1 L1 MSHRs: 12 of 32 in use — miss status holding registers: one per outstanding missed line, so misses to a line already requested wait on it; when all are taken, further misses wait.",
        );
        check(
            Hit::Issue { sm: 1, scheduler: 0 },
            "SM 1, scheduler 0: 0.40 warp instructions per cycle over the last 500 cycles — warp instructions this scheduler issued per cycle since the previous snapshot; the bar is full at one per cycle, and a short bar means none of its warps could issue.",
        );
        check(
            Hit::Queue { kind: StripKind::Slices, item: 0, bar: 0 },
            "L2 slice 0, request crossbar: 3 waiting — packets crossing the network from the SMs towards this L2 slice.",
        );
        check(Hit::Queue { kind: StripKind::Slices, item: 0, bar: 9 }, "");
    }

    #[test]
    fn summaries_of_tiles_ctas_and_queues() {
        let value = |hit| {
            let text = describe(hit, &snapshot(), None);
            text.split(" — ").next().unwrap_or_default().to_owned()
        };
        assert_eq!(value(Hit::Sm(0)), "SM 0: 2 of 3 warp slots hold warps, 1 CTA resident");
        assert_eq!(value(Hit::Cta { sm: 0, warp: 0 }), "SM 0: CTA 5 of kernel 0, 2 warps live");
        assert_eq!(value(Hit::Cta { sm: 0, warp: 2 }), "SM 0: no CTA in these slots");
        assert_eq!(value(Hit::MissQueue(0)), "SM 0 miss queue: 2 of 8 waiting");
        assert_eq!(
            value(Hit::Issue { sm: 0, scheduler: 0 }),
            "SM 0, scheduler 0: no earlier snapshot to compare with yet"
        );
        assert_eq!(value(Hit::Queue { kind: StripKind::Replies, item: 1, bar: 0 }), "SM 1, reply crossbar: 1 waiting");
        assert_eq!(
            value(Hit::Queue { kind: StripKind::Channels, item: 4, bar: 1 }),
            "DRAM channel 4, DRAM scheduler queue: 0 waiting"
        );
    }

    #[test]
    fn every_term_has_a_name_and_one_sentence() {
        let mut terms: Vec<Term> = WarpState::ALL.iter().map(|&state| Term::Warp(state)).collect();
        terms.extend(StripKind::ALL.iter().flat_map(|kind| kind.queues()).map(|&queue| Term::Queue(queue)));
        terms.extend([Term::Sm, Term::Cta, Term::Issue, Term::L1Mshrs, Term::MissQueue, Term::Timeline]);
        for term in terms {
            let (name, sentence) = term.text();
            assert!(!name.is_empty(), "{term:?}");
            assert!(
                sentence.ends_with('.') && sentence.matches(". ").count() == 0,
                "{term:?}: one sentence: {sentence}"
            );
        }
        assert_eq!(strip_title(StripKind::Replies, 300.0), "Reply crossbar: packets on their way to each SM");
        assert_eq!(
            strip_title(StripKind::Channels, 640.0),
            "DRAM channels, each: DRAM latency pipeline · DRAM scheduler queue"
        );
        // On a phone's 340 px the slices' six bars do not fit by name.
        assert_eq!(strip_title(StripKind::Slices, 340.0), "L2 slices: 6 bars each, named on a tap");
        assert!(strip_title(StripKind::Slices, 1000.0).starts_with("L2 slices, each: request crossbar"));
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        for (value, expect) in
            [(0, "0"), (999, "999"), (1000, "1,000"), (1234567, "1,234,567"), (u64::MAX, "18,446,744,073,709,551,615")]
        {
            assert_eq!(grouped(value), expect);
        }
    }
}
