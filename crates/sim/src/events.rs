//! The optional, bounded event stream: what happened in a window of core
//! cycles on a range of SMs, for the animation and for offline study.
//!
//! Recorded: CTAs launched and finished, instructions issued (warp, scheduler,
//! PC, opcode), warp state changes ([`WarpState`]), L1 MSHR entries allocated
//! and freed, and requests entering and leaving the request crossbar, the L2
//! queue, DRAM and the reply crossbar. SM-side events are kept for the
//! window's SMs only; memory-side events for every request, since the L2 and
//! DRAM are shared.
//!
//! Central decision: nothing is recorded, and nothing is checked but one
//! flag per hook, unless a window is set. Inside the window the clock never
//! jumps (so a state change can never be skipped over) and every windowed
//! SM's warps are classified each cycle and compared with the cycle before;
//! instructions issued are found by comparing each scheduler's issue count.
//! Both read the model and change nothing, so the cycles of a run are the
//! same with events on or off (a test checks it). The stream is bounded:
//! past [`EventWindow::max_events`] events are counted, not kept, until the
//! driver takes them ([`crate::Simulation::take_events`]); CTA launches and
//! finishes are kept past the bound.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::request::{Request, RequestId};
use crate::snapshot::WarpState;

/// Which events to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventWindow {
    /// Core cycles whose events are recorded.
    pub cycles: Range<u64>,
    /// SMs whose SM-side events are recorded.
    pub sms: Range<u32>,
    /// The most events held before the driver takes them; further ones are
    /// counted as dropped, except CTA launches and finishes, which are kept.
    pub max_events: usize,
}

impl EventWindow {
    /// The default bound on held events: about 40 MB.
    pub const DEFAULT_MAX_EVENTS: usize = 1_000_000;

    /// A window of `cycles` on every SM, with the default bound.
    pub fn cycles(cycles: Range<u64>) -> Self {
        Self { cycles, sms: 0..u32::MAX, max_events: Self::DEFAULT_MAX_EVENTS }
    }
}

/// A queue a memory request passes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Queue {
    /// The request crossbar, from an SM to an L2 slice.
    RequestNetwork,
    /// An L2 slice's input: the ROP latency pipeline and the crossbar-to-L2
    /// queue, until the L2 serves the request.
    L2,
    /// DRAM: from the slice's L2-to-DRAM queue until the data (or the write
    /// acknowledgement) comes back.
    Dram,
    /// The reply crossbar, from an L2 slice to an SM.
    ReplyNetwork,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
// Externally tagged (no `tag`, no `flatten`): the worker's binary codec
// needs a representation that is not self-describing.
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A CTA became resident on an SM.
    CtaLaunched {
        /// The SM.
        sm: u32,
        /// Launch index of its kernel.
        kernel: u32,
        /// Its index in the grid (x fastest).
        cta: u64,
        /// The CTA slot it took.
        slot: u16,
    },
    /// A CTA's last warp retired and its resources were freed.
    CtaFinished {
        /// The SM.
        sm: u32,
        /// Launch index of its kernel.
        kernel: u32,
        /// Its index in the grid.
        cta: u64,
        /// The CTA slot it freed.
        slot: u16,
    },
    /// A scheduler issued a warp's instruction.
    Issued {
        /// The SM.
        sm: u32,
        /// The sub-core's scheduler.
        scheduler: u32,
        /// The warp slot.
        warp: u32,
        /// The instruction's PC.
        pc: u64,
        /// Its opcode, as the trace spells it.
        opcode: String,
    },
    /// A warp's state changed (classified at the end of each cycle).
    WarpState {
        /// The SM.
        sm: u32,
        /// The warp slot.
        warp: u32,
        /// The state it is in now.
        state: WarpState,
    },
    /// An L1 miss took an MSHR entry for its line.
    MshrAllocated {
        /// The SM.
        sm: u32,
        /// The line (or sector) address.
        address: u64,
    },
    /// An MSHR entry's data arrived and the entry was freed.
    MshrFreed {
        /// The SM.
        sm: u32,
        /// The line (or sector) address.
        address: u64,
    },
    /// A request entered a queue.
    Entered {
        /// The queue.
        queue: Queue,
        /// The request's name in the table of requests in flight: the pool
        /// it was made in (its SM, or the memory side) in the high bits,
        /// its slot in the pool (reused once it completes) below.
        request: u32,
        /// The SM that sent it, or the slice for L2 fills and write-backs.
        source: u32,
        /// Its sector or line address.
        address: u64,
    },
    /// A request left a queue.
    Left {
        /// The queue.
        queue: Queue,
        /// The request's name in the table of requests in flight (as in `Entered`).
        request: u32,
        /// The SM that sent it, or the slice for L2 fills and write-backs.
        source: u32,
        /// Its sector or line address.
        address: u64,
    },
}

