//! The crossbar between SMs and L2 slices, one per direction (requests and
//! replies), ticked at the interconnect clock.
//!
//! It is built in one of the two ways GPGPU-Sim offers (`-network_mode`):
//!
//! - GPGPU-Sim's own crossbar (`-network_mode 2`, `local_interconnect`) moves
//!   whole packets: a packet of any size crosses in one cycle, each output
//!   takes at most one packet per cycle, and `-icnt_flit_size` plays no part.
//!   With iSLIP (`-icnt_arbiter_algo 1`) the outputs are visited in order, each
//!   granting the first input, round-robin from its own pointer, whose head
//!   packet wants it; an input granted once offers its next packet to the
//!   outputs still to come, so it may send several packets in one cycle (to
//!   different outputs), which relieves some head-of-line blocking. The pointer
//!   moves past the granted input every `-icnt_grant_cycles` busy cycles.
//!   With naive round robin (`-icnt_arbiter_algo 0`) the inputs are visited
//!   round-robin, each sending its head packet if no other input reached that
//!   output this cycle: one packet per input per cycle.
//! - For BookSim (`-network_mode 1`, configured by the `.icnt` file) it models
//!   what limits a flit-switched crossbar: each input port sends and each
//!   output port receives one flit per cycle, a packet of `k` flits holds both
//!   ports for `k` cycles, and outputs are granted round-robin among the inputs
//!   whose head packet wants them, one grant per input per cycle.
//!
//! A packet is delivered into the output's buffer when its last flit arrives,
//! and its consumer takes it at its own next edge after that instant: GPGPU-Sim
//! moves packets (`icnt_transfer`) after the L2 slices and the SMs have popped
//! theirs, so a packet moved at an instant is never taken at that instant,
//! and under a slower interconnect clock it is taken at the next L2 or core
//! edge rather than after the next interconnect edge. Input buffers
//! are bounded by `-icnt_in_buffer_limit` packets, output buffers by
//! `-icnt_out_buffer_limit`; a full output holds the input's head packet back,
//! a full input makes the sender wait.

use std::collections::VecDeque;

use warplab_config::interconnect::{Interconnect, NetworkMode};

use crate::bitset::BitRows;
use crate::fifo::Fifo;
use crate::request::RequestId;

/// Bytes of header every packet carries (GPGPU-Sim's control size).
pub const HEADER_BYTES: u32 = 8;

/// How a crossbar moves packets, from the config's network options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switching {
    /// BookSim: packets of `flit_bytes` flits, one flit per port per cycle.
    Flits {
        /// Bytes per flit.
        flit_bytes: u32,
    },
    /// GPGPU-Sim's crossbar with iSLIP: whole packets, outputs visited in
    /// order, an input may be granted by several outputs in one cycle.
    /// The output pointers move every `grant_cycles` busy cycles.
    LocalIslip {
        /// `-icnt_grant_cycles`.
        grant_cycles: u32,
    },
    /// GPGPU-Sim's crossbar with naive round robin: whole packets, one per
    /// input and per output per cycle.
    LocalRoundRobin,
}

impl Switching {
    /// The switching the interconnect options ask for.
    pub fn of(config: &Interconnect) -> Self {
        match (config.mode, config.arbiter_algo) {
            (NetworkMode::BookSim, _) => Switching::Flits { flit_bytes: config.effective_flit_size_bytes() },
            (NetworkMode::LocalCrossbar, 0) => Switching::LocalRoundRobin,
            (NetworkMode::LocalCrossbar, _) => Switching::LocalIslip { grant_cycles: config.grant_cycles.max(1) },
        }
    }
}

/// One packet at an input.
#[derive(Debug, Clone, Copy)]
struct Packet {
    request: RequestId,
    output: u32,
    flits: u32,
}

