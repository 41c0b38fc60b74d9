//! One direction of the GPU's network (requests from SMs to L2 slices, or
//! replies back): one crossbar per chiplet and the inter-chiplet links.
//!
//! A monolithic GPU has one chiplet, so this is its one [`Crossbar`] and
//! nothing else. On a chiplet GPU each chiplet's crossbar joins its own SMs
//! and L2 slices, plus a mirror port on each side for what crosses chiplets:
//! a mirror output per local sender, which takes that sender's packets for
//! other chiplets to the links, and a mirror input per sender of the other
//! chiplets, where the links deliver its packets. So a remote packet meets
//! the same port limits a monolithic crossbar would put on it (its sender's
//! input, its destination's output, a queue of its own sender's packets at
//! the destination), and what the chiplets add is the links: with links of
//! unbounded bandwidth and no latency, a chiplet GPU runs as a monolithic one.
//!
//! A packet for another chiplet crosses its source chiplet's crossbar to
//! its sender's mirror output, waits in the link's queue, is sent at the link
//! bandwidth (`-warplab_chiplet_link_gbps`), arrives
//! `-inter_chiplet_queue_latency` later, and enters the destination chiplet's
//! crossbar at its sender's mirror input. A link's queue holds
//! `-inter_chiplet_queue_size` packets per L2 slice of a chiplet (upstream
//! has a queue of that size per slice pair), counting those in flight, as
//! upstream's `LatencyQueue`: a link whose queue cannot cover its bandwidth ×
//! latency carries less than its bandwidth. A full link holds packets at the
//! mirror output, which fills the crossbar's buffers back to the sender.
//!
//! Topologies (`-warplab_chiplet_topology`):
//! - `all_to_all`: each chiplet has an outgoing and an incoming link of the
//!   link bandwidth; a packet crosses the outgoing link of its source (with
//!   the latency) and the incoming link of its destination, so a chiplet
//!   sends and receives at most the link bandwidth whatever the others do.
//! - `ring`: each chiplet has a link to each neighbour; a packet takes the
//!   shorter way round (clockwise on a tie), one link (bandwidth and
//!   latency) per hop, passing the chiplets between without entering their
//!   crossbars.
//!
//! Links tick with the interconnect clock; the latency is converted from core
//! cycles at the configured clocks, rounded to the nearest interconnect cycle.

use std::collections::VecDeque;

use warplab_config::{GpuConfig, Topology};

use crate::interconnect::{Crossbar, HEADER_BYTES};
use crate::request::RequestId;
use crate::snapshot::Depth;

/// Which chiplet and which local port a global port is.
#[derive(Debug, Clone, Copy)]
struct Port {
    chiplet: u32,
    local: u32,
}

/// A packet on its way between chiplets.
#[derive(Debug, Clone, Copy)]
struct Crossing {
    request: RequestId,
    /// The global output it is for.
    output: u32,
    /// The global input it came from.
    input: u32,
    data_bytes: u32,
    /// Index into its route of the link it is on.
    hop: u8,
    /// Interconnect cycle from which it may leave the link.
    ready_at: u64,
}

/// Where a packet bound for another chiplet goes, from its injection until
/// it leaves its sender's mirror output for a link.
#[derive(Debug, Clone, Copy)]
struct BoundAway {
    request: RequestId,
    /// The global output it is for.
    output: u32,
    data_bytes: u32,
}

/// One directed link.
#[derive(Debug, Clone)]
struct Link {
    queue: VecDeque<Crossing>,
    /// When the link finishes sending what it holds, in thousandths of an
    /// interconnect cycle.
    free_at_milli: u64,
    latency: u64,
    /// Thousandths of a cycle spent sending, for the occupancy.
    busy_milli: u64,
    /// Bytes sent.
    bytes: u64,
}

/// What the links did, for the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets that crossed to another chiplet.
    pub packets: u64,
    /// Bytes sent over links (each hop counted).
    pub bytes: u64,
    /// Interconnect cycles the busiest link spent sending.
    pub busiest_busy_cycles: u64,
    /// Interconnect cycles all links spent sending.
    pub busy_cycles: u64,
    /// Directed links.
    pub links: u32,
}

