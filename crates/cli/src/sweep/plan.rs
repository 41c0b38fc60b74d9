//! A sweep's plan: the base config as files, the workloads (a trace by its
//! directory and content hash), the varied settings and every point, written
//! to `DIR/plan.json` for `--slurm` so that each array task, or any other
//! scheduler's job, runs its point from the plan alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use warplab_lab::sampling::SamplingOptions;
use warplab_lab::{ContentHash, GpuConfig, ModelKind};

use super::axis::Axis;
use crate::experiment_args::Workload;
use crate::kernel::KernelFile;
use crate::{generated, trace_files};

/// What `plan.json` starts with; a plan of another format is refused.
pub const PLAN_FORMAT: &str = "warplab-sweep-plan 1";

/// The most points one sweep has (workloads × the product of the `--vary`
/// lists), so a typo cannot start a run of days.
pub const MAX_POINTS: usize = 100_000;

/// Everything a point needs, and every point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// [`PLAN_FORMAT`].
    pub format: String,
    /// The base config: its label and the files warplab writes for it.
    pub config: PlannedConfig,
    pub workloads: Vec<PlannedWorkload>,
    /// The varied settings, the first varying slowest.
    pub axes: Vec<Axis>,
    /// The analytical models, by name.
    pub models: Vec<String>,
    /// Whether each point also runs the timing model.
    pub simulate: bool,
    /// How the simulations sample (`mode: off`: full runs).
    pub sampling: SamplingOptions,
    /// Whether a generated workload is made for each point's config; else
    /// once, for the base config, and the same at every point.
    pub size_per_point: bool,
    pub memcpy_warms_l2: bool,
    /// Workloads × values: the workload varies slowest.
    pub points: Vec<PlannedPoint>,
}

/// The base config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedConfig {
    pub label: String,
    /// `(file name, text)`, as `GpuConfig::to_files` writes them.
    pub files: Vec<(String, String)>,
}

/// A workload of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PlannedWorkload {
    /// A generator spec.
    Generated { spec: String },
    /// A trace directory (absolute), as given, and the content hash of its
    /// `kernelslist.g` and kernel files.
    Trace { label: String, dir: PathBuf, hash: String },
    /// An authored kernel: its path as given and its source, kept in the plan
    /// so every point runs the file as it was when the sweep was planned.
    Authored { label: String, source: String },
}

/// One point: its workload, the axes' values, and the content hash of its
/// resolved config (checked when the point runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlannedPoint {
    pub workload: usize,
    pub values: Vec<String>,
    pub config_hash: String,
}

impl PlannedWorkload {
    /// The workload from `--gen TEXT`, checked against its generator.
    pub fn generated(text: &str) -> Result<Self, String> {
        let spec = generated::spec(text, None, &[]).map_err(|e| format!("--gen {text}: {e}"))?;
        let generator =
            warplab_lab::generator(&spec.kernel).ok_or_else(|| format!("--gen {text}: no such generator"))?;
        generator.check(&spec).map_err(|e| format!("--gen {text}: {e}"))?;
        Ok(PlannedWorkload::Generated { spec: spec.to_string() })
    }

    /// The trace at `path`, hashed now.
    pub fn trace(path: &Path) -> Result<Self, String> {
        let (dir, list) = trace_files::list_of(path)?;
        let dir = std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let hash = trace_hash(&dir, &list)?;
        Ok(PlannedWorkload::Trace { label: path.display().to_string(), dir, hash: String::from(hash) })
    }

    /// The authored kernel at `path`, read now.
    pub fn authored(path: &Path) -> Result<Self, String> {
        let file = KernelFile::read(path)?;
        Ok(PlannedWorkload::Authored { label: file.name.clone(), source: file.text().to_owned() })
    }

    /// Its CSV label: the spec, or the trace or kernel path as given.
    pub fn label(&self) -> &str {
        match self {
            PlannedWorkload::Generated { spec } => spec,
            PlannedWorkload::Trace { label, .. } | PlannedWorkload::Authored { label, .. } => label,
        }
    }

