//! The scale-model predictor (SeyyedAghaei et al., HPCA 2024): a big GPU's
//! IPC from two proportionally scaled-down ones, their LLC miss-rate curve and
//! f_mem, beside the four baselines. A pure function of published inputs, so
//! it is checked row by row against the paper's reference tool.
//!
//! Two rules, both on the correction factor the two scale models measure
//! (how far doubling the system falls short of doubling IPC):
//! - [`Rule::Reference`], the rule of the tool that produced the published
//!   errors (the default): `b = (IPC_L − 2·IPC_S) / IPC_L`, `cf = 1 + b`; each
//!   doubling `IPC ← IPC · 2 · cf`, then `cf ← cf · (1 + b)`, so the shortfall
//!   compounds; at the cliff `IPC ← IPC · 2 · cf / (1 − f_mem)` and `cf`
//!   restarts at `1 + b`.
//! - [`Rule::Paper`], the single correction the paper prints:
//!   `C = (IPC_L / IPC_S) / (L / S)`; before the cliff `IPC_T = IPC_L · T/L · C`;
//!   at the cliff K `IPC_K = IPC_L · K/L / (1 − f_mem)`; after it
//!   `IPC_T = IPC_K · T/K · C`.

use serde::{Deserialize, Serialize};

use crate::baselines;
use crate::cliff::{self, Cliff};
use crate::error::ScaleError;

/// At most this many sizes (S to S·2^15): a limit on input, not on the method.
pub const MAX_SIZES: usize = 16;

/// A prediction method, with the reference tool's label.
/// Its serialized form is the label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Method {
    /// The scale-model rule (reference or paper).
    #[serde(rename = "Scale-Model")]
    ScaleModel,
    /// `a · x^b` through the scale models.
    PowerLaw,
    /// A straight line through the scale models.
    Linear,
    /// `c + d · ln x` through the scale models.
    Logarithmic,
    /// `IPC_S · x / S`.
    Proportional,
}

impl Method {
    /// Every method, the scale model first.
    pub const ALL: [Self; 5] = [Self::ScaleModel, Self::PowerLaw, Self::Linear, Self::Logarithmic, Self::Proportional];

    /// The label the reference tool and its CSV use.
    pub fn label(self) -> &'static str {
        match self {
            Self::ScaleModel => "Scale-Model",
            Self::PowerLaw => "PowerLaw",
            Self::Linear => "Linear",
            Self::Logarithmic => "Logarithmic",
            Self::Proportional => "Proportional",
        }
    }

    /// The method with this label.
    pub fn from_label(label: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.label() == label)
    }
}

/// Which scale-model rule extrapolates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The reference tool's compounding rule (reproduces the published table).
    #[default]
    Reference,
    /// The single correction factor the paper prints.
    Paper,
}

impl Rule {
    /// Both rules, the reference tool's first.
    pub const ALL: [Self; 2] = [Self::Reference, Self::Paper];

    /// `reference` or `paper`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Reference => "reference",
            Self::Paper => "paper",
        }
    }

    /// The rule named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// What a size is in the series; serialized as the reference CSV spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// One of the two simulated scale models.
    ScaleModel,
    /// Between the scale models and the largest size.
    Intermediate,
    /// The largest size.
    Target,
}

impl Role {
    /// The reference CSV's spelling.
    pub fn label(self) -> &'static str {
        match self {
            Self::ScaleModel => "scale_model",
            Self::Intermediate => "intermediate",
            Self::Target => "target",
        }
    }

    /// The role of size `index` in a series of `n`.
    pub fn of(index: usize, n: usize) -> Self {
        match index {
            0 | 1 => Self::ScaleModel,
            i if i + 1 == n => Self::Target,
            _ => Self::Intermediate,
        }
    }
}

/// The predictor's inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Inputs {
    /// System sizes (SMs or chiplets), each double the last; the first two are the scale models.
    pub sizes: Vec<u32>,
    /// IPC of the two scale models.
    pub ipc: [f64; 2],
    /// LLC MPKI at every size (DESIGN §2a unit). `None`: no miss-rate curve,
    /// as the paper predicts under weak scaling, where each size runs its own
    /// share of the work and the LLC share per SM does not change; then no
    /// cliff is looked for and only the pre-cliff rule extrapolates.
    #[serde(default)]
    pub mpki: Option<Vec<f64>>,
    /// f_mem of the larger scale model, a fraction; needed only at a cliff.
    pub f_mem: Option<f64>,
}