/// One direction of the network.
#[derive(Debug, Clone)]
pub struct Network {
    crossbars: Vec<Crossbar>,
    inputs: Vec<Port>,
    outputs: Vec<Port>,
    /// Per chiplet, its inputs' and outputs' global ids, in local order.
    inputs_of: Vec<Vec<u32>>,
    outputs_of: Vec<Vec<u32>>,
    /// Per chiplet `c` and global input `i` (at `c × inputs + i`), the
    /// mirror input of `c`'s crossbar where `i`'s packets arrive from the
    /// links (unused for `c`'s own inputs).
    mirror_inputs: Vec<u32>,
    /// Per chiplet, packets bound for its mirror outputs not yet on a link.
    to_mirrors: Vec<u32>,
    links: Vec<Link>,
    topology: Topology,
    /// Milli-bytes a link sends per interconnect cycle.
    rate_milli_bytes: u64,
    queue_entries: usize,
    /// Per global input, its packets for other chiplets that are not on a
    /// link yet, in the order it sent them. A sender's packets reach its
    /// mirror output in that order (its input is a FIFO, and a crossbar
    /// keeps each output's packets in order), so the link takes the front
    /// entry with the packet it takes; a map by request cost a host-cache
    /// miss at both ends.
    bound_away: Vec<VecDeque<BoundAway>>,
    /// Packets that went to another chiplet.
    crossed: u64,
    /// Packets injected.
    injected: u64,
}

impl Network {
    /// A network from `inputs` to `outputs` ports, each given by its chiplet.
    pub fn new(input_chiplets: &[u32], output_chiplets: &[u32], config: &GpuConfig) -> Self {
        let chiplets = config.chiplets.count.max(1);
        let (inputs, inputs_of) = ports(input_chiplets, chiplets);
        let (outputs, outputs_of) = ports(output_chiplets, chiplets);
        // Mirror ports: an input per sender elsewhere, an output per local sender.
        let linked = chiplets > 1;
        let ic = &config.interconnect;
        let crossbars = (0..chiplets as usize)
            .map(|c| {
                let local_inputs = inputs_of[c].len();
                let n_in = if linked { inputs.len() } else { local_inputs };
                let n_out = outputs_of[c].len() + if linked { local_inputs } else { 0 };
                Crossbar::for_config(n_in as u32, n_out as u32, ic)
            })
            .collect();
        let mirror_inputs = if linked { mirror_input_table(&inputs, &inputs_of) } else { Vec::new() };
        let bound_away = vec![VecDeque::new(); if linked { inputs.len() } else { 0 }];
        let c = &config.chiplets;
        let latency = c.latency_icnt_cycles(&config.clocks);
        // Two per chiplet in either topology (out and in, or clockwise and back).
        let n_links = if chiplets > 1 { 2 * chiplets } else { 0 };
        let links = (0..n_links)
            .map(|l| Link {
                queue: VecDeque::new(),
                free_at_milli: 0,
                // The incoming side of all_to_all adds no latency of its own.
                latency: if c.topology == Topology::AllToAll && l % 2 == 1 { 0 } else { latency },
                busy_milli: 0,
                bytes: 0,
            })
            .collect();
        let bytes_per_second = c.link_bytes_per_second(&config.memory, &config.clocks);
        Self {
            crossbars,
            inputs,
            outputs,
            mirror_inputs,
            inputs_of,
            to_mirrors: vec![0; chiplets as usize],
            outputs_of,
            links,
            topology: c.topology,
            // Bytes per second over kilohertz: thousandths of a byte a cycle.
            rate_milli_bytes: (bytes_per_second / config.clocks.icnt.khz().max(1)).max(1),
            queue_entries: c.link_queue_packets(&config.memory) as usize,
            bound_away,
            crossed: 0,
            injected: 0,
        }
    }

    /// The request direction: SMs to L2 slices.
    pub fn requests(config: &GpuConfig) -> Self {
        Self::new(&sm_chiplets(config), &slice_chiplets(config), config)
    }

