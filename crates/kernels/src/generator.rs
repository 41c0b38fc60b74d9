//! The generator registry: each generator's name, what its size and knobs
//! mean, and how it is run from a [`GenSpec`].

use warplab_config::GpuConfig;

use crate::code::{Code, binary_version_for};
use crate::spec::{GenError, GenSpec};
use crate::workload::Workload;

/// One integer parameter of a generator, with its range (the web form's
/// slider) and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knob {
    /// The name `--set` and `--gen` use.
    pub name: &'static str,
    /// What the value means, with its unit.
    pub help: &'static str,
    /// The value when none is given.
    pub default: u64,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value: the documented limit that keeps a run within
    /// memory and time.
    pub max: u64,
}

/// A workload generator.
#[derive(Debug, Clone, Copy)]
pub struct Generator {
    /// Its name (`strided`, `pchase-l2`, ...).
    pub name: &'static str,
    /// One line on what the kernel does.
    pub summary: &'static str,
    /// What `--size N` means; warp instructions grow about linearly with it.
    pub size: Knob,
    /// The knobs `--set` accepts.
    pub knobs: &'static [Knob],
    /// Whether the chosen config (`--for`) changes the workload: the
    /// microbenchmarks size their arrays for a level of its memory hierarchy.
    pub uses_config: bool,
    pub(crate) build: fn(&Params<'_>) -> Result<Workload, GenError>,
}

/// The resolved parameters a generator runs with.
#[derive(Debug, Clone)]
pub struct Params<'a> {
    size: u64,
    values: Vec<(&'static str, u64)>,
    /// The GPU the workload is sized for.
    pub config: &'a GpuConfig,
}

impl Params<'_> {
    /// An empty listing in the SASS of the GPU the workload is for
    /// ([`crate::code::binary_version_for`]).
    pub fn code(&self) -> Code {
        Code::for_binary_version(binary_version_for(self.config.cores.compute_capability))
    }

    /// `--size N`.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The value of knob `name`.
    ///
    /// # Panics
    /// When the generator has no such knob: a bug in its own code.
    pub fn knob(&self, name: &str) -> u64 {
        self.values.iter().find(|(knob, _)| *knob == name).map(|(_, value)| *value).expect("generator knob")
    }
}

impl Generator {
    /// Checks `spec` against this generator's knobs and runs it for `config`.
    ///
    /// # Errors
    /// An unknown knob, a value out of range, or values that do not fit
    /// together.
    pub fn generate(&self, spec: &GenSpec, config: &GpuConfig) -> Result<Workload, GenError> {
        let params = self.params(spec, config)?;
        let mut workload = (self.build)(&params)?;
        workload.name = self.canonical(spec).to_string();
        Ok(workload)
    }

    /// Checks `spec`'s size and knobs against this generator's ranges
    /// without running it (what a share link's workload is checked with
    /// before anything is generated). Knob values that do not fit together
    /// are only found by [`Generator::generate`], which sees the config.
    ///
    /// # Errors
    /// An unknown knob or a value out of range.
    pub fn check(&self, spec: &GenSpec) -> Result<(), GenError> {
        self.values(spec).map(|_| ())
    }

    fn params<'a>(&self, spec: &GenSpec, config: &'a GpuConfig) -> Result<Params<'a>, GenError> {
        let (size, values) = self.values(spec)?;
        Ok(Params { size, values, config })
    }

    /// The size and every knob's value, each checked against its range.
    fn values(&self, spec: &GenSpec) -> Result<(u64, KnobValues), GenError> {
        let size = checked(&self.size, spec.size.unwrap_or(self.size.default))?;
        let mut values: Vec<_> = self.knobs.iter().map(|knob| (knob.name, knob.default)).collect();
        for (name, value) in &spec.knobs {
            let Some(knob) = self.knobs.iter().find(|knob| knob.name == name) else {
                let known = self.knobs.iter().map(|knob| knob.name).collect();
                return Err(GenError::UnknownKnob { kernel: self.name, knob: name.clone(), known });
            };
            let slot = values.iter_mut().find(|(name, _)| *name == knob.name).expect("knob listed above");
            slot.1 = checked(knob, *value)?;
        }
        Ok((size, values))
    }

    /// `spec` in canonical form: the size, then this generator's knobs in its
    /// order, each left out at its default (knobs it lacks are dropped). This
    /// is the name a generated workload carries.
    pub fn canonical(&self, spec: &GenSpec) -> GenSpec {
        let mut canonical = GenSpec::new(self.name);
        for knob in std::iter::once(&self.size).chain(self.knobs) {
            let value = spec.value(knob.name).unwrap_or(knob.default);
            if value != knob.default {
                canonical.set(knob.name, value);
            }
        }
        canonical
    }
}

/// Every knob of a generator with the value it runs with.
type KnobValues = Vec<(&'static str, u64)>;

fn checked(knob: &Knob, value: u64) -> Result<u64, GenError> {
    if (knob.min..=knob.max).contains(&value) {
        Ok(value)
    } else {
        Err(GenError::OutOfRange { knob: knob.name, value, min: knob.min, max: knob.max })
    }
}

/// The generator named `name`.
pub fn generator(name: &str) -> Option<&'static Generator> {
    crate::GENERATORS.iter().find(|generator| generator.name == name)
}

/// Runs `spec` for `config`.
///
/// # Errors
/// An unknown generator or knob, or a value out of range.
pub fn generate(spec: &GenSpec, config: &GpuConfig) -> Result<Workload, GenError> {
    let generator = generator(&spec.kernel).ok_or_else(|| GenError::UnknownKernel { name: spec.kernel.clone() })?;
    generator.generate(spec, config)
}

/// The `size` knob of a generator: `help` says what N counts.
pub(crate) const fn size(help: &'static str, default: u64, max: u64) -> Knob {
    Knob { name: "size", help, default, min: 1, max }
}

/// The `seed` knob of the generators with random data.
pub(crate) const SEED: Knob = Knob {
    name: "seed",
    help: "seed of the input data (same seed, same trace)",
    default: 1,
    min: 0,
    max: u32::MAX as u64,
};

/// The `launches` knob of the generators that can repeat their kernel: the
/// same launch over the same arrays several times in a row, so a workload has
/// many kernels for sampled simulation to choose from. Its default of 1 is
/// the single launch, which a canonical spec leaves out.
pub(crate) const LAUNCHES: Knob = Knob {
    name: "launches",
    help: "identical kernel launches in a row (a multi-kernel workload for sampled simulation)",
    default: 1,
    min: 1,
    max: 64,
};