impl Inputs {
    /// Inputs whose sizes are `smallest` doubled once per MPKI value.
    ///
    /// # Errors
    /// As [`predict`], and sizes past `u32`.
    pub fn doubling(smallest: u32, ipc: [f64; 2], mpki: Vec<f64>, f_mem: Option<f64>) -> Result<Self, ScaleError> {
        if mpki.len() > MAX_SIZES {
            return Err(ScaleError::TooManySizes { given: mpki.len() });
        }
        let sizes = (0..mpki.len() as u32).map(|k| smallest.saturating_mul(1 << k)).collect();
        let inputs = Self { sizes, ipc, mpki: Some(mpki), f_mem };
        inputs.check()?;
        Ok(inputs)
    }

    /// Inputs of `count` sizes doubling from `smallest`, without a miss-rate
    /// curve (the paper's weak scaling).
    ///
    /// # Errors
    /// As [`predict`], and sizes past `u32`.
    pub fn without_curve(smallest: u32, count: usize, ipc: [f64; 2]) -> Result<Self, ScaleError> {
        if count > MAX_SIZES {
            return Err(ScaleError::TooManySizes { given: count });
        }
        let sizes = (0..count as u32).map(|k| smallest.saturating_mul(1 << k)).collect();
        let inputs = Self { sizes, ipc, mpki: None, f_mem: None };
        inputs.check()?;
        Ok(inputs)
    }

    fn check(&self) -> Result<(), ScaleError> {
        let sizes = &self.sizes;
        if sizes.len() < 2 {
            return Err(ScaleError::TooFewSizes { given: sizes.len() });
        }
        if sizes.len() > MAX_SIZES {
            return Err(ScaleError::TooManySizes { given: sizes.len() });
        }
        if sizes[0] == 0 {
            return Err(ScaleError::ZeroSize);
        }
        if let Some(w) = sizes.windows(2).find(|w| u64::from(w[1]) != 2 * u64::from(w[0])) {
            return Err(ScaleError::NotDoubling { previous: w[0], size: w[1] });
        }
        let mpki = self.mpki.as_deref().unwrap_or_default();
        if self.mpki.is_some() && mpki.len() != sizes.len() {
            return Err(ScaleError::MpkiCount { sizes: sizes.len(), mpki: mpki.len() });
        }
        if let Some((&size, &value)) = sizes.iter().zip(mpki).find(|(_, m)| !(m.is_finite() && **m >= 0.0)) {
            return Err(ScaleError::BadMpki { size, value });
        }
        if let Some((&size, &value)) = sizes.iter().zip(&self.ipc).find(|(_, v)| !(v.is_finite() && **v > 0.0)) {
            return Err(ScaleError::BadIpc { size, value });
        }
        match self.f_mem {
            Some(value) if !(0.0..1.0).contains(&value) => Err(ScaleError::BadFmem { value }),
            _ => Ok(()),
        }
    }
}

/// One method's IPC at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// The method.
    pub method: Method,
    /// IPC at each size of [`Prediction::sizes`].
    pub ipc: Vec<f64>,
}

/// The predictions of every method at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The sizes, smallest first.
    pub sizes: Vec<u32>,
    /// The scale-model rule used.
    pub rule: Rule,
    /// The cliff the MPKI series shows, if any.
    pub cliff: Option<Cliff>,
    /// The f_mem the cliff formula used (when there is a cliff).
    pub f_mem: Option<f64>,
    /// `b = (IPC_L − 2·IPC_S) / IPC_L`: the shortfall of the second scale model against doubling.
    pub shortfall: f64,
    /// One curve per method, in [`Method::ALL`] order.
    pub curves: Vec<Curve>,
}

