//! Running a sweep's points: each point's analytical models (from a profile
//! shared by every point whose config agrees on what the profile reads) and,
//! when asked, its simulation, on as many threads as `--jobs` gives, with
//! the results in point order whatever the number.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use warplab_lab::{GpuConfig, Machine, ModelKind, Profile, ProfileKey, ProfileOptions, SimOptions};

use super::plan::Plan;
use super::progress::Progress;
use crate::experiment_args::Workload;

/// What one point gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointResult {
    pub index: usize,
    pub outcome: Outcome,
}

/// A point's figures, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    Done {
        /// Each model's IPC in the plan's order (`None`: not a finite number).
        ipc: Vec<Option<Exact>>,
        simulated: Option<Simulated>,
    },
    Failed {
        error: String,
    },
}

/// The timing model's figures at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Simulated {
    pub ipc: Exact,
    pub cycles: u64,
    /// Host seconds the simulation took (the one figure that differs between runs).
    pub wall_s: f64,
}

/// A figure in a point file, written as the text of its shortest exact
/// decimal form: a JSON number would be read back by serde_json's fast
/// parser, which can miss the last bit, and the collected CSV must equal
/// the local run's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exact(pub f64);

impl Serialize for Exact {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map(Exact).map_err(|_| serde::de::Error::custom(format!("`{text}` is not a number")))
    }
}

/// A plan made ready to run: its base config, workloads and models resolved.
pub struct Sweeper<'p> {
    pub plan: &'p Plan,
    base: GpuConfig,
    workloads: Vec<Result<Workload, String>>,
    models: Vec<ModelKind>,
}

/// One piece of a sweep's work, by point index.
enum Task {
    /// The profile of the group of points whose first this is.
    Profile(usize),
    Simulate(usize),
}

/// A task's result.
enum Done {
    Profiled(usize, Result<Profile, String>),
    Simulated(usize, Result<Simulated, String>),
}

/// Which points can share a profile: the same workload, and configs with
/// the same [`ProfileKey`]; a workload generated for each point's config
/// shares only with identical configs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum ReuseKey {
    Shared(usize, ProfileKey),
    Own(usize, String),
}

impl<'p> Sweeper<'p> {
    /// Resolves `plan`; a workload that cannot be read fails only its points.
    pub fn new(plan: &'p Plan) -> Result<Self, String> {
        Ok(Self {
            base: plan.base_config()?,
            workloads: plan.workloads.iter().map(|w| w.resolve()).collect(),
            models: plan.models()?,
            plan,
        })
    }

    /// Point `index` alone: its config, profile, models and simulation.
    pub fn run_one(&self, index: usize) -> PointResult {
        let outcome = (|| {
            let config = self.plan.config_at(&self.base, index)?;
            let profile = self.profile(index, &config);
            let simulated = self.plan.simulate.then(|| self.simulate(index, &config));
            self.outcome(&config, &profile, simulated)
        })();
        PointResult { index, outcome: outcome.unwrap_or_else(|error| Outcome::Failed { error }) }
    }