    /// The workload to profile and simulate; a trace is checked against its
    /// hash first, so a point never runs a trace that changed since the plan.
    pub fn resolve(&self) -> Result<Workload, String> {
        match self {
            PlannedWorkload::Generated { spec } => Ok(Workload::Generated(generated::spec(spec, None, &[])?)),
            PlannedWorkload::Trace { label, dir, hash } => {
                let (dir, list) = trace_files::list_of(dir)?;
                let found = String::from(trace_hash(&dir, &list)?);
                if &found != hash {
                    return Err(format!(
                        "{}: the trace's content hash is {found}, the plan's {hash}: the files changed since the sweep was planned",
                        dir.display()
                    ));
                }
                Ok(Workload::Trace { label: label.clone(), dir, list })
            }
            PlannedWorkload::Authored { label, source } => {
                Ok(Workload::Authored(KernelFile::new(label.clone(), source.clone())))
            }
        }
    }
}

/// The content hash of a trace's `kernelslist.g` and kernel files.
fn trace_hash(dir: &Path, list: &str) -> Result<ContentHash, String> {
    let names = warplab_lab::trace_hash_files(list).map_err(|e| format!("{}: {e}", dir.display()))?;
    crate::experiment::hash_files(names.into_iter().map(|name| (name.clone(), dir.join(name))))
}

/// The content hash of a config's files.
pub fn config_hash(config: &GpuConfig) -> String {
    let files: Vec<(String, Vec<u8>)> =
        config.to_files().into_iter().map(|(name, text)| (name, text.into_bytes())).collect();
    String::from(ContentHash::of_files(&files))
}

impl Plan {
    /// The base config, read back from the plan's files.
    pub fn base_config(&self) -> Result<GpuConfig, String> {
        warplab_lab::read_config_files(&self.config.files).map_err(|e| format!("the plan's config: {e}"))
    }

    /// The plan's models, in its order.
    pub fn models(&self) -> Result<Vec<ModelKind>, String> {
        self.models.iter().map(|name| name.parse::<ModelKind>()).collect()
    }

    /// Point `index`'s config: the base with the axes' values applied in
    /// order, checked against the hash the plan recorded.
    pub fn config_at(&self, base: &GpuConfig, index: usize) -> Result<GpuConfig, String> {
        let point =
            self.points.get(index).ok_or_else(|| format!("point {index}: the plan has {}", self.points.len()))?;
        let config = self.resolve(base, &point.values)?;
        let hash = config_hash(&config);
        if hash != point.config_hash {
            return Err(format!(
                "point {index}: its config now reads to content hash {hash}, the plan's is {}: a different warplab made the plan",
                point.config_hash
            ));
        }
        Ok(config)
    }

    /// `base` with the axes set to `values`.
    pub fn resolve(&self, base: &GpuConfig, values: &[String]) -> Result<GpuConfig, String> {
        let edits: Vec<_> = self.axes.iter().zip(values).map(|(axis, value)| axis.edit(value)).collect();
        warplab_lab::apply_edits(base, &edits).map_err(|e| {
            let settings: Vec<String> =
                self.axes.iter().zip(values).map(|(a, v)| format!("{}={v}", a.name())).collect();
            format!("{}: {e}", settings.join(" "))
        })
    }

    /// Lists the points, workloads slowest, then the axes in order, and
    /// resolves each one's config: a combination the config reader refuses
    /// fails here, before any work. Returns the configs too.
    pub fn enumerate(&mut self, base: &GpuConfig) -> Result<Vec<GpuConfig>, String> {
        let combinations = self.axes.iter().try_fold(1usize, |n, axis| n.checked_mul(axis.values.len()));
        let total = combinations.and_then(|n| n.checked_mul(self.workloads.len())).unwrap_or(usize::MAX);
        if total > MAX_POINTS {
            return Err(format!("{total} points (workloads × the product of the --vary lists); at most {MAX_POINTS}"));
        }
        let combinations = combinations.unwrap_or(0);
        let mut configs = Vec::with_capacity(combinations);
        let mut hashes = Vec::with_capacity(combinations);
        for combination in 0..combinations {
            let config = self.resolve(base, &self.values(combination))?;
            hashes.push(config_hash(&config));
            configs.push(config);
        }
        self.points = (0..self.workloads.len())
            .flat_map(|workload| (0..combinations).map(move |combination| (workload, combination)))
            .map(|(workload, c)| PlannedPoint { workload, values: self.values(c), config_hash: hashes[c].clone() })
            .collect();
        Ok((0..self.workloads.len()).flat_map(|_| configs.iter().cloned()).collect())
    }

