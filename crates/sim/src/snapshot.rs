//! A picture of the whole GPU at one core cycle, for the animation: every
//! warp slot's state, the CTAs resident on each SM, what each scheduler has
//! issued, and how full the MSHRs and the queues between the SMs and DRAM are.
//!
//! Snapshots are plain data (they cross the worker boundary) and are taken
//! on demand ([`crate::Simulation::snapshot`]) or periodically by an event
//! recorder ([`crate::events::Recorder`]); taking one reads the model and
//! changes nothing, so runs with and without snapshots give the same cycles.

use serde::{Deserialize, Serialize};

/// What one warp slot is doing, as the animation colours it.
///
/// A warp that is not ready is classified by the first reason the issue
/// stage would find, in its order: barrier, finished (draining), empty
/// instruction buffer, a source or destination register not ready (memory
/// when a load writes it, dependence otherwise), a memory fence, its unit busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum WarpState {
    /// No warp in this slot.
    Empty,
    /// Its next instruction could issue now: operands ready, unit free.
    Ready,
    /// Waiting for a load to return, a fence to drain, or room in the memory
    /// pipeline.
    Memory,
    /// Waiting for an arithmetic result (a register a unit is still computing).
    Dependence,
    /// Waiting at a barrier for the other warps of its CTA.
    Barrier,
    /// Its instruction buffer is empty: waiting for fetch and decode.
    Fetch,
    /// Ready, but every unit its instruction needs is busy.
    Structural,
    /// It ran its last instruction; its stores and loads are draining.
    Done,
}

impl WarpState {
    /// Every state, in the order the animation's legend lists them.
    pub const ALL: [WarpState; 8] = [
        WarpState::Ready,
        WarpState::Memory,
        WarpState::Dependence,
        WarpState::Barrier,
        WarpState::Fetch,
        WarpState::Structural,
        WarpState::Done,
        WarpState::Empty,
    ];
}

/// One warp slot of an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpSnapshot {
    /// What it is doing.
    pub state: WarpState,
    /// The CTA slot its CTA occupies ([`NO_CTA`] for an empty slot).
    pub cta_slot: u16,
}

/// The `cta_slot` of an empty warp slot.
pub const NO_CTA: u16 = u16::MAX;

/// One CTA resident on an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CtaSnapshot {
    /// The CTA slot it occupies.
    pub slot: u16,
    /// Launch index of its kernel.
    pub kernel: u32,
    /// Its index in the grid, in launch order (x fastest).
    pub index: u64,
    /// Warps still live.
    pub live_warps: u32,
}

/// One SM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmSnapshot {
    /// Every warp slot; warp slot `w` belongs to scheduler `w % schedulers`.
    pub warps: Vec<WarpSnapshot>,
    /// The resident CTAs, by slot.
    pub ctas: Vec<CtaSnapshot>,
    /// Per warp scheduler: warp instructions issued since the start.
    pub issued: Vec<u64>,
    /// L1 data cache MSHR entries in use.
    pub mshrs_in_use: u32,
    /// L1 data cache MSHR entries.
    pub mshrs: u32,
    /// Requests waiting in the L1's miss queue to enter the crossbar.
    pub miss_queue: u32,
    /// The miss queue's capacity.
    pub miss_queue_capacity: u32,
}

/// A queue's occupancy: how many entries it holds and how many it can.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Depth {
    /// Entries held.
    pub len: u32,
    /// Capacity (0: unbounded, e.g. a fixed-latency pipeline).
    pub capacity: u32,
}

/// One L2 slice (memory sub-partition) and its queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SliceSnapshot {
    /// Requests from the crossbar in the ROP latency pipeline and the
    /// crossbar-to-L2 queue, waiting for the L2.
    pub to_l2: Depth,
    /// L2 MSHR entries in use (misses waiting for DRAM).
    pub mshrs_in_use: Depth,
    /// Misses and write-backs waiting to go to DRAM.
    pub to_dram: Depth,
    /// DRAM data waiting to fill the L2.
    pub from_dram: Depth,
    /// Replies waiting to enter the reply crossbar.
    pub to_crossbar: Depth,
}

/// One DRAM channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelSnapshot {
    /// Requests in the fixed `-dram_latency` pipeline before the scheduler.
    pub latency_pipeline: u32,
    /// Requests in the DRAM scheduler's queue.
    pub queue: Depth,
}

/// The whole GPU at one core cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The core cycle.
    pub cycle: u64,
    /// Warp instructions issued so far.
    pub warp_insts: u64,
    /// Thread instructions issued so far.
    pub thread_insts: u64,
    /// Warp schedulers per SM.
    pub schedulers_per_sm: u32,
    /// Every SM.
    pub sms: Vec<SmSnapshot>,
    /// Packets in the request crossbar, per destination L2 slice.
    pub request_network: Vec<u32>,
    /// Packets in the reply crossbar, per destination SM.
    pub reply_network: Vec<u32>,
    /// Every L2 slice.
    pub slices: Vec<SliceSnapshot>,
    /// Every DRAM channel.
    pub channels: Vec<ChannelSnapshot>,
    /// Each SM's chiplet (empty on a monolithic GPU). Never skipped when
    /// serializing: the worker's codec cannot read a message without it.
    #[serde(default)]
    pub sm_chiplets: Vec<u32>,
    /// Each chiplet's outgoing links (empty on a monolithic GPU).
    #[serde(default)]
    pub links: Vec<LinkSnapshot>,
}

/// One chiplet's outgoing inter-chiplet links: packets waiting for them or
/// on them, against what their queues hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkSnapshot {
    /// Requests (SMs to L2 slices of other chiplets).
    pub requests: Depth,
    /// Replies (L2 slices to SMs of other chiplets).
    pub replies: Depth,
}

impl Snapshot {
    /// Thread instructions per core cycle so far (0 before the first cycle).
    pub fn ipc(&self) -> f64 {
        if self.cycle == 0 { 0.0 } else { self.thread_insts as f64 / self.cycle as f64 }
    }
}