/// One direction of the crossbar.
#[derive(Debug, Clone)]
pub struct Crossbar {
    switching: Switching,
    inputs: Vec<Fifo<Packet>>,
    input_free_at: Vec<u64>,
    /// Per output: packets in transfer or delivered, with the icnt cycle from
    /// which the consumer may take them (non-decreasing per output).
    outputs: Vec<VecDeque<(u64, RequestId)>>,
    /// Per output: the icnt cycle its first packet may be taken from
    /// (`u64::MAX`: none). The same as the front of `outputs`, kept flat:
    /// the GPU asks every SM's output each cycle whether a reply waits, and
    /// most answer no ([`Crossbar::first_arrival`]).
    first_at: Vec<u64>,
    output_free_at: Vec<u64>,
    output_limit: usize,
    /// Round-robin position: of the inputs (flits, naive round robin), or per
    /// output (iSLIP).
    next_input: usize,
    next_input_for_output: Vec<usize>,
    /// iSLIP: busy cycles left before the output pointers move.
    grant_countdown: u32,
    /// iSLIP: per output, a bit per input whose head packet wants that output.
    /// Invariant: bit `i` of output `o` is set exactly when input `i`'s head
    /// packet is for `o`. Rows of one flat array: iSLIP visits every output
    /// every cycle, and an output no head wants then costs one word of a
    /// dense summary.
    heads_for_output: BitRows,
    /// Packets waiting at the inputs for a grant.
    waiting: usize,
    /// Packets waiting at the inputs, in transfer or delivered and not taken.
    in_flight: usize,
    /// Flits moved (packets, for GPGPU-Sim's crossbar), for utilisation.
    pub flits: u64,
    /// Cycles an input's head packet waited for a busy or full output.
    pub output_conflicts: u64,
}

impl Crossbar {
    /// A crossbar from `n_inputs` ports to `n_outputs` ports.
    pub fn new(n_inputs: u32, n_outputs: u32, input_limit: u32, output_limit: u32, switching: Switching) -> Self {
        let switching = match switching {
            Switching::Flits { flit_bytes } => Switching::Flits { flit_bytes: flit_bytes.max(1) },
            other => other,
        };
        let islip = matches!(switching, Switching::LocalIslip { .. });
        Self {
            switching,
            inputs: (0..n_inputs).map(|_| Fifo::new(input_limit)).collect(),
            input_free_at: vec![0; n_inputs as usize],
            outputs: (0..n_outputs).map(|_| VecDeque::new()).collect(),
            first_at: vec![u64::MAX; n_outputs as usize],
            output_free_at: vec![0; n_outputs as usize],
            output_limit: output_limit.max(1) as usize,
            next_input: 0,
            next_input_for_output: vec![0; n_outputs as usize],
            grant_countdown: match switching {
                Switching::LocalIslip { grant_cycles } => grant_cycles.max(1),
                _ => 1,
            },
            heads_for_output: BitRows::new(if islip { n_outputs as usize } else { 0 }, n_inputs as usize),
            waiting: 0,
            in_flight: 0,
            flits: 0,
            output_conflicts: 0,
        }
    }

    /// A crossbar of the configured kind.
    pub fn for_config(n_inputs: u32, n_outputs: u32, config: &Interconnect) -> Self {
        Self::new(n_inputs, n_outputs, config.in_buffer_limit, config.out_buffer_limit, Switching::of(config))
    }

    /// Flits a packet carrying `data_bytes` of data takes (one for GPGPU-Sim's
    /// crossbar, whatever its size).
    pub fn flits_for(&self, data_bytes: u32) -> u32 {
        match self.switching {
            Switching::Flits { flit_bytes } => (HEADER_BYTES + data_bytes).div_ceil(flit_bytes),
            Switching::LocalIslip { .. } | Switching::LocalRoundRobin => 1,
        }
    }

    /// Output ports.
    pub fn n_outputs(&self) -> u32 {
        self.outputs.len() as u32
    }

    /// Whether input `input` has room for one more packet.
    pub fn can_inject(&self, input: u32) -> bool {
        self.inputs[input as usize].can_push()
    }

    /// Whether input `input` has room for one more packet once `pending`
    /// more have been injected (an SM's packets wait in its port until the
    /// end of the SMs' cycle).
    pub fn can_inject_more(&self, input: u32, pending: usize) -> bool {
        let queue = &self.inputs[input as usize];
        queue.len() + pending < queue.capacity()
    }

    /// Queues a packet at `input` for `output`. The caller checked [`Crossbar::can_inject`].
    pub fn inject(&mut self, input: u32, output: u32, data_bytes: u32, request: RequestId) {
        let flits = self.flits_for(data_bytes);
        let queue = &mut self.inputs[input as usize];
        let was_empty = queue.is_empty();
        queue.push(Packet { request, output, flits });
        if was_empty {
            self.mark_head(input as usize);
        }
        self.waiting += 1;
        self.in_flight += 1;
    }

    /// One interconnect cycle: grant free outputs to waiting inputs.
    pub fn cycle(&mut self, now: u64) {
        if self.in_flight == 0 {
            return;
        }
        match self.switching {
            Switching::Flits { .. } | Switching::LocalRoundRobin => self.round_robin_cycle(now),
            Switching::LocalIslip { grant_cycles } => self.islip_cycle(now, grant_cycles),
        }
    }

