//! Turns the GPU's counters into a [`SimReport`] with the definitions of
//! DESIGN §2a (IPC over thread instructions, f_mem averaged over SMs, L2 MPKI
//! per 1,000 thread instructions counting sector misses).

use warplab_config::UnitClass;
use warplab_config::units::N_SPECIALIZED_SLOTS;

use crate::Gpu;
use crate::dram::DramStats;
use crate::ops::{N_UNIT_CLASSES, unit_index};
use crate::report::{
    CacheReport, ChipletReport, DramReport, IssueBreakdown, IssueByPipeline, KernelReport, LatencyBreakdown,
    OutcomeCounts, PipelineIssue, QueueStalls, SimReport, SmReport,
};
use crate::time::Domain;

impl Gpu {
    /// The report of everything simulated so far.
    pub fn report(&self) -> SimReport {
        let cycles = if self.finished() { self.last_cycle } else { self.cycle().0 };
        let per_cycle = |count: u64| if cycles == 0 { 0.0 } else { count as f64 / cycles as f64 };
        // Instructions sampling predicted count as run: the figures stay comparable with a full run's.
        let [predicted_warp, predicted_thread] =
            self.runs.iter().fold([0, 0], |acc, run| [acc[0] + run.predicted[0], acc[1] + run.predicted[1]]);
        let warp_insts: u64 = self.sms.iter().map(|sm| sm.counters.warp_insts).sum::<u64>() + predicted_warp;
        let thread_insts: u64 = self.sms.iter().map(|sm| sm.counters.thread_insts).sum::<u64>() + predicted_thread;
        let mut l1i = OutcomeCounts::default();
        let mut l1d = CacheReport::default();
        let mut issue = IssueBreakdown::default();
        for sm in &self.sms {
            l1i += sm.fetch.stats;
            l1d += &sm.memory.l1_stats;
            issue += sm.issue_counts();
        }
        let mut l2 = CacheReport::default();
        for slice in &self.memory.slices {
            l2 += &slice.stats;
        }
        let l2_misses = l2.reads.misses() + l2.writes.misses() + l2.atomics.misses();
        // Predicted work sends nothing to the L2, so its misses are per the
        // instructions simulated in detail (all of them in a full run).
        let detailed_thread = thread_insts - predicted_thread;
        let l2_mpki = if detailed_thread == 0 { 0.0 } else { l2_misses as f64 * 1000.0 / detailed_thread as f64 };
        let sms: Vec<SmReport> = self.sms.iter().map(|sm| self.sm_report(sm, cycles)).collect();
        let active: Vec<&SmReport> = sms.iter().filter(|sm| sm.active_cycles > 0).collect();
        let f_mem = if active.is_empty() {
            0.0
        } else {
            active.iter().map(|sm| sm.memory_stall_cycles as f64 / sm.active_cycles as f64).sum::<f64>()
                / active.len() as f64
        };
        SimReport {
            cycles,
            warp_insts,
            thread_insts,
            ipc: per_cycle(thread_insts),
            warp_ipc: per_cycle(warp_insts),
            f_mem,
            l2_mpki,
            l1i,
            l1d,
            shmem_bank_conflict_cycles: self.sms.iter().map(|sm| sm.memory.shmem_bank_conflict_cycles).sum(),
            l2,
            dram: self.dram_report(cycles),
            latency_breakdown: self.sms.iter().fold(LatencyBreakdown::default(), |mut sum, sm| {
                sum += &sm.breakdown;
                sum
            }),
            issue_breakdown: issue,
            issued_by_pipeline: self.issue_by_pipeline(),
            mshr_occupancy: self.mshr_occupancy(),
            queue_stalls: self.queue_stalls(),
            kernels: self.kernel_reports(),
            sms,
            diagnostics: self.diagnostics.clone(),
            sampling: self.sampler.as_ref().map(|sampler| sampler.report(|k| self.detailed_insts(k)[0])),
            chiplets: self.chiplet_report(),
        }
    }

    /// Every SM's per-PC counts so far, by kernel and PC, with the opcodes'
    /// names; `None` unless the run counts them. Apart from the report, so
    /// that a report is the same with and without them.
    pub fn per_pc(&self) -> Option<Vec<crate::per_pc::PcStalls>> {
        if !self.options.per_pc {
            return None;
        }
        let name = |kernel: u32, opcode: u16| {
            let names = self.views.get(kernel as usize).map(|view| view.names.as_slice()).unwrap_or_default();
            names.get(usize::from(opcode)).cloned().unwrap_or_default()
        };
        Some(crate::per_pc::rows(self.sms.iter().filter_map(|sm| sm.per_pc.as_ref()), name))
    }

    fn issue_by_pipeline(&self) -> IssueByPipeline {
        let count = |index: usize| {
            self.sms.iter().fold(PipelineIssue::default(), |sum, sm| {
                let [warp_insts, thread_insts] = sm.counters.by_unit[index];
                PipelineIssue { warp_insts: sum.warp_insts + warp_insts, thread_insts: sum.thread_insts + thread_insts }
            })
        };
        let class = |class| count(unit_index(class));
        IssueByPipeline {
            sp: class(UnitClass::Sp),
            int: class(UnitClass::Int),
            dp: class(UnitClass::Dp),
            sfu: class(UnitClass::Sfu),
            tensor: class(UnitClass::Tensor),
            specialized: (1..=N_SPECIALIZED_SLOTS).map(|k| class(UnitClass::Specialized(k))).collect(),
            memory: count(N_UNIT_CLASSES),
        }
    }