    /// The reply direction: L2 slices to SMs.
    pub fn replies(config: &GpuConfig) -> Self {
        Self::new(&slice_chiplets(config), &sm_chiplets(config), config)
    }

    /// Global input `input`'s crossbar and port there; a monolithic GPU's
    /// one crossbar numbers its ports globally, without a table look-up
    /// (this is on every SM's path every cycle).
    fn input_port(&self, input: u32) -> Port {
        if self.links.is_empty() { Port { chiplet: 0, local: input } } else { self.inputs[input as usize] }
    }

    /// Global output `output`'s crossbar and port there (see [`Network::input_port`]).
    fn output_port(&self, output: u32) -> Port {
        if self.links.is_empty() { Port { chiplet: 0, local: output } } else { self.outputs[output as usize] }
    }

    /// The first mirror output of `chiplet`'s crossbar.
    fn first_mirror_output(&self, chiplet: u32) -> u32 {
        self.outputs_of[chiplet as usize].len() as u32
    }

    /// Whether input `input` has room for one more packet.
    pub fn can_inject(&self, input: u32) -> bool {
        let port = self.input_port(input);
        self.crossbars[port.chiplet as usize].can_inject(port.local)
    }

    /// Whether input `input` has room for one more packet once `pending`
    /// more have been injected.
    pub fn can_inject_more(&self, input: u32, pending: usize) -> bool {
        let port = self.input_port(input);
        self.crossbars[port.chiplet as usize].can_inject_more(port.local, pending)
    }

    /// Queues a packet at `input` for `output`: across the source chiplet's
    /// crossbar to `output`, or to its link port when `output` is on another
    /// chiplet. The caller checked [`Network::can_inject`].
    pub fn inject(&mut self, input: u32, output: u32, data_bytes: u32, request: RequestId) {
        let (from, to) = (self.input_port(input), self.output_port(output));
        self.injected += 1;
        if from.chiplet == to.chiplet {
            self.crossbars[from.chiplet as usize].inject(from.local, to.local, data_bytes, request);
            return;
        }
        let mirror = self.first_mirror_output(from.chiplet) + from.local;
        self.crossbars[from.chiplet as usize].inject(from.local, mirror, data_bytes, request);
        self.bound_away[input as usize].push_back(BoundAway { request, output, data_bytes });
        self.to_mirrors[from.chiplet as usize] += 1;
        self.crossed += 1;
    }

    /// One interconnect cycle: the links take packets from the crossbars'
    /// link ports, pass on what has arrived, then every crossbar moves packets.
    pub fn cycle(&mut self, now: u64) {
        if !self.links.is_empty() {
            self.enter_links(now);
            self.leave_links(now);
        }
        for crossbar in &mut self.crossbars {
            crossbar.cycle(now);
        }
    }

    /// Packets delivered at each crossbar's mirror outputs go onto their
    /// first link while it has room.
    fn enter_links(&mut self, now: u64) {
        for chiplet in 0..self.crossbars.len() as u32 {
            if self.to_mirrors[chiplet as usize] == 0 {
                continue;
            }
            let first_mirror = self.first_mirror_output(chiplet);
            for port in first_mirror..self.crossbars[chiplet as usize].n_outputs() {
                // Most mirror outputs hold nothing: their flat record says so
                // without a read of their queue.
                if self.crossbars[chiplet as usize].first_arrival(port) <= now {
                    self.enter_link_from(chiplet, port, now);
                }
            }
        }
    }

    /// Moves what mirror output `port` of `chiplet` has delivered onto its link.
    fn enter_link_from(&mut self, chiplet: u32, port: u32, now: u64) {
        let first_mirror = self.first_mirror_output(chiplet);
        let input = self.inputs_of[chiplet as usize][(port - first_mirror) as usize];
        while let Some(request) = self.crossbars[chiplet as usize].peek(port, now) {
            // Every packet at a mirror output has its entry; none would leave.
            let Some(&BoundAway { request: expected, output, data_bytes }) = self.bound_away[input as usize].front()
            else {
                return;
            };
            debug_assert_eq!(request, expected, "a mirror output delivered out of its sender's order");
            let first = self.route(chiplet, self.outputs[output as usize].chiplet, 0);
            if self.links[first].queue.len() >= self.queue_entries {
                return;
            }
            self.crossbars[chiplet as usize].pop(port);
            self.bound_away[input as usize].pop_front();
            self.to_mirrors[chiplet as usize] -= 1;
            let crossing = Crossing { request, output, input, data_bytes, hop: 0, ready_at: 0 };
            self.send(first, crossing, now);
        }
    }

