//! Following one request in the worker's run (`RunControl::Follow`): the
//! watched SM's next L1 read miss, read hop by hop from the events the run
//! records (`lab::follow`), until its data is back in the L1.
//!
//! The run plays at full speed meanwhile but in short chunks, the events of
//! each taken before the next: every request of the memory side is recorded
//! while following, and a long slice would reach the bound on held events
//! and drop the hop being looked for.

use warplab_lab::follow::Follower;
use warplab_lab::{Event, GpuConfig};

use crate::agent::Followed;

/// Cycles the run plays while looking for the miss or waiting for its data
/// before the page is told the follow gave up (a finished SM misses no more).
pub const FOLLOW_LIMIT_CYCLES: u64 = 100_000;

/// Cycles simulated between two readings of the events while following.
pub const FOLLOW_CHUNK_CYCLES: u64 = 32;

/// A follow in progress or ended.
pub struct FollowRun {
    follower: Follower,
    sm: u32,
    since: u64,
    active: bool,
}

impl FollowRun {
    /// A follow of SM `sm`'s next L1 read miss, asked at core cycle `since`.
    pub fn new(config: &GpuConfig, sm: u32, since: u64) -> Self {
        Self { follower: Follower::new(config, sm), sm, since, active: true }
    }

    /// Whether the run still plays for it.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Reads the events recorded up to core cycle `cycle`; the follow ends
    /// when the data is home, or gives up after [`FOLLOW_LIMIT_CYCLES`].
    pub fn observe(&mut self, events: &[Event], cycle: u64) {
        if !self.active {
            return;
        }
        for event in events {
            self.follower.observe(event);
        }
        let over = cycle.saturating_sub(self.since) > FOLLOW_LIMIT_CYCLES;
        self.active = !self.follower.done() && !over;
    }

    /// What the page is told.
    pub fn followed(&self) -> Followed {
        Followed { sm: self.sm, since: self.since, journey: self.follower.journey().cloned(), active: self.active }
    }
}