    /// Combination `index` of the axes' values, the first axis slowest.
    fn values(&self, index: usize) -> Vec<String> {
        let mut rest = index;
        let mut values = vec![String::new(); self.axes.len()];
        for (slot, axis) in values.iter_mut().zip(&self.axes).rev() {
            *slot = axis.values[rest % axis.values.len()].clone();
            rest /= axis.values.len();
        }
        values
    }

    /// Reads `DIR/plan.json`.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join("plan.json");
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let plan: Plan = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if plan.format != PLAN_FORMAT {
            return Err(format!("{}: format `{}`, this warplab reads `{PLAN_FORMAT}`", path.display(), plan.format));
        }
        plan.check().map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(plan)
    }

    /// What a plan written by hand (or damaged) could get wrong and the
    /// sweep would index by: every axis has values, and every point names a
    /// workload of the plan and a value for each axis.
    fn check(&self) -> Result<(), String> {
        self.models()?;
        if let Some(axis) = self.axes.iter().find(|axis| axis.values.is_empty()) {
            return Err(format!("axis `{}` has no values", axis.name()));
        }
        if self.points.len() > MAX_POINTS {
            return Err(format!("{} points; at most {MAX_POINTS}", self.points.len()));
        }
        for (index, point) in self.points.iter().enumerate() {
            if point.workload >= self.workloads.len() {
                return Err(format!("point {index}: workload {} of {}", point.workload, self.workloads.len()));
            }
            if point.values.len() != self.axes.len() {
                return Err(format!("point {index}: {} values for {} axes", point.values.len(), self.axes.len()));
            }
        }
        Ok(())
    }

    /// The plan as `plan.json` holds it.
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map(|text| text + "\n").map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::axis;

    pub(crate) fn plan(varies: &[&str]) -> (Plan, Vec<GpuConfig>) {
        let (label, base) = warplab_lab::preset_config("QV100").unwrap();
        let axes = varies.iter().map(|text| axis::parse(text, &base, false).unwrap()).collect();
        let workloads = vec![PlannedWorkload::generated("vecadd:size=1").unwrap()];
        let mut plan = Plan {
            format: PLAN_FORMAT.to_owned(),
            config: PlannedConfig { label: label.to_owned(), files: base.to_files() },
            workloads: [workloads.clone(), vec![PlannedWorkload::generated("bfs:size=1").unwrap()]].concat(),
            axes,
            models: vec!["mdm".to_owned()],
            simulate: false,
            sampling: SamplingOptions::default(),
            size_per_point: false,
            memcpy_warms_l2: false,
            points: Vec::new(),
        };
        let configs = plan.enumerate(&base).unwrap();
        (plan, configs)
    }

    #[test]
    fn points_are_workloads_then_the_axes_first_slowest() {
        let (plan, configs) = plan(&["l1_mshrs=32,64", "-gpgpu_scheduler=gto,lrr,old"]);
        assert_eq!(plan.points.len(), 12);
        assert_eq!(configs.len(), 12);
        assert_eq!(plan.points[1].values, ["32", "lrr"]);
        assert_eq!(plan.points[3].values, ["64", "gto"]);
        assert_eq!((plan.points[6].workload, plan.points[6].values.clone()), (1, vec!["32".into(), "gto".into()]));
        let base = plan.base_config().unwrap();
        assert_eq!(plan.config_at(&base, 4).unwrap(), configs[4], "a point's config reads back from the plan");
        let json = plan.to_json().unwrap();
        assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
    }

    #[test]
    fn a_damaged_plan_is_an_error_naming_the_file_not_a_panic() {
        let (plan, _) = plan(&["l1_mshrs=32,64"]);
        let dir = std::env::temp_dir().join(format!("warplab-plan-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut bad_workload = plan.clone();
        bad_workload.points[1].workload = 7;
        let mut bad_values = plan.clone();
        bad_values.points[0].values.pop();
        let mut no_values = plan.clone();
        no_values.axes[0].values.clear();
        for (broken, says) in
            [(bad_workload, "workload 7 of 2"), (bad_values, "0 values for 1 axes"), (no_values, "no values")]
        {
            std::fs::write(dir.join("plan.json"), broken.to_json().unwrap()).unwrap();
            let error = Plan::read(&dir).unwrap_err();
            assert!(error.contains("plan.json") && error.contains(says), "{error}");
        }
        std::fs::write(dir.join("plan.json"), "{\"format\": 1").unwrap();
        assert!(Plan::read(&dir).unwrap_err().contains("plan.json"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