    /// Packets whose link is done with them go to their next link, or into
    /// their destination crossbar's link port.
    fn leave_links(&mut self, now: u64) {
        for l in 0..self.links.len() {
            while let Some(&head) = self.links[l].queue.front() {
                if head.ready_at > now {
                    break;
                }
                let to = self.outputs[head.output as usize];
                let here = self.hop_chiplet(l);
                if here != to.chiplet || self.has_next_hop(l) {
                    let next = self.route(here, to.chiplet, head.hop + 1);
                    if self.links[next].queue.len() >= self.queue_entries {
                        break;
                    }
                    self.links[l].queue.pop_front();
                    self.send(next, Crossing { hop: head.hop + 1, ..head }, now);
                    continue;
                }
                let input = self.mirror_inputs[to.chiplet as usize * self.inputs.len() + head.input as usize];
                let crossbar = &mut self.crossbars[to.chiplet as usize];
                if !crossbar.can_inject(input) {
                    crossbar.count_full(input);
                    break;
                }
                crossbar.inject(input, to.local, head.data_bytes, head.request);
                self.links[l].queue.pop_front();
            }
        }
    }

    /// Puts `crossing` on link `l` at `now`: it is sent after what the link
    /// already holds, at the link's rate, and may leave after the latency.
    fn send(&mut self, l: usize, mut crossing: Crossing, now: u64) {
        let link = &mut self.links[l];
        let bytes = u64::from(HEADER_BYTES + crossing.data_bytes);
        let start = link.free_at_milli.max(now * 1000);
        let duration = (bytes * 1_000_000).div_ceil(self.rate_milli_bytes);
        link.free_at_milli = start + duration;
        link.busy_milli += duration;
        link.bytes += bytes;
        crossing.ready_at = link.free_at_milli.div_ceil(1000) + link.latency;
        link.queue.push_back(crossing);
    }

    /// The link a packet from chiplet `at` to chiplet `to` takes at hop `hop`.
    /// all_to_all: link `2c` is chiplet `c`'s outgoing link, `2c + 1` its
    /// incoming one. ring: `2c` goes from `c` to `c + 1`, `2c + 1` from `c` to `c − 1`.
    fn route(&self, at: u32, to: u32, hop: u8) -> usize {
        let n = self.crossbars.len() as u32;
        match self.topology {
            Topology::AllToAll => (if hop == 0 { 2 * at } else { 2 * to + 1 }) as usize,
            Topology::Ring => {
                let clockwise = (to + n - at) % n;
                (2 * at + u32::from(clockwise > n - clockwise)) as usize
            }
        }
    }

    /// The chiplet a packet is at when it leaves link `l`.
    fn hop_chiplet(&self, l: usize) -> u32 {
        let n = self.crossbars.len() as u32;
        let c = (l / 2) as u32;
        match (self.topology, l % 2) {
            // The outgoing link leads into the fabric; the incoming one is at its chiplet.
            (Topology::AllToAll, 0) => u32::MAX,
            (Topology::AllToAll, _) => c,
            (Topology::Ring, 0) => (c + 1) % n,
            (Topology::Ring, _) => (c + n - 1) % n,
        }
    }

    /// Whether a packet leaving link `l` must still cross another link
    /// before its crossbar (an all_to_all outgoing link).
    fn has_next_hop(&self, l: usize) -> bool {
        self.topology == Topology::AllToAll && l.is_multiple_of(2)
    }

    /// The next packet delivered at `output` (see [`Crossbar::peek`]).
    pub fn peek(&self, output: u32, now: u64) -> Option<RequestId> {
        let port = self.output_port(output);
        self.crossbars[port.chiplet as usize].peek(port.local, now)
    }

