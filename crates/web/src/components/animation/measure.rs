//! The numbers the animation shows, read from a snapshot: issue rates, how
//! full each queue is, and which queues the memory side draws per item.
//!
//! Drawing and the hover text both read values through these functions, so a
//! bar and its tooltip always agree.

use warplab_lab::{Depth, SmSnapshot, Snapshot};

/// A queue without a capacity (a fixed-latency pipeline, a crossbar's packets
/// in flight) is drawn full at this many entries: a fixed scale keeps bars
/// comparable from one snapshot to the next, and the tooltip gives the count.
pub const UNBOUNDED_FULL_SCALE: u32 = 16;

/// A scheduler issues at most one warp instruction per cycle in every bundled
/// preset but one, so its bar is full at that rate (a dual-issue scheduler
/// beyond it stays full; the tooltip gives the exact rate).
pub const FULL_ISSUE_RATE: f64 = 1.0;

/// The three rows of the memory side, each a row of items with a few bars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StripKind {
    /// One item per L2 slice: the request crossbar towards it and its queues.
    Slices,
    /// One item per DRAM channel.
    Channels,
    /// One item per SM: the reply crossbar towards it.
    Replies,
    /// One item per chiplet: its outgoing inter-chiplet links (none on a
    /// monolithic GPU).
    Links,
}

/// One queue of the memory side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Queue {
    /// Packets in the request crossbar bound for a slice.
    RequestCrossbar,
    /// A slice's ROP pipeline and crossbar-to-L2 queue.
    ToL2,
    /// A slice's L2 MSHRs.
    L2Mshrs,
    /// A slice's queue towards DRAM.
    ToDram,
    /// A slice's queue of DRAM data waiting to fill the L2.
    FromDram,
    /// A slice's replies waiting for the reply crossbar.
    ToReplyCrossbar,
    /// A channel's fixed-latency pipeline.
    DramLatency,
    /// A channel's scheduler queue.
    DramQueue,
    /// Packets in the reply crossbar bound for an SM.
    ReplyCrossbar,
    /// Requests in a chiplet's outgoing links.
    RequestLink,
    /// Replies in a chiplet's outgoing links.
    ReplyLink,
}

impl StripKind {
    /// The strips, top to bottom.
    pub const ALL: [StripKind; 4] = [StripKind::Slices, StripKind::Channels, StripKind::Replies, StripKind::Links];

    /// The queues each item of this strip shows, left to right, in the order
    /// a request travels.
    pub fn queues(self) -> &'static [Queue] {
        match self {
            StripKind::Slices => &[
                Queue::RequestCrossbar,
                Queue::ToL2,
                Queue::L2Mshrs,
                Queue::ToDram,
                Queue::FromDram,
                Queue::ToReplyCrossbar,
            ],
            StripKind::Channels => &[Queue::DramLatency, Queue::DramQueue],
            StripKind::Replies => &[Queue::ReplyCrossbar],
            StripKind::Links => &[Queue::RequestLink, Queue::ReplyLink],
        }
    }

    /// How many items the strip has for this snapshot.
    pub fn items(self, snapshot: &Snapshot) -> usize {
        match self {
            StripKind::Slices => snapshot.slices.len().max(snapshot.request_network.len()),
            StripKind::Channels => snapshot.channels.len(),
            StripKind::Replies => snapshot.sms.len(),
            StripKind::Links => snapshot.links.len(),
        }
    }
}

/// How full queue `queue` of item `item` is (empty when the snapshot has no
/// such item, so a stale index draws nothing rather than failing).
pub fn queue_depth(snapshot: &Snapshot, queue: Queue, item: usize) -> Depth {
    let unbounded = |len: Option<&u32>| Depth { len: len.copied().unwrap_or(0), capacity: 0 };
    let slice = snapshot.slices.get(item);
    let channel = snapshot.channels.get(item);
    match queue {
        Queue::RequestCrossbar => unbounded(snapshot.request_network.get(item)),
        Queue::ToL2 => slice.map(|s| s.to_l2).unwrap_or_default(),
        Queue::L2Mshrs => slice.map(|s| s.mshrs_in_use).unwrap_or_default(),
        Queue::ToDram => slice.map(|s| s.to_dram).unwrap_or_default(),
        Queue::FromDram => slice.map(|s| s.from_dram).unwrap_or_default(),
        Queue::ToReplyCrossbar => slice.map(|s| s.to_crossbar).unwrap_or_default(),
        Queue::DramLatency => unbounded(channel.map(|c| &c.latency_pipeline)),
        Queue::DramQueue => channel.map(|c| c.queue).unwrap_or_default(),
        Queue::ReplyCrossbar => unbounded(snapshot.reply_network.get(item)),
        Queue::RequestLink => snapshot.links.get(item).map(|l| l.requests).unwrap_or_default(),
        Queue::ReplyLink => snapshot.links.get(item).map(|l| l.replies).unwrap_or_default(),
    }
}

/// The SM's L1 MSHRs as a depth.
pub fn mshr_depth(sm: &SmSnapshot) -> Depth {
    Depth { len: sm.mshrs_in_use, capacity: sm.mshrs }
}

/// The SM's miss queue as a depth.
pub fn miss_queue_depth(sm: &SmSnapshot) -> Depth {
    Depth { len: sm.miss_queue, capacity: sm.miss_queue_capacity }
}