/// Why the scale-model rule gives no prediction at a size: on its way
/// there, doubling after doubling, its IPC fell below what the smaller scale
/// model measured, for a GPU with more of every resource, which the method
/// cannot mean (see [`Prediction::no_prediction`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoPrediction {
    /// The rule that extrapolated.
    pub rule: Rule,
    /// The size it was asked for.
    pub size: u32,
    /// The first size at which the rule fell below the smaller scale model.
    pub fails_at: u32,
    /// What the rule computed there.
    pub ipc: f64,
    /// The scale models' sizes, smaller first.
    pub scale_models: [u32; 2],
    /// Their measured IPCs.
    pub measured: [f64; 2],
    /// The rule's correction factor: `1 + b` for the reference rule (it
    /// compounds at every doubling), `C` for the paper's.
    pub correction: f64,
}

impl Prediction {
    /// `method`'s IPC at `size`.
    pub fn ipc(&self, method: Method, size: u32) -> Option<f64> {
        let index = self.sizes.iter().position(|&s| s == size)?;
        self.curves.iter().find(|c| c.method == method).map(|c| c.ipc[index])
    }

    /// The largest size: the target.
    pub fn target(&self) -> u32 {
        self.sizes.last().copied().unwrap_or(0)
    }

    /// Why the scale-model rule gives no prediction at `size`, if it gives
    /// none: at `size` (or, for the reference rule, which compounds, at a
    /// size on the way there) its IPC is below the smaller scale model's
    /// measured IPC, or not a number. A larger GPU
    /// keeps every per-SM resource and scales the shared ones up, so such a
    /// figure is the rule breaking down, not a forecast. It happens when
    /// doubling the scale model barely raised its IPC (one hot L2 slice
    /// serialising every atomic, say): the reference rule's factor
    /// `1 + b = 2 − 2·IPC_S/IPC_L` is then near zero (or negative) and
    /// compounds at every further doubling, so its IPC collapses towards 0.
    ///
    /// ```
    /// use warplab_scale::{Inputs, Rule, predict};
    /// let barely = Inputs { sizes: vec![8, 16, 32, 64, 128], ipc: [9.7, 9.8], mpki: None, f_mem: None };
    /// let prediction = predict(&barely, Rule::Reference).unwrap();
    /// let none = prediction.no_prediction(128).expect("the rule collapses");
    /// assert_eq!(none.fails_at, 32);
    /// assert!(none.ipc < 1.0 && (none.correction - 0.0204).abs() < 1e-3);
    /// let linear = Inputs { ipc: [100.0, 198.0], ..barely };
    /// assert_eq!(predict(&linear, Rule::Reference).unwrap().no_prediction(128), None);
    /// ```
    pub fn no_prediction(&self, size: u32) -> Option<NoPrediction> {
        let curve = self.curves.iter().find(|c| c.method == Method::ScaleModel)?;
        let last = self.sizes.iter().position(|&s| s == size)?;
        let (&[small, large, ..], &[ipc_s, ipc_l, ..]) = (self.sizes.as_slice(), curve.ipc.as_slice()) else {
            return None;
        };
        // The reference rule compounds from size to size, so a collapse on
        // the way carries on to the target; the paper's computes each size
        // on its own.
        let first = match self.rule {
            Rule::Reference => 2,
            Rule::Paper => last,
        };
        let fails = (first.max(2)..=last).find(|&k| !curve.ipc[k].is_finite() || curve.ipc[k] < ipc_s)?;
        let correction = match self.rule {
            Rule::Reference => 1.0 + self.shortfall,
            Rule::Paper => (ipc_l / ipc_s) / (f64::from(large) / f64::from(small)),
        };
        Some(NoPrediction {
            rule: self.rule,
            size,
            fails_at: self.sizes[fails],
            ipc: curve.ipc[fails],
            scale_models: [small, large],
            measured: [ipc_s, ipc_l],
            correction,
        })
    }
}

impl std::fmt::Display for NoPrediction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ([small, large], [ipc_s, ipc_l]) = (self.scale_models, self.measured);
        write!(
            f,
            "doubling the scale model from {small} to {large} SMs raised its IPC only from {ipc_s:.2} to {ipc_l:.2}, "
        )?;
        match self.rule {
            Rule::Reference => write!(
                f,
                "so the reference rule's correction factor 1 + b = {:.3} compounds at every further doubling and takes the IPC at {} SMs to {:.2}",
                self.correction, self.fails_at, self.ipc
            )?,
            Rule::Paper => write!(
                f,
                "and the paper rule's correction C = {:.3} takes the IPC at {} SMs to {:.2}",
                self.correction, self.fails_at, self.ipc
            )?,
        }
        write!(f, ", below what the {small}-SM scale model measured")
    }
}