    /// Inputs in round-robin order, each offering its head packet only; a
    /// granted packet holds its output, and in flit switching its input, for
    /// its flits.
    fn round_robin_cycle(&mut self, now: u64) {
        let n = self.inputs.len();
        // The round-robin pointer moves only in cycles with a packet waiting
        // at some input, so a cycle in which every packet is merely in
        // transfer changes nothing (and can be skipped).
        if self.waiting == 0 {
            return;
        }
        for k in 0..n {
            let input = (self.next_input + k) % n;
            let Some(&packet) = self.inputs[input].front() else { continue };
            if self.input_free_at[input] > now {
                continue;
            }
            let output = packet.output as usize;
            if self.output_free_at[output] > now || self.outputs[output].len() >= self.output_limit {
                self.output_conflicts += 1;
                continue;
            }
            self.inputs[input].pop();
            self.waiting -= 1;
            let done = now + u64::from(packet.flits);
            if matches!(self.switching, Switching::Flits { .. }) {
                self.input_free_at[input] = done;
            }
            self.output_free_at[output] = done;
            self.deliver(output, done, packet.request);
            self.flits += u64::from(packet.flits);
        }
        self.next_input = (self.next_input + 1) % n.max(1);
    }

    /// GPGPU-Sim's iSLIP pass: each output in order grants the first input at
    /// or after its pointer whose head packet wants it.
    fn islip_cycle(&mut self, now: u64, grant_cycles: u32) {
        let n_inputs = self.inputs.len();
        let busy = self.waiting > 0;
        for output in 0..self.outputs.len() {
            // Before the output's pointer is read: most outputs are passed here.
            if self.heads_for_output.is_empty(output) {
                continue;
            }
            let Some(input) = self.heads_for_output.next_from(output, self.next_input_for_output[output]) else {
                continue;
            };
            if self.outputs[output].len() >= self.output_limit {
                self.output_conflicts += 1;
                continue;
            }
            self.clear_head(input, output);
            let Some(packet) = self.inputs[input].pop() else { continue };
            self.waiting -= 1;
            self.deliver(output, now + 1, packet.request);
            self.flits += 1;
            if self.grant_countdown == 1 {
                self.next_input_for_output[output] = (input + 1) % n_inputs;
            }
            if !self.inputs[input].is_empty() {
                self.mark_head(input);
            }
        }
        // The pointers move only on the last of `grant_cycles` busy cycles.
        if busy {
            self.grant_countdown = if self.grant_countdown == 1 { grant_cycles } else { self.grant_countdown - 1 };
        }
    }

    fn mark_head(&mut self, input: usize) {
        if let (Some(&packet), true) =
            (self.inputs[input].front(), matches!(self.switching, Switching::LocalIslip { .. }))
        {
            self.heads_for_output.insert(packet.output as usize, input);
        }
    }

    /// Puts `request` in transfer to `output`, to be taken from icnt cycle `at`.
    fn deliver(&mut self, output: usize, at: u64, request: RequestId) {
        if self.outputs[output].is_empty() {
            self.first_at[output] = at;
        }
        self.outputs[output].push_back((at, request));
    }

    fn clear_head(&mut self, input: usize, output: usize) {
        self.heads_for_output.remove(output, input);
    }

    /// The next packet delivered at `output` for a consumer that sees
    /// deliveries through interconnect cycle `now` − 1: the current cycle's
    /// own, once its edge has passed (see the module doc).
    pub fn peek(&self, output: u32, now: u64) -> Option<RequestId> {
        match self.outputs[output as usize].front() {
            Some(&(at, request)) if at <= now => Some(request),
            _ => None,
        }
    }

    /// The packet [`Crossbar::peek`] would show once `taken` packets have been
    /// popped from `output`.
    pub fn peek_nth(&self, output: u32, now: u64, taken: usize) -> Option<RequestId> {
        match self.outputs[output as usize].get(taken) {
            Some(&(at, request)) if at <= now => Some(request),
            _ => None,
        }
    }

    /// When every packet has been granted its output: the icnt cycle the
    /// first one arrives (`u64::MAX`: none in flight); `None` while a packet
    /// waits at an input for a grant, which may come any cycle.
    pub fn next_arrival(&self) -> Option<u64> {
        if self.waiting > 0 {
            return None;
        }
        Some(self.first_at.iter().copied().min().unwrap_or(u64::MAX))
    }

    /// The icnt cycle from which `output`'s first packet may be taken
    /// (`u64::MAX`: none in transfer or delivered); [`Crossbar::peek`] shows
    /// it from then on.
    pub fn first_arrival(&self, output: u32) -> u64 {
        self.first_at[output as usize]
    }