/// One event, at a core cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The core cycle.
    pub cycle: u64,
    /// What happened.
    pub kind: EventKind,
}

/// Events handed to the driver.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventBatch {
    /// The events, in cycle order.
    pub events: Vec<Event>,
    /// Events that happened but were not kept: the bound was reached.
    pub dropped: u64,
}

/// The recording state the model's hooks write to.
#[derive(Debug, Default)]
pub(crate) struct EventLog {
    /// Whether the current cycle is inside the window: the one flag every
    /// hook checks.
    pub on: bool,
    pub window: Option<EventWindow>,
    pub events: Vec<Event>,
    pub dropped: u64,
    /// Per SM: each warp slot's state at the end of the last recorded cycle.
    pub states: Vec<Vec<WarpState>>,
    /// Per SM: each scheduler's issue count at the end of the last recorded cycle.
    pub issued: Vec<Vec<u64>>,
}

impl EventLog {
    /// Whether SM `sm`'s own events are recorded this cycle.
    #[inline]
    pub fn on_for(&self, sm: u32) -> bool {
        self.on && self.window.as_ref().is_some_and(|w| w.sms.contains(&sm))
    }

    /// Records an SM-side event of SM `sm`.
    #[inline]
    pub fn record_sm(&mut self, sm: u32, cycle: u64, kind: impl FnOnce() -> EventKind) {
        if self.on_for(sm) {
            self.push(Event { cycle, kind: kind() });
        }
    }

    /// Keeps `event`, or counts it as dropped once [`EventWindow::max_events`]
    /// are held. CTA launches and finishes are always kept: there is one of
    /// each per CTA, and a viewer needs them to place everything else.
    pub fn push(&mut self, event: Event) {
        let max = self.window.as_ref().map_or(0, |w| w.max_events);
        let placing = matches!(event.kind, EventKind::CtaLaunched { .. } | EventKind::CtaFinished { .. });
        if self.events.len() < max || placing {
            self.events.push(event);
        } else {
            self.dropped += 1;
        }
    }

    /// Events recorded so far, kept or dropped.
    pub fn recorded(&self) -> u64 {
        self.events.len() as u64 + self.dropped
    }

    /// Sets the flag for core cycle `cycle`.
    pub fn enter_cycle(&mut self, cycle: u64) {
        self.on = self.window.as_ref().is_some_and(|w| w.cycles.contains(&cycle));
    }

    /// The last cycle the clock may jump to from `now`: the window's first
    /// cycle while it is still to come, so no recorded cycle is skipped.
    pub fn jump_limit(&self, now: u64) -> u64 {
        self.window.as_ref().map(|w| w.cycles.start).filter(|&start| start > now).unwrap_or(u64::MAX)
    }

    /// Sets a new window (or none); the next recorded cycle reports every
    /// warp's state afresh.
    pub fn set_window(&mut self, window: Option<EventWindow>) {
        self.window = window;
        self.on = false;
        self.states.clear();
        self.issued.clear();
    }

    /// Hands over the events held and the count of those dropped since the
    /// last call.
    pub fn take(&mut self) -> EventBatch {
        EventBatch { events: std::mem::take(&mut self.events), dropped: std::mem::take(&mut self.dropped) }
    }
}

/// Records request `id` entering (`entered`) or leaving `queue` at `cycle`.
/// Where queue events go: the GPU's event log, or an SM's port during its
/// cycle ([`crate::sm::port::SmPort`]).
pub(crate) trait Recorder {
    /// Whether events are recorded this cycle.
    fn recording(&self) -> bool;
    /// Keeps `event`.
    fn push(&mut self, event: Event);
}

impl Recorder for EventLog {
    fn recording(&self) -> bool {
        self.on
    }

    fn push(&mut self, event: Event) {
        EventLog::push(self, event);
    }
}

/// Records request `id` entering or leaving `queue`; `request` reads it
/// (only when recording).
#[inline]
pub(crate) fn note_queue(
    log: &mut impl Recorder,
    request: impl FnOnce() -> Request,
    cycle: u64,
    queue: Queue,
    id: RequestId,
    entered: bool,
) {
    // Checked where it is called: events are off in most runs, and the
    // memory side calls this several times per request.
    if log.recording() {
        record_queue(log, &request(), cycle, queue, id, entered);
    }
}

/// [`note_queue`]'s event, kept out of its callers' code.
#[cold]
#[inline(never)]
fn record_queue(log: &mut impl Recorder, r: &Request, cycle: u64, queue: Queue, id: RequestId, entered: bool) {
    let (request, source, address) = (id.0, r.source, r.address);
    let kind = if entered {
        EventKind::Entered { queue, request, source, address }
    } else {
        EventKind::Left { queue, request, source, address }
    };
    log.push(Event { cycle, kind });
}
