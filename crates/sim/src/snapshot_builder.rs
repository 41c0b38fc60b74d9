//! Builds a [`Snapshot`] from the model's state: a read, nothing changes.

use crate::gpu::{Gpu, cta_index};
use crate::sm::Sm;
use crate::snapshot::{CtaSnapshot, LinkSnapshot, NO_CTA, SmSnapshot, Snapshot, WarpSnapshot};

impl Gpu {
    /// The whole GPU now; warp states are what the issue stage would find at
    /// the start of the next cycle.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let now = self.cycle().0;
        Snapshot {
            cycle: now,
            warp_insts: self.sms.iter().map(|sm| sm.counters.warp_insts).sum(),
            thread_insts: self.sms.iter().map(|sm| sm.counters.thread_insts).sum(),
            schedulers_per_sm: self.sms.first().map_or(0, |sm| sm.schedulers.len() as u32),
            sms: self.sms.iter().map(|sm| self.sm_snapshot(sm, now + 1)).collect(),
            request_network: self.request_network.packets_per_output(),
            reply_network: self.reply_network.packets_per_output(),
            slices: self.memory.slices.iter().map(|slice| slice.snapshot()).collect(),
            channels: self.memory.channels.iter().map(|channel| channel.snapshot()).collect(),
            sm_chiplets: if self.config.chiplets.enabled() {
                crate::network::sm_chiplets(&self.config)
            } else {
                Vec::new()
            },
            links: self.link_snapshots(),
        }
    }

    /// Each chiplet's outgoing links, both directions.
    fn link_snapshots(&self) -> Vec<LinkSnapshot> {
        let requests = self.request_network.outgoing_link_depths();
        let replies = self.reply_network.outgoing_link_depths();
        requests.into_iter().zip(replies).map(|(requests, replies)| LinkSnapshot { requests, replies }).collect()
    }

    fn sm_snapshot(&self, sm: &Sm, at: u64) -> SmSnapshot {
        let warps = (0..sm.warps.len())
            .map(|w| {
                let state = sm.warp_state(w, at, &self.views);
                let cta_slot = if sm.warps[w].live { sm.warps[w].cta_slot } else { NO_CTA };
                WarpSnapshot { state, cta_slot }
            })
            .collect();
        let ctas = (0..sm.ctas.len())
            .filter(|&slot| sm.ctas[slot].live)
            .map(|slot| CtaSnapshot {
                slot: slot as u16,
                kernel: sm.ctas[slot].kernel,
                index: cta_index(&self.runs, sm, slot as u16),
                live_warps: sm.ctas[slot].live_warps,
            })
            .collect();
        let miss_queue = sm.memory.miss_queue.depth();
        SmSnapshot {
            warps,
            ctas,
            issued: sm.schedulers.iter().map(|s| s.issued).collect(),
            mshrs_in_use: sm.memory.mshrs_in_use() as u32,
            mshrs: sm.memory.mshr_capacity() as u32,
            miss_queue: miss_queue.len,
            miss_queue_capacity: miss_queue.capacity,
        }
    }
}