    /// Whether a packet is in transfer to, or waiting at, `output`.
    pub fn has_pending(&self, output: u32) -> bool {
        // The flat record, not the queue: the L2 asks this of every slice
        // every cycle (a chiplet GPU has 1,024), and most answer no.
        self.first_at[output as usize] != u64::MAX
    }

    /// Takes the packet [`Crossbar::peek`] showed.
    pub fn pop(&mut self, output: u32) {
        let queue = &mut self.outputs[output as usize];
        if queue.pop_front().is_some() {
            self.in_flight -= 1;
            self.first_at[output as usize] = queue.front().map_or(u64::MAX, |&(at, _)| at);
        }
    }

    /// Packets in the crossbar per output: waiting at an input for it, in
    /// transfer to it, or delivered and not yet taken.
    pub fn packets_per_output(&self) -> Vec<u32> {
        let mut counts: Vec<u32> = self.outputs.iter().map(|output| output.len() as u32).collect();
        for input in &self.inputs {
            for packet in input.iter() {
                counts[packet.output as usize] += 1;
            }
        }
        counts
    }

    /// Total input stalls (a sender found an input full), for the report.
    pub fn input_full_stalls(&self) -> u64 {
        self.inputs.iter().map(|input| input.full_stalls).sum()
    }

    /// Counts a sender finding `input` full.
    pub fn count_full(&mut self, input: u32) {
        self.count_full_by(input, 1);
    }

    /// Counts a sender finding `input` full `times` times.
    pub fn count_full_by(&mut self, input: u32, times: u64) {
        self.inputs[input as usize].full_stalls += times;
    }
}

#[cfg(test)]
mod tests {
    use warplab_config::interconnect::NetworkMode;

    use super::*;

    const ISLIP: Switching = Switching::LocalIslip { grant_cycles: 1 };

    /// Runs icnt cycles `from..=to`.
    fn run(xbar: &mut Crossbar, from: u64, to: u64) {
        for now in from..=to {
            xbar.cycle(now);
        }
    }

    #[test]
    fn a_packet_takes_one_cycle_per_flit_and_outputs_serialise() {
        let mut xbar = Crossbar::new(2, 1, 4, 4, Switching::Flits { flit_bytes: 40 });
        assert_eq!(xbar.flits_for(0), 1);
        assert_eq!(xbar.flits_for(128), 4);
        xbar.inject(0, 0, 128, RequestId(7));
        xbar.inject(1, 0, 0, RequestId(8));
        xbar.cycle(1);
        assert_eq!(xbar.peek(0, 4), None);
        assert_eq!(xbar.peek(0, 5), Some(RequestId(7)));
        xbar.pop(0);
        // The second input waited for the output: granted at cycle 5, arrives at 6.
        run(&mut xbar, 2, 5);
        assert_eq!(xbar.peek(0, 6), Some(RequestId(8)));
    }

    #[test]
    fn first_arrival_is_the_cycle_from_which_peek_shows_the_head() {
        // Each switching kind, packets of several sizes to two outputs,
        // popped as soon as they show: the flat record must agree with the
        // output queues at every cycle, or a sleeping SM misses its reply.
        for switching in [Switching::Flits { flit_bytes: 40 }, ISLIP, Switching::LocalRoundRobin] {
            let mut xbar = Crossbar::new(3, 2, 8, 2, switching);
            for (k, bytes) in [128, 0, 32, 128, 0, 64].into_iter().enumerate() {
                xbar.inject(k as u32 % 3, k as u32 % 2, bytes, RequestId(k as u32));
            }
            let mut popped = 0;
            for now in 1..40 {
                xbar.cycle(now);
                for output in 0..2 {
                    let first = xbar.first_arrival(output);
                    let queued = !xbar.outputs[output as usize].is_empty();
                    assert_eq!(xbar.has_pending(output), queued, "{switching:?} cycle {now}");
                    for seen in now..now + 8 {
                        assert_eq!(xbar.peek(output, seen).is_some(), first <= seen, "{switching:?} cycle {now}");
                    }
                    if xbar.peek(output, now).is_some() {
                        xbar.pop(output);
                        popped += 1;
                    }
                }
            }
            assert_eq!(popped, 6, "{switching:?}");
            assert_eq!(xbar.next_arrival(), Some(u64::MAX));
        }
    }

    #[test]
    fn gpgpu_sims_crossbar_moves_a_whole_line_in_one_cycle() {
        let mut xbar = Crossbar::new(1, 1, 4, 4, ISLIP);
        assert_eq!(xbar.flits_for(128), 1);
        xbar.inject(0, 0, 128, RequestId(1));
        xbar.cycle(1);
        // Granted in cycle 1, the consumer takes it from the next cycle on.
        assert_eq!(xbar.peek(0, 1), None);
        assert_eq!(xbar.peek(0, 2), Some(RequestId(1)));
    }