/// The part of a bar a depth fills, in 0..=1.
pub fn fill_fraction(depth: Depth) -> f64 {
    let scale = if depth.capacity == 0 { UNBOUNDED_FULL_SCALE } else { depth.capacity };
    (f64::from(depth.len) / f64::from(scale)).min(1.0)
}

/// Whether a bounded queue is at capacity (its producer must wait).
pub fn is_full(depth: Depth) -> bool {
    depth.capacity > 0 && depth.len >= depth.capacity
}

/// Warp instructions per cycle that `scheduler` of SM `sm` issued between the
/// previous snapshot and this one; `None` without an earlier snapshot of the
/// same run (none yet, or the view jumped backwards).
pub fn issue_rate(snapshot: &Snapshot, previous: Option<&Snapshot>, sm: usize, scheduler: usize) -> Option<f64> {
    let previous = previous?;
    let cycles = snapshot.cycle.checked_sub(previous.cycle).filter(|&cycles| cycles > 0)?;
    let now = *snapshot.sms.get(sm)?.issued.get(scheduler)?;
    let before = *previous.sms.get(sm)?.issued.get(scheduler)?;
    Some(now.checked_sub(before)? as f64 / cycles as f64)
}

#[cfg(test)]
mod tests {
    use warplab_lab::{ChannelSnapshot, LinkSnapshot, SliceSnapshot};

    use super::*;

    fn sm(issued: Vec<u64>) -> SmSnapshot {
        SmSnapshot {
            warps: vec![],
            ctas: vec![],
            issued,
            mshrs_in_use: 3,
            mshrs: 4,
            miss_queue: 0,
            miss_queue_capacity: 8,
        }
    }

    fn snapshot(cycle: u64, issued: Vec<u64>) -> Snapshot {
        let depth = |len| Depth { len, capacity: 8 };
        let slice = SliceSnapshot {
            to_l2: depth(1),
            mshrs_in_use: depth(2),
            to_dram: depth(3),
            from_dram: depth(4),
            to_crossbar: depth(5),
        };
        Snapshot {
            cycle,
            warp_insts: 0,
            thread_insts: 0,
            schedulers_per_sm: 2,
            sms: vec![sm(issued)],
            request_network: vec![7],
            reply_network: vec![40],
            slices: vec![slice],
            channels: vec![ChannelSnapshot { latency_pipeline: 6, queue: depth(8) }],
            sm_chiplets: vec![0],
            links: vec![LinkSnapshot { requests: depth(9), replies: depth(10) }],
        }
    }

    #[test]
    fn issue_rate_is_the_issued_delta_over_the_cycle_delta() {
        let before = snapshot(100, vec![10, 50]);
        let after = snapshot(300, vec![110, 50]);
        assert_eq!(issue_rate(&after, Some(&before), 0, 0), Some(0.5));
        assert_eq!(issue_rate(&after, Some(&before), 0, 1), Some(0.0));
        assert_eq!(issue_rate(&after, None, 0, 0), None, "no earlier snapshot");
        assert_eq!(issue_rate(&before, Some(&after), 0, 0), None, "the view went backwards");
        assert_eq!(issue_rate(&after, Some(&after), 0, 0), None, "no cycles between them");
        assert_eq!(issue_rate(&after, Some(&before), 0, 2), None, "no such scheduler");
        assert_eq!(issue_rate(&after, Some(&before), 1, 0), None, "no such SM");
    }

    #[test]
    fn every_queue_reads_its_own_field_and_missing_items_are_empty() {
        let snapshot = snapshot(1, vec![]);
        let lens: Vec<u32> = StripKind::ALL
            .iter()
            .flat_map(|kind| kind.queues())
            .map(|&queue| queue_depth(&snapshot, queue, 0).len)
            .collect();
        assert_eq!(lens, [7, 1, 2, 3, 4, 5, 6, 8, 40, 9, 10]);
        for kind in StripKind::ALL {
            assert_eq!(kind.items(&snapshot), 1);
            for &queue in kind.queues() {
                assert_eq!(queue_depth(&snapshot, queue, 1), Depth::default(), "{queue:?}");
            }
        }
    }

    #[test]
    fn fractions_use_the_capacity_or_the_fixed_scale() {
        assert_eq!(fill_fraction(Depth { len: 3, capacity: 4 }), 0.75);
        assert_eq!(fill_fraction(Depth { len: 9, capacity: 4 }), 1.0, "clamped");
        assert_eq!(fill_fraction(Depth { len: 4, capacity: 0 }), 4.0 / f64::from(UNBOUNDED_FULL_SCALE));
        assert_eq!(fill_fraction(Depth { len: 40, capacity: 0 }), 1.0);
        assert!(is_full(Depth { len: 4, capacity: 4 }));
        assert!(!is_full(Depth { len: 3, capacity: 4 }));
        assert!(!is_full(Depth { len: 99, capacity: 0 }), "an unbounded queue is never full");
        assert_eq!(mshr_depth(&sm(vec![])), Depth { len: 3, capacity: 4 });
        assert_eq!(miss_queue_depth(&sm(vec![])), Depth { len: 0, capacity: 8 });
    }
}
