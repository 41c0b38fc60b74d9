//! `use_baseline_worker`: the three IPCs of a baseline a link carried,
//! computed in a worker of their own so the page's own experiment loads and
//! runs meanwhile.
//!
//! A baseline pinned on the page keeps the figures shown when it was
//! pinned; one that arrives in a link has only its experiment, so this
//! worker loads it (config with edits, workload), simulates it at full
//! speed, analyzes it, and predicts its own size with the scale models,
//! each figure reported as it arrives.

use std::rc::Rc;

use warplab_lab::scale::Method;
use warplab_lab::{ConfigChoice, Experiment as Shared, HEADLINE, ModelKind, SAMPLE_TRACES, WorkloadChoice};
use yew::prelude::*;

use crate::agent::{ScalePart, ScaleRequest, WorkerInput, WorkerOutput};
use crate::baseline::Figures;
use crate::fetch::page_url;
use crate::hooks::{LabWorkerHandle, Spawn, use_lab_worker};

/// One figure of the baseline, as the worker computed it.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineFigure {
    /// The baseline it belongs to.
    pub experiment: Rc<Shared>,
    /// The figures known so far (the others `None`).
    pub figures: Figures,
}

/// Computes baselines; clone freely.
#[derive(Clone, PartialEq)]
pub struct BaselineWorker {
    worker: LabWorkerHandle,
    current: Rc<std::cell::RefCell<Option<Rc<Shared>>>>,
}

impl BaselineWorker {
    /// Loads and computes `experiment`'s figures; earlier requests' answers
    /// are dropped once this one is asked. Returns why it cannot be
    /// computed (files a link cannot carry).
    pub fn compute(&self, experiment: &Shared, asset_base: &str) -> Result<(), String> {
        let ConfigChoice::Preset(name) = &experiment.config else {
            return Err("the baseline's config comes from files".to_owned());
        };
        let workload = match &experiment.workload {
            WorkloadChoice::Generated(spec) => WorkerInput::Generate { spec: spec.clone(), summarize: false },
            WorkloadChoice::Sample(sample) => {
                let found = SAMPLE_TRACES.iter().find(|s| s.name == sample);
                let dir = found.map(|s| s.dir).ok_or_else(|| format!("no sample trace is called {sample}"))?;
                WorkerInput::LoadSample { name: sample.clone(), dir_url: page_url(&format!("{asset_base}{dir}/"))? }
            }
            WorkloadChoice::Trace { .. } => return Err("the baseline's trace comes from files".to_owned()),
            WorkloadChoice::Kernel { name, source } => {
                WorkerInput::Compile { file: name.clone(), source: source.clone() }
            }
        };
        *self.current.borrow_mut() = Some(Rc::new(experiment.clone()));
        self.worker.send(WorkerInput::LoadPreset { name: name.clone(), edits: experiment.edits.clone() });
        self.worker.send(workload);
        let memcpy_warms_l2 = experiment.memcpy_warms_l2;
        self.worker.send(WorkerInput::Run { speed: 0, watch: 0, memcpy_warms_l2, sampling: experiment.sampling });
        self.worker.send(WorkerInput::Analyze { memcpy_warms_l2 });
        // Its own worker: the plan is of the config just sent.
        self.worker.send(WorkerInput::PlanScale { scale_models: experiment.scale.scale_models, config: 0 });
        Ok(())
    }
}

/// Spawns the baseline worker; `on_figure` hears each figure it computes.
#[hook]
pub fn use_baseline_worker(worker_url: AttrValue, on_figure: Callback<BaselineFigure>) -> BaselineWorker {
    let current = use_mut_ref(|| None::<Rc<Shared>>);
    let sender = use_mut_ref(|| None::<LabWorkerHandle>);
    let on_output = {
        let (current, sender) = (current.clone(), sender.clone());
        Callback::from(move |output: WorkerOutput| {
            let Some(experiment) = current.borrow().clone() else { return };
            let figures = match output {
                WorkerOutput::RunReport(report) => Figures { simulated: Some(report.ipc), ..Figures::default() },
                WorkerOutput::Analyzed(analysis) => Figures {
                    analytical: analysis.report.models.get(&HEADLINE).map(|headline| headline.ipc),
                    mdm: analysis.report.models.get(&ModelKind::Mdm).map(|mdm| mdm.ipc),
                    ..Figures::default()
                },
                WorkerOutput::ScalePlanned(setup) if setup.error.is_none() => {
                    let request = ScaleRequest {
                        scale_models: setup.scale_models,
                        targets: vec![experiment.scale.target_sms.unwrap_or(setup.target_sms)],
                        rule: experiment.scale.rule,
                        validate: false,
                        weak: experiment.scale.weak,
                        memcpy_warms_l2: experiment.memcpy_warms_l2,
                        progress_channel: String::new(),
                        part: ScalePart::Whole,
                    };
                    if let Some(worker) = sender.borrow().as_ref() {
                        worker.send(WorkerInput::Scale(request));
                    }
                    return;
                }
                WorkerOutput::Scaled(report) => {
                    let (prediction, target) = (report.prediction(), report.prediction().target());
                    // As the strip: a rule that gives no prediction has no figure.
                    let scale = prediction
                        .ipc(Method::ScaleModel, target)
                        .filter(|_| prediction.no_prediction(target).is_none());
                    Figures { scale, ..Figures::default() }
                }
                _ => return,
            };
            on_figure.emit(BaselineFigure { experiment, figures });
        })
    };
    let worker = use_lab_worker(worker_url, Spawn::AtFirstInput, on_output);
    *sender.borrow_mut() = Some(worker.clone());
    BaselineWorker { worker, current }
}