    #[test]
    fn islip_grants_an_input_once_per_output_still_to_come() {
        let mut xbar = Crossbar::new(1, 3, 8, 8, ISLIP);
        // Outputs are visited in order: 0 takes the head, 2 the next one; the
        // third packet is for output 0 again, which has had its turn.
        xbar.inject(0, 0, 0, RequestId(1));
        xbar.inject(0, 2, 0, RequestId(2));
        xbar.inject(0, 0, 0, RequestId(3));
        xbar.inject(0, 1, 0, RequestId(4));
        xbar.cycle(1);
        assert_eq!((xbar.peek(0, 2), xbar.peek(1, 2), xbar.peek(2, 2)), (Some(RequestId(1)), None, Some(RequestId(2))));
        xbar.cycle(2);
        xbar.pop(0);
        assert_eq!((xbar.peek(0, 3), xbar.peek(1, 3)), (Some(RequestId(3)), Some(RequestId(4))));
    }

    #[test]
    fn each_output_takes_one_packet_a_cycle_round_robin_over_inputs() {
        let mut xbar = Crossbar::new(3, 1, 8, 8, ISLIP);
        for input in 0..3 {
            xbar.inject(input, 0, 32, RequestId(10 + input));
            xbar.inject(input, 0, 32, RequestId(20 + input));
        }
        let mut order = Vec::new();
        for now in 1..=6 {
            xbar.cycle(now);
            while let Some(id) = xbar.peek(0, now + 1) {
                order.push(id.0);
                xbar.pop(0);
            }
        }
        // One a cycle, the pointer moving past each input it granted.
        assert_eq!(order, [10, 11, 12, 20, 21, 22]);
    }

    #[test]
    fn a_full_output_buffer_holds_packets_at_their_inputs() {
        let mut xbar = Crossbar::new(1, 1, 8, 2, ISLIP);
        for id in 0..4 {
            xbar.inject(0, 0, 0, RequestId(id));
        }
        run(&mut xbar, 1, 10);
        assert_eq!(xbar.inputs[0].len(), 2, "two wait at the input while two fill the output");
        xbar.pop(0);
        xbar.cycle(11);
        assert_eq!(xbar.inputs[0].len(), 1);
    }

    #[test]
    fn naive_round_robin_sends_one_packet_per_input_a_cycle() {
        let mut xbar = Crossbar::new(1, 2, 8, 8, Switching::LocalRoundRobin);
        xbar.inject(0, 0, 128, RequestId(1));
        xbar.inject(0, 1, 128, RequestId(2));
        xbar.cycle(1);
        assert_eq!((xbar.peek(0, 2), xbar.peek(1, 2)), (Some(RequestId(1)), None));
        xbar.cycle(2);
        assert_eq!(xbar.peek(1, 3), Some(RequestId(2)));
    }

    #[test]
    fn pointers_move_every_grant_cycles_busy_cycles() {
        // With -icnt_grant_cycles 2 the output keeps favouring the input it
        // granted until the second busy cycle ends.
        let mut xbar = Crossbar::new(2, 1, 8, 8, Switching::LocalIslip { grant_cycles: 2 });
        for id in 0..2 {
            xbar.inject(0, 0, 0, RequestId(id));
            xbar.inject(1, 0, 0, RequestId(10 + id));
        }
        let mut order = Vec::new();
        for now in 1..=4 {
            xbar.cycle(now);
            while let Some(id) = xbar.peek(0, now + 1) {
                order.push(id.0);
                xbar.pop(0);
            }
        }
        assert_eq!(order, [0, 1, 10, 11]);
    }

    #[test]
    fn switching_follows_the_network_options() {
        let mut config = warplab_config::preset("QV100").unwrap().config().unwrap().interconnect;
        assert_eq!((config.mode, config.arbiter_algo, config.grant_cycles), (NetworkMode::LocalCrossbar, 1, 1));
        assert_eq!(Switching::of(&config), ISLIP);
        config.arbiter_algo = 0;
        assert_eq!(Switching::of(&config), Switching::LocalRoundRobin);
        let booksim = warplab_config::preset("H100").unwrap().config().unwrap().interconnect;
        assert_eq!(booksim.mode, NetworkMode::BookSim);
        let flit_bytes = booksim.effective_flit_size_bytes();
        assert_eq!(Switching::of(&booksim), Switching::Flits { flit_bytes });
    }
}
