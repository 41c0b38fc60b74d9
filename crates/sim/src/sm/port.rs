//! An SM's side of the two crossbars during its cycle, and what the cycle
//! hands to the rest of the GPU.
//!
//! Why it exists: the SMs' cycles run on several threads, so an SM's cycle
//! must not write anything another SM could read. It reads the crossbars but
//! never changes them: the packets it sends, the replies it takes and the
//! events it records wait here, and once every SM has run its cycle the GPU
//! applies them to the crossbars and the event log SM by SM, in SM order
//! ([`crate::gpu::Gpu`]). That is the order in which one thread running the
//! SMs one after another would have made them, and nothing an SM reads in
//! its cycle is changed by another SM's cycle (each SM has its own crossbar
//! input and output), so the run is the same on any number of threads.

use crate::events::{Event, EventKind, EventLog, Recorder};
use crate::network::Network;
use crate::request::{RequestId, Requests};

/// One packet an SM sent into the request crossbar this cycle.
#[derive(Debug, Clone, Copy)]
struct Sent {
    request: RequestId,
    slice: u32,
    data_bytes: u32,
}

/// When an SM next has work, and whether it ran the current cycle: what the
/// GPU reads of every SM in every cycle. They are kept in one flat array
/// beside the SMs (`Gpu::wakes`, 16 bytes an SM), so that an SM with nothing
/// due is passed over without reading its state or its port: on a GPU of
/// many SMs most sleep in most cycles.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SmWake {
    /// The SM's number, which is also its reply-crossbar output.
    pub(crate) sm: u32,
    /// Whether the SM ran its cycle (and its port holds what it did).
    pub(crate) ticked: bool,
    /// The SM need not be ticked before this core cycle unless a reply
    /// arrives for it: until then every scheduler sleeps and the memory
    /// pipeline only waits (`u64::MAX`: never, the SM is idle).
    pub(crate) at: u64,
}

impl SmWake {
    /// SM `sm`, to be ticked at once.
    pub(crate) fn new(sm: u32) -> Self {
        Self { sm, ticked: false, at: 0 }
    }
}

/// What SM `sm` did at its crossbar ports in its current cycle, not yet applied.
#[derive(Debug, Default)]
pub(crate) struct SmPort {
    sm: u32,
    sent: Vec<Sent>,
    /// Replies taken from the SM's reply-crossbar output this cycle.
    taken: u32,
    /// Times the SM found its request-crossbar input full this cycle.
    full: u64,
    /// Whether the event log records this cycle, and SM-side events of this SM.
    recording: bool,
    watched: bool,
    events: Vec<Event>,
}

impl SmPort {
    /// The port of SM `sm`.
    pub(crate) fn new(sm: u32) -> Self {
        Self { sm, ..Self::default() }
    }

    /// Begins the SM's cycle: what the event log records this cycle.
    pub(crate) fn open(&mut self, log: &EventLog) {
        self.recording = log.on;
        self.watched = log.on_for(self.sm);
    }

    /// Whether the SM's request-crossbar input has room for one more packet.
    pub(crate) fn can_send(&self, network: &Network) -> bool {
        network.can_inject_more(self.sm, self.sent.len())
    }

    /// Sends request `id` for `slice` with `data_bytes` of data (the caller
    /// checked [`SmPort::can_send`]).
    pub(crate) fn send(&mut self, request: RequestId, slice: u32, data_bytes: u32) {
        self.sent.push(Sent { request, slice, data_bytes });
    }

    /// Counts the SM finding its crossbar input full.
    pub(crate) fn count_full(&mut self) {
        self.full += 1;
    }

    /// The next reply at the SM's output that it has not taken yet this cycle
    /// (see [`Network::peek`]).
    pub(crate) fn peek_reply(&self, network: &Network, icnt_now: u64) -> Option<RequestId> {
        network.peek_nth(self.sm, icnt_now, self.taken as usize)
    }

    /// Takes the reply [`SmPort::peek_reply`] showed.
    pub(crate) fn take_reply(&mut self) {
        self.taken += 1;
    }

    /// Records an event of this SM (kept only for SMs in the event window).
    pub(crate) fn record_sm(&mut self, cycle: u64, kind: impl FnOnce() -> EventKind) {
        if self.watched {
            self.events.push(Event { cycle, kind: kind() });
        }
    }

    /// Ends the cycle: applies what the SM did to the crossbars and the log.
    /// A sent request's record moves to the memory side ([`Requests::send_away`]).
    pub(crate) fn apply(
        &mut self,
        requests: &mut Requests,
        request_network: &mut Network,
        reply_network: &mut Network,
        log: &mut EventLog,
    ) {
        // Each part is written only when it holds something: a part the
        // SM's thread reads but this one does not write stays in that
        // thread's core's cache.
        if self.taken > 0 {
            for _ in 0..std::mem::take(&mut self.taken) {
                reply_network.pop(self.sm);
            }
        }
        if !self.sent.is_empty() {
            for sent in self.sent.drain(..) {
                requests.send_away(sent.request);
                request_network.inject(self.sm, sent.slice, sent.data_bytes, sent.request);
            }
        }
        if self.full > 0 {
            request_network.count_full_by(self.sm, std::mem::take(&mut self.full));
        }
        if !self.events.is_empty() {
            for event in self.events.drain(..) {
                log.push(event);
            }
        }
    }
}

impl Recorder for SmPort {
    fn recording(&self) -> bool {
        self.recording
    }

    fn push(&mut self, event: Event) {
        self.events.push(event);
    }
}
