//! Where the GPU meets the sampler (`crate::sampling`): a kernel's launch
//! decision, the CTAs it predicts instead of simulating, and the SMs'
//! records of what ran in detail.
//!
//! A predicted CTA only holds its SM's resources (threads, registers, shared
//! memory, warps, a CTA slot) from its launch to the end the sampler gives
//! it; the central CTA scheduler treats it like any other CTA, so launch
//! order, occupancy and waves stay those of the detailed model.

use std::cmp::Reverse;

use crate::Gpu;
use crate::gpu::KernelRun;
use crate::sampling::sampler::{Grid, Launch, Sampler};
use crate::source::KernelSource;

/// A predicted CTA in flight: its end cycle, SM and kernel launch index
/// (ordered by end, so the heap's top ends first).
pub(crate) type PredictedCta = Reverse<(u64, u32, u32)>;

impl Gpu {
    /// Gives the sampler kernel `run`'s source at its launch at `now`: the
    /// kernel is simulated (the source comes back with its sample read
    /// ahead) or reused, ending after the cycles the sampler says.
    pub(crate) fn sample_launch(&mut self, run: &mut KernelRun, source: Box<dyn KernelSource>, now: u64) {
        let Some(sampler) = &mut self.sampler else {
            run.source = Some(source);
            return;
        };
        let warps_per_cta = u64::from(run.needs.warps);
        let grid = Grid {
            ctas: run.header.grid.size(),
            warps_per_cta,
            capacity_warps: u64::from(run.ctas_per_sm) * self.sms.len() as u64 * warps_per_cta,
        };
        match sampler.launch(source, grid) {
            Launch::Simulate(source) => run.source = Some(source),
            Launch::Reuse { cycles, warp_insts, thread_insts } => {
                run.ends_at = Some(now + cycles);
                run.predicted = [warp_insts, thread_insts];
            }
        }
    }

    /// Whether kernel launch `r`'s next CTA is predicted rather than simulated.
    pub(crate) fn predicts(&self, r: usize) -> bool {
        self.sampler.as_ref().is_some_and(|sampler| sampler.predicts(r))
    }

    /// Launches kernel `r`'s next CTA on SM `s` as a predicted CTA.
    pub(crate) fn launch_predicted(&mut self, s: usize, r: usize, now: u64) {
        let (Some(sampler), Some(source)) = (&mut self.sampler, self.runs[r].source.as_mut()) else { return };
        match sampler.predict_next(r, source.as_mut()) {
            Ok(Some(cta)) => {
                let run = &mut self.runs[r];
                run.ctas_issued += 1;
                run.predicted[0] += cta.warp_insts;
                run.predicted[1] += cta.thread_insts;
                self.sms[s].hold_predicted(run.needs);
                self.predicted_ctas.push(Reverse((now + cta.cycles, s as u32, r as u32)));
                self.next_sm = (s + 1) % self.sms.len();
            }
            Ok(None) => self.close_source(r),
            Err(message) => {
                self.diagnostics.push(message);
                self.close_source(r);
            }
        }
    }

    /// Ends the predicted CTAs due by `now`, freeing their resources.
    pub(crate) fn end_predicted(&mut self, now: u64) {
        while let Some(&Reverse((end, s, r))) = self.predicted_ctas.peek() {
            if end > now {
                break;
            }
            self.predicted_ctas.pop();
            let run = &mut self.runs[r as usize];
            run.ctas_done += 1;
            self.sms[s as usize].release_predicted(run.needs);
            self.launch_candidates.insert(s as usize);
            self.flush_candidates.insert(s as usize);
        }
    }

    /// The first cycle a predicted CTA or a reused kernel ends (`u64::MAX`: none).
    pub(crate) fn next_predicted_end(&self) -> u64 {
        let cta = self.predicted_ctas.peek().map_or(u64::MAX, |Reverse((end, ..))| *end);
        let kernel = self.runs.iter().filter(|run| run.end_cycle.is_none()).filter_map(|run| run.ends_at).min();
        cta.min(kernel.unwrap_or(u64::MAX))
    }

    /// Warp and thread instructions kernel launch `k` ran in detail.
    pub(crate) fn detailed_insts(&self, k: usize) -> [u64; 2] {
        self.sms
            .iter()
            .filter_map(|sm| sm.counters.by_kernel.get(k))
            .fold([0, 0], |acc, c| [acc[0] + c[0], acc[1] + c[1]])
    }

    /// Tells the sampler that kernel launch `k` ended at `now`.
    pub(crate) fn sample_ended(&mut self, k: usize, now: u64) {
        let [_, detailed] = self.detailed_insts(k);
        let run = &self.runs[k];
        let (thread_insts, cycles) = (detailed + run.predicted[1], now - run.start_cycle);
        if let Some(sampler) = &mut self.sampler {
            sampler.ended(k, thread_insts, cycles);
        }
    }
}

/// A sampler for `options`, or none when sampling is off.
pub(crate) fn sampler_for(options: &crate::SimOptions) -> Option<Sampler> {
    (options.sampling.mode != crate::sampling::SampleMode::Off).then(|| Sampler::new(options.sampling))
}