    fn sm_report(&self, sm: &crate::sm::Sm, cycles: u64) -> SmReport {
        let c = &sm.counters;
        let slots = u64::from(self.config.cores.max_warps_per_sm().max(1));
        SmReport {
            warp_insts: c.warp_insts,
            thread_insts: c.thread_insts,
            ipc: if cycles == 0 { 0.0 } else { c.thread_insts as f64 / cycles as f64 },
            active_cycles: c.active_cycles,
            achieved_occupancy: if c.active_cycles == 0 {
                0.0
            } else {
                c.resident_warp_cycles as f64 / (c.active_cycles * slots) as f64
            },
            memory_stall_cycles: c.memory_stall_cycles,
            max_resident_ctas: sm.max_resident_ctas,
        }
    }

    fn dram_report(&self, cycles: u64) -> DramReport {
        let mut totals = DramStats::default();
        for channel in &self.memory.channels {
            totals += channel.dram.stats();
        }
        let access_bytes = u64::from(self.config.dram.access_bytes());
        let bytes = (totals.reads + totals.writes) * access_bytes;
        let seconds = cycles as f64 / (self.config.clocks.core.khz() as f64 * 1000.0);
        let bandwidth = if seconds > 0.0 { bytes as f64 / seconds } else { 0.0 };
        let peak = self.config.dram_bandwidth_bytes_per_second() as f64;
        DramReport {
            bytes,
            bandwidth_bytes_per_s: bandwidth,
            bandwidth_utilization: if peak > 0.0 { bandwidth / peak } else { 0.0 },
            row_buffer_hit_rate: if totals.requests == 0 {
                0.0
            } else {
                totals.row_hits as f64 / totals.requests as f64
            },
            totals,
        }
    }

    /// Traffic between chiplets; `None` on a monolithic GPU.
    fn chiplet_report(&self) -> Option<ChipletReport> {
        if !self.config.chiplets.enabled() {
            return None;
        }
        let (requests, replies) = (self.request_network.link_counters(), self.reply_network.link_counters());
        let icnt_cycles = self.clocks.domain_cycles(Domain::Icnt).max(1) as f64;
        let links = f64::from((requests.links + replies.links).max(1));
        let l2_requests = self.request_network.injected();
        Some(ChipletReport {
            chiplets: self.config.chiplets.count,
            l2_requests,
            remote_l2_requests: requests.packets,
            remote_share: if l2_requests == 0 { 0.0 } else { requests.packets as f64 / l2_requests as f64 },
            link_bytes: requests.bytes + replies.bytes,
            link_bandwidth_bytes_per_s: self
                .config
                .chiplets
                .link_bytes_per_second(&self.config.memory, &self.config.clocks)
                as f64,
            link_utilization: (requests.busy_cycles + replies.busy_cycles) as f64 / (links * icnt_cycles),
            busiest_link_utilization: requests.busiest_busy_cycles.max(replies.busiest_busy_cycles) as f64
                / icnt_cycles,
        })
    }

    fn queue_stalls(&self) -> QueueStalls {
        let mut stalls = QueueStalls {
            sm_to_icnt: self.request_network.input_full_stalls(),
            reply_to_icnt: self.reply_network.input_full_stalls(),
            ..QueueStalls::default()
        };
        for slice in &self.memory.slices {
            let [icnt_to_l2, l2_to_dram, dram_to_l2, l2_to_icnt] = slice.queue_stalls();
            stalls.icnt_to_l2 += icnt_to_l2;
            stalls.l2_to_dram += l2_to_dram;
            stalls.dram_to_l2 += dram_to_l2;
            stalls.l2_to_icnt += l2_to_icnt;
        }
        stalls.dram_queue = self.memory.channels.iter().map(|c| c.full_cycles).sum();
        stalls
    }

    fn kernel_reports(&self) -> Vec<KernelReport> {
        self.runs
            .iter()
            .enumerate()
            .map(|(k, run)| {
                let [warp_insts, thread_insts] = self.detailed_insts(k);
                let [warp_insts, thread_insts] = [warp_insts + run.predicted[0], thread_insts + run.predicted[1]];
                let end_cycle = run.end_cycle.unwrap_or(self.cycle().0);
                let span = end_cycle.saturating_sub(run.start_cycle);
                KernelReport {
                    name: run.header.name.clone(),
                    id: run.header.id,
                    stream: run.header.stream_id,
                    start_cycle: run.start_cycle,
                    end_cycle,
                    warp_insts,
                    thread_insts,
                    ipc: if span == 0 { 0.0 } else { thread_insts as f64 / span as f64 },
                    ctas: run.ctas_issued,
                    ctas_per_sm: run.ctas_per_sm,
                    occupancy_limiter: run.limiter.clone(),
                }
            })
            .collect()
    }
}
