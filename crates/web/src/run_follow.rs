//! Following one request in the worker's run (`RunControl::Follow`): the
//! watched SM's next L1 read miss, or the next miss of a chosen load there,
//! read hop by hop from the events the run records (`lab::follow`), until
//! its data is back in the L1.
//!
//! The run plays at full speed meanwhile but in short chunks, the events of
//! each taken before the next: every request of the memory side is recorded
//! while following, and a long slice would reach the bound on held events
//! and drop the hop being looked for.

use warplab_lab::follow::Follower;
use warplab_lab::follow::loads::SharedLoadBook;
use warplab_lab::{Event, GpuConfig, Snapshot};

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
    pc: Option<u64>,
    since: u64,
    active: bool,
}

impl FollowRun {
    /// A follow of SM `sm`'s next L1 read miss, asked at core cycle `since`;
    /// with `pc`, of the next miss of the load at `pc`, its sectors read from
    /// `book`.
    pub fn new(config: &GpuConfig, sm: u32, since: u64, pc: Option<u64>, book: &SharedLoadBook) -> Self {
        let follower = match pc {
            Some(pc) => Follower::for_load(config, sm, pc, SharedLoadBook::clone(book)),
            None => Follower::new(config, sm),
        };
        Self { follower, sm, pc, since, active: true }
    }

    /// Whether [`FollowRun::observe`] needs the GPU's snapshot: a chosen
    /// load's issues are matched to the CTAs of the warps that issue them.
    pub fn wants_snapshot(&self) -> bool {
        self.active && self.follower.wants_placement()
    }

    /// Whether the run still plays for it.
    pub fn active(&self) -> bool {
        self.active
    }

    /// Reads the events recorded up to core cycle `cycle`, with the GPU's
    /// snapshot then if [`FollowRun::wants_snapshot`]; the follow ends when
    /// the data is home, or gives up after [`FOLLOW_LIMIT_CYCLES`].
    pub fn observe(&mut self, events: &[Event], cycle: u64, snapshot: Option<&Snapshot>) {
        if !self.active {
            return;
        }
        // A warp slot can change CTA only once its CTA has ended, which takes
        // longer than the few cycles the events span: the warps' CTAs at the
        // end of the chunk are those that issued in it.
        if let Some(sm) = snapshot.and_then(|snapshot| snapshot.sms.get(self.sm as usize)) {
            self.follower.place(sm);
        }
        for event in events {
            self.follower.observe(event);
        }
        let over = cycle.saturating_sub(self.since) > FOLLOW_LIMIT_CYCLES;
        self.active = !self.follower.done() && !over;
    }

    /// Ends the follow where it is: the run ended first.
    pub fn stop(&mut self) {
        self.active = false;
    }

    /// What the page is told.
    pub fn followed(&self) -> Followed {
        let journey = self.follower.journey().cloned();
        Followed { sm: self.sm, pc: self.pc, since: self.since, journey, active: self.active }
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::EventKind;

    use super::*;

    #[test]
    fn a_follow_gives_up_after_its_limit_or_when_the_run_ends() {
        let (_, config) = warplab_lab::default_config().expect("the default preset reads");
        let book = SharedLoadBook::default();
        let mut follow = FollowRun::new(&config, 2, 1_000, Some(0x90), &book);
        assert!(follow.wants_snapshot(), "a chosen load's warps are placed");
        follow.observe(&[], 1_000 + FOLLOW_LIMIT_CYCLES, None);
        assert!(follow.active(), "still within its limit");
        follow.observe(&[], 1_001 + FOLLOW_LIMIT_CYCLES, None);
        assert_eq!(follow.followed(), Followed { sm: 2, pc: Some(0x90), since: 1_000, journey: None, active: false });
        assert!(!follow.wants_snapshot(), "an ended follow reads nothing");

        let mut follow = FollowRun::new(&config, 2, 0, None, &book);
        assert!(!follow.wants_snapshot(), "any load's miss needs no placing");
        let other_sm = Event { cycle: 4, kind: EventKind::MshrAllocated { sm: 1, address: 0x1000 } };
        let miss = Event { cycle: 5, kind: EventKind::MshrAllocated { sm: 2, address: 0x2000 } };
        follow.observe(&[other_sm, miss], 5, None);
        let journey = follow.followed().journey.expect("SM 2 missed");
        assert_eq!((journey.address, journey.hops.len(), follow.active()), (0x2000, 1, true));
        follow.stop();
        assert!(!follow.active() && follow.followed().journey.is_some(), "stopped where it was");
    }
}