    /// Every point, on `jobs` threads; `configs` are the points' configs
    /// (`Plan::enumerate`). The work is one task per simulation and per
    /// profile (one per [`ReuseKey`]), the simulations first since they are
    /// the long ones, each task taken by whichever thread is free; the
    /// models, microseconds each, then run on the results in point order.
    /// Returns the results and how many profiles were made.
    pub fn run_all(&self, configs: &[GpuConfig], jobs: usize) -> Result<(Vec<PointResult>, usize), String> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| e.to_string())?;
        let keys: Vec<ReuseKey> = (0..configs.len()).map(|i| self.reuse_key(i, &configs[i])).collect();
        let mut first_of: HashMap<&ReuseKey, usize> = HashMap::new();
        for (index, key) in keys.iter().enumerate() {
            first_of.entry(key).or_insert(index);
        }
        let mut profiled: Vec<usize> = first_of.values().copied().collect();
        profiled.sort_unstable();
        let n_profiles = profiled.len();
        let simulated = if self.plan.simulate { 0..configs.len() } else { 0..0 };
        let tasks: Vec<Task> = simulated.map(Task::Simulate).chain(profiled.into_iter().map(Task::Profile)).collect();
        let progress = Mutex::new(Progress::new(tasks.len()));
        let done: Vec<Done> = pool.install(|| {
            let run = |task: &Task| {
                let done = match *task {
                    Task::Simulate(i) => Done::Simulated(i, self.simulate(i, &configs[i])),
                    Task::Profile(i) => Done::Profiled(i, self.profile(i, &configs[i])),
                };
                progress.lock().map(|mut p| p.step()).ok();
                done
            };
            tasks.par_iter().with_max_len(1).map(run).collect()
        });
        let mut profiles: HashMap<usize, Result<Profile, String>> = HashMap::new();
        let mut simulations: HashMap<usize, Result<Simulated, String>> = HashMap::new();
        for task in done {
            match task {
                Done::Profiled(i, profile) => {
                    profiles.insert(i, profile);
                }
                Done::Simulated(i, simulation) => {
                    simulations.insert(i, simulation);
                }
            }
        }
        let results = (0..configs.len())
            .map(|index| {
                let profile = &profiles[&first_of[&keys[index]]];
                let outcome = self.outcome(&configs[index], profile, simulations.remove(&index));
                PointResult { index, outcome: outcome.unwrap_or_else(|error| Outcome::Failed { error }) }
            })
            .collect();
        Ok((results, n_profiles))
    }

    fn reuse_key(&self, index: usize, config: &GpuConfig) -> ReuseKey {
        let workload = self.plan.points[index].workload;
        if self.plan.size_per_point {
            ReuseKey::Own(workload, self.plan.points[index].config_hash.clone())
        } else {
            ReuseKey::Shared(workload, ProfileKey::of(config))
        }
    }

    fn workload(&self, index: usize) -> Result<&Workload, String> {
        self.workloads[self.plan.points[index].workload].as_ref().map_err(Clone::clone)
    }

    /// The config a generated workload is made for at a point: the base
    /// config unless each point's own was asked for.
    fn generated_for<'c>(&'c self, config: &'c GpuConfig) -> &'c GpuConfig {
        if self.plan.size_per_point { config } else { &self.base }
    }

    fn profile(&self, index: usize, config: &GpuConfig) -> Result<Profile, String> {
        let workload = self.workload(index)?;
        let options = ProfileOptions { memcpy_warms_l2: self.plan.memcpy_warms_l2 };
        let mut source = workload.source(self.generated_for(config))?;
        warplab_lab::profile_workload(config, &mut *source, options).map_err(|e| workload.context(e))
    }

    /// A point's outcome from its profile and, when the plan simulates, its
    /// simulation: the first error, else each model's IPC beside the simulation.
    fn outcome(
        &self,
        config: &GpuConfig,
        profile: &Result<Profile, String>,
        simulated: Option<Result<Simulated, String>>,
    ) -> Result<Outcome, String> {
        let profile = profile.as_ref().map_err(Clone::clone)?;
        let simulated = simulated.transpose()?;
        let machine = Machine::of(config);
        let ipc = (self.models.iter())
            .map(|&m| Some(warplab_lab::predict_model(profile, &machine, m).ipc).filter(|v| v.is_finite()).map(Exact))
            .collect();
        Ok(Outcome::Done { ipc, simulated })
    }

    fn simulate(&self, index: usize, config: &GpuConfig) -> Result<Simulated, String> {
        let workload = self.workload(index)?;
        let options = SimOptions {
            memcpy_warms_l2: self.plan.memcpy_warms_l2,
            sampling: self.plan.sampling,
            threads: 1,
            ..SimOptions::default()
        };
        let started = Instant::now();
        let report =
            warplab_lab::simulate_workload(config, options, &mut *workload.source(self.generated_for(config))?);
        Ok(Simulated { ipc: Exact(report.ipc), cycles: report.cycles, wall_s: started.elapsed().as_secs_f64() })
    }
}