    /// The packet [`Network::peek`] would show once `taken` have been popped.
    pub fn peek_nth(&self, output: u32, now: u64, taken: usize) -> Option<RequestId> {
        let port = self.output_port(output);
        self.crossbars[port.chiplet as usize].peek_nth(port.local, now, taken)
    }

    /// The icnt cycle from which `output`'s first packet may be taken
    /// (`u64::MAX`: nothing on its way there through its last crossbar).
    pub fn first_arrival(&self, output: u32) -> u64 {
        let port = self.output_port(output);
        self.crossbars[port.chiplet as usize].first_arrival(port.local)
    }

    /// When every packet has been granted its output and every link knows
    /// when its head leaves: the first such icnt cycle (`u64::MAX`: nothing
    /// in flight); `None` while a packet waits for a grant.
    pub fn next_arrival(&self) -> Option<u64> {
        let mut next = u64::MAX;
        for crossbar in &self.crossbars {
            next = next.min(crossbar.next_arrival()?);
        }
        Some(self.links.iter().filter_map(|link| link.queue.front()).map(|c| c.ready_at).fold(next, u64::min))
    }

    /// Whether a packet is in transfer to, or waiting at, `output`.
    pub fn has_pending(&self, output: u32) -> bool {
        let port = self.output_port(output);
        self.crossbars[port.chiplet as usize].has_pending(port.local)
    }

    /// Takes the packet [`Network::peek`] showed.
    pub fn pop(&mut self, output: u32) {
        let port = self.output_port(output);
        self.crossbars[port.chiplet as usize].pop(port.local);
    }

    /// Packets in the network per output, those crossing between chiplets included.
    pub fn packets_per_output(&self) -> Vec<u32> {
        let mut counts = vec![0; self.outputs.len()];
        for (chiplet, crossbar) in self.crossbars.iter().enumerate() {
            let local = crossbar.packets_per_output();
            for (&global, count) in self.outputs_of[chiplet].iter().zip(local) {
                counts[global as usize] += count;
            }
        }
        let waiting = self.bound_away.iter().flatten().map(|bound| bound.output);
        let on_links = self.links.iter().flat_map(|link| &link.queue).map(|crossing| crossing.output);
        for output in waiting.chain(on_links) {
            counts[output as usize] += 1;
        }
        counts
    }

    /// Total input stalls (a sender found an input full), for the report.
    pub fn input_full_stalls(&self) -> u64 {
        self.crossbars.iter().map(Crossbar::input_full_stalls).sum()
    }

    /// Counts a sender finding `input` full.
    pub fn count_full(&mut self, input: u32) {
        self.count_full_by(input, 1);
    }

    /// Counts a sender finding `input` full `times` times.
    pub fn count_full_by(&mut self, input: u32, times: u64) {
        let port = self.input_port(input);
        self.crossbars[port.chiplet as usize].count_full_by(port.local, times);
    }

    /// Packets injected.
    pub fn injected(&self) -> u64 {
        self.injected
    }

    /// What the links did.
    pub fn link_counters(&self) -> LinkCounters {
        LinkCounters {
            packets: self.crossed,
            bytes: self.links.iter().map(|l| l.bytes).sum(),
            busiest_busy_cycles: self.links.iter().map(|l| l.busy_milli / 1000).max().unwrap_or(0),
            busy_cycles: self.links.iter().map(|l| l.busy_milli / 1000).sum(),
            links: self.links.len() as u32,
        }
    }

    /// Per chiplet, the packets in its outgoing links (waiting at its
    /// mirror outputs, or on the links), against the links' queue capacity
    /// (for the animation); empty on a monolithic GPU.
    pub fn outgoing_link_depths(&self) -> Vec<Depth> {
        if self.links.is_empty() {
            return Vec::new();
        }
        (0..self.crossbars.len())
            .map(|c| {
                // all_to_all: the outgoing link; ring: both neighbours'.
                let outgoing = match self.topology {
                    Topology::AllToAll => &self.links[2 * c..2 * c + 1],
                    Topology::Ring => &self.links[2 * c..2 * c + 2],
                };
                let on_links: usize = outgoing.iter().map(|l| l.queue.len()).sum();
                let capacity = self.queue_entries * outgoing.len();
                Depth { len: (on_links + self.to_mirrors[c] as usize) as u32, capacity: capacity as u32 }
            })
            .collect()
    }
}