/// Predicts every size of `inputs` with every method.
///
/// # Errors
/// Fewer than two sizes, sizes that do not double, an MPKI count that does
/// not match, a negative MPKI or a zero one where the cliff test divides by
/// it, a scale-model IPC that is not positive, f_mem outside [0, 1), or a
/// cliff without f_mem.
pub fn predict(inputs: &Inputs, rule: Rule) -> Result<Prediction, ScaleError> {
    inputs.check()?;
    let cliff = match &inputs.mpki {
        Some(mpki) => cliff::detect(&inputs.sizes, mpki)?,
        None => None,
    };
    let f_mem = match cliff {
        Some(c) => Some(inputs.f_mem.ok_or(ScaleError::MissingFmem { from: c.from, to: c.to })?),
        None => None,
    };
    let [ipc_s, ipc_l] = inputs.ipc;
    let small = (f64::from(inputs.sizes[0]), ipc_s);
    let large = (f64::from(inputs.sizes[1]), ipc_l);
    let scale_model = match rule {
        Rule::Reference => reference_rule(inputs, cliff, f_mem.unwrap_or(0.0)),
        Rule::Paper => paper_rule(inputs, cliff, f_mem.unwrap_or(0.0)),
    };
    // The fitted baselines reproduce both inputs exactly, as the tool's lists do.
    let fitted = |f: fn((f64, f64), (f64, f64), f64) -> f64| -> Vec<f64> {
        inputs
            .sizes
            .iter()
            .enumerate()
            .map(|(k, &x)| if k < 2 { inputs.ipc[k] } else { f(small, large, f64::from(x)) })
            .collect()
    };
    let curves = Method::ALL
        .into_iter()
        .map(|method| {
            let ipc = match method {
                Method::ScaleModel => scale_model.clone(),
                Method::PowerLaw => fitted(baselines::power_law),
                Method::Linear => fitted(baselines::linear),
                Method::Logarithmic => fitted(baselines::logarithmic),
                Method::Proportional => {
                    inputs.sizes.iter().map(|&x| baselines::proportional(small, f64::from(x))).collect()
                }
            };
            Curve { method, ipc }
        })
        .collect();
    Ok(Prediction { sizes: inputs.sizes.clone(), rule, cliff, f_mem, shortfall: shortfall(inputs.ipc), curves })
}

/// `b`: how far the second scale model falls short of twice the first, as a
/// fraction of its IPC: negative when it falls short of doubling, positive
/// when it scales super-linearly.
fn shortfall([ipc_s, ipc_l]: [f64; 2]) -> f64 {
    (ipc_l - 2.0 * ipc_s) / ipc_l
}

fn reference_rule(inputs: &Inputs, cliff: Option<Cliff>, f_mem: f64) -> Vec<f64> {
    let b = shortfall(inputs.ipc);
    let mut cf = 1.0 + b;
    let mut out = inputs.ipc.to_vec();
    for k in 2..inputs.sizes.len() {
        let previous = out[k - 1];
        if cliff.is_some_and(|c| c.index == k) {
            out.push(previous * 2.0 * cf * (1.0 / (1.0 - f_mem)));
            cf = 1.0 + b;
        } else {
            out.push(previous * 2.0 * cf);
            cf += cf * b;
        }
    }
    out
}

fn paper_rule(inputs: &Inputs, cliff: Option<Cliff>, f_mem: f64) -> Vec<f64> {
    let [ipc_s, ipc_l] = inputs.ipc;
    let (s, l) = (f64::from(inputs.sizes[0]), f64::from(inputs.sizes[1]));
    let c = (ipc_l / ipc_s) / (l / s);
    let mut out = inputs.ipc.to_vec();
    for k in 2..inputs.sizes.len() {
        let t = f64::from(inputs.sizes[k]);
        let ipc = match cliff {
            Some(cl) if k == cl.index => ipc_l * t / l / (1.0 - f_mem),
            Some(cl) if k > cl.index => out[cl.index] * t / f64::from(cl.to) * c,
            _ => ipc_l * t / l * c,
        };
        out.push(ipc);
    }
    out
}
