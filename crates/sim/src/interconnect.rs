//! The crossbar between SMs and L2 slices, one per direction (requests and
//! replies), ticked at the interconnect clock.
//!
//! It models what limits a crossbar's throughput and latency: each input port
//! sends and each output port receives one flit per cycle, a packet of `k`
//! flits holds both ports for `k` cycles, outputs are granted round-robin among
//! the inputs whose head packet wants them (one grant per input per cycle, as
//! iSLIP's single iteration gives), and a packet is delivered into the output's
//! bounded buffer when its last flit arrives. Input buffers are bounded by
//! `-icnt_in_buffer_limit` packets, output buffers by `-icnt_out_buffer_limit`;
//! a full output holds the input's head packet back, a full input makes the
//! sender wait.

use std::collections::VecDeque;

use crate::fifo::Fifo;
use crate::request::RequestId;

/// Bytes of header every packet carries (GPGPU-Sim's control size).
pub const HEADER_BYTES: u32 = 8;

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
    inputs: Vec<Fifo<Packet>>,
    input_free_at: Vec<u64>,
    /// Per output: packets in transfer or delivered, with the icnt cycle their
    /// last flit arrives (non-decreasing per output).
    outputs: Vec<VecDeque<(u64, RequestId)>>,
    output_free_at: Vec<u64>,
    output_limit: usize,
    flit_bytes: u32,
    next_input: usize,
    in_flight: usize,
    /// Flits moved, for utilisation.
    pub flits: u64,
    /// Cycles an input's head packet waited for a busy or full output.
    pub output_conflicts: u64,
}

impl Crossbar {
    /// A crossbar from `n_inputs` ports to `n_outputs` ports.
    pub fn new(n_inputs: u32, n_outputs: u32, input_limit: u32, output_limit: u32, flit_bytes: u32) -> Self {
        Self {
            inputs: (0..n_inputs).map(|_| Fifo::new(input_limit)).collect(),
            input_free_at: vec![0; n_inputs as usize],
            outputs: (0..n_outputs).map(|_| VecDeque::new()).collect(),
            output_free_at: vec![0; n_outputs as usize],
            output_limit: output_limit.max(1) as usize,
            flit_bytes: flit_bytes.max(1),
            next_input: 0,
            in_flight: 0,
            flits: 0,
            output_conflicts: 0,
        }
    }

    /// Flits a packet carrying `data_bytes` of data takes.
    pub fn flits_for(&self, data_bytes: u32) -> u32 {
        (HEADER_BYTES + data_bytes).div_ceil(self.flit_bytes)
    }

    /// Whether input `input` has room for one more packet.
    pub fn can_inject(&self, input: u32) -> bool {
        self.inputs[input as usize].can_push()
    }

    /// Queues a packet at `input` for `output`. The caller checked [`Crossbar::can_inject`].
    pub fn inject(&mut self, input: u32, output: u32, data_bytes: u32, request: RequestId) {
        let flits = self.flits_for(data_bytes);
        self.inputs[input as usize].push(Packet { request, output, flits });
        self.in_flight += 1;
    }

    /// One interconnect cycle: grant free outputs to waiting inputs.
    pub fn cycle(&mut self, now: u64) {
        if self.in_flight == 0 {
            return;
        }
        let n = self.inputs.len();
        // The round-robin pointer moves only in cycles with a packet waiting
        // at some input, so a cycle in which every packet is merely in
        // transfer changes nothing (and can be skipped).
        if self.inputs.iter().all(Fifo::is_empty) {
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
            let done = now + u64::from(packet.flits);
            self.input_free_at[input] = done;
            self.output_free_at[output] = done;
            self.outputs[output].push_back((done, packet.request));
            self.flits += u64::from(packet.flits);
        }
        self.next_input = (self.next_input + 1) % n.max(1);
    }

    /// The next packet delivered at `output` by icnt cycle `now`.
    pub fn peek(&self, output: u32, now: u64) -> Option<RequestId> {
        match self.outputs[output as usize].front() {
            Some(&(at, request)) if at <= now => Some(request),
            _ => None,
        }
    }

    /// When every packet has been granted its output: the icnt cycle the
    /// first one arrives (`u64::MAX`: none in flight); `None` while a packet
    /// waits at an input for a grant, which may come any cycle.
    pub fn next_arrival(&self) -> Option<u64> {
        if self.inputs.iter().any(|input| !input.is_empty()) {
            return None;
        }
        Some(self.outputs.iter().filter_map(|output| output.front().map(|&(at, _)| at)).min().unwrap_or(u64::MAX))
    }

    /// Whether a packet is in transfer to, or waiting at, `output`.
    pub fn has_pending(&self, output: u32) -> bool {
        !self.outputs[output as usize].is_empty()
    }

    /// Takes the packet [`Crossbar::peek`] showed.
    pub fn pop(&mut self, output: u32) {
        if self.outputs[output as usize].pop_front().is_some() {
            self.in_flight -= 1;
        }
    }

    /// Total input stalls (a sender found an input full), for the report.
    pub fn input_full_stalls(&self) -> u64 {
        self.inputs.iter().map(|input| input.full_stalls).sum()
    }

    /// Counts a sender finding `input` full.
    pub fn count_full(&mut self, input: u32) {
        self.inputs[input as usize].full_stalls += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_takes_one_cycle_per_flit_and_outputs_serialise() {
        let mut xbar = Crossbar::new(2, 1, 4, 4, 40);
        assert_eq!(xbar.flits_for(0), 1);
        assert_eq!(xbar.flits_for(128), 4);
        xbar.inject(0, 0, 128, RequestId(7));
        xbar.inject(1, 0, 0, RequestId(8));
        xbar.cycle(1);
        assert_eq!(xbar.peek(0, 4), None);
        assert_eq!(xbar.peek(0, 5), Some(RequestId(7)));
        xbar.pop(0);
        // The second input waited for the output: granted at cycle 5, arrives at 6.
        for now in 2..=5 {
            xbar.cycle(now);
        }
        assert_eq!(xbar.peek(0, 6), Some(RequestId(8)));
    }
}