/// Per chiplet `c` and global input `i`, the mirror input of `c`'s crossbar
/// for `i`: after `c`'s own inputs, the other chiplets' inputs in global order.
fn mirror_input_table(inputs: &[Port], inputs_of: &[Vec<u32>]) -> Vec<u32> {
    let mut table = vec![0; inputs_of.len() * inputs.len()];
    for (c, own) in inputs_of.iter().enumerate() {
        let mut next = own.len() as u32;
        for (i, port) in inputs.iter().enumerate() {
            if port.chiplet as usize != c {
                table[c * inputs.len() + i] = next;
                next += 1;
            }
        }
    }
    table
}

/// Each global port's chiplet and local index, and each chiplet's ports in order.
fn ports(chiplet_of: &[u32], chiplets: u32) -> (Vec<Port>, Vec<Vec<u32>>) {
    let mut of = vec![Vec::new(); chiplets as usize];
    let ports = chiplet_of
        .iter()
        .enumerate()
        .map(|(global, &chiplet)| {
            let chiplet = chiplet.min(chiplets - 1);
            let members = &mut of[chiplet as usize];
            members.push(global as u32);
            Port { chiplet, local: members.len() as u32 - 1 }
        })
        .collect();
    (ports, of)
}

/// Each SM's chiplet.
pub fn sm_chiplets(config: &GpuConfig) -> Vec<u32> {
    (0..config.n_sms()).map(|sm| config.chiplet_of_sm(sm)).collect()
}

/// Each L2 slice's chiplet.
pub fn slice_chiplets(config: &GpuConfig) -> Vec<u32> {
    (0..config.memory.n_sub_partitions()).map(|slice| config.chiplet_of_slice(slice)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs icnt cycles from `from` until `request` is delivered at
    /// `output` (at most 10,000), checking `counted` after each; returns the cycle.
    fn deliver(network: &mut Network, output: u32, request: RequestId, from: u64, counted: impl Fn(&Network)) -> u64 {
        (from..from + 10_000)
            .find(|&now| {
                network.cycle(now);
                counted(network);
                network.peek(output, now) == Some(request)
            })
            .expect("the packet is delivered")
    }

    #[test]
    fn packets_crossing_chiplets_keep_their_destinations_and_are_counted_on_the_way() {
        let config = warplab_config::preset("chiplet-1024sm").unwrap().config().unwrap();
        let mut network = Network::requests(&config);
        let slices = slice_chiplets(&config);
        let sms = sm_chiplets(&config);
        // Two senders of chiplet 0; three slices of two other chiplets.
        let senders: Vec<u32> = (0..sms.len() as u32).filter(|&sm| sms[sm as usize] == 0).take(2).collect();
        let remote = |chiplet| (0..slices.len() as u32).filter(|&s| slices[s as usize] == chiplet).collect::<Vec<_>>();
        let (a, a2, b) = (remote(1)[0], remote(1)[1], remote(5)[0]);
        let sent =
            [(senders[0], a, 128, RequestId(1)), (senders[0], b, 0, RequestId(2)), (senders[1], a2, 32, RequestId(3))];
        for &(input, output, bytes, request) in &sent {
            network.inject(input, output, bytes, request);
        }
        let in_flight = |network: &Network| {
            let counts = network.packets_per_output();
            [a, b, a2].map(|output| counts[output as usize])
        };
        // Each arrives where it was sent, counted at its output all the way:
        // in its source crossbar, on the links, in its destination's.
        let mut now = 1;
        for (taken, &(_, output, _, request)) in sent.iter().enumerate() {
            let left = |network: &Network| {
                let expected = [0, 1, 2].map(|i| u32::from(i >= taken));
                assert_eq!(in_flight(network), expected, "while {request:?} crosses");
            };
            now = deliver(&mut network, output, request, now, left);
            network.pop(output);
        }
        assert_eq!(in_flight(&network), [0, 0, 0]);
        assert_eq!(network.link_counters().packets, 3);
    }
}
