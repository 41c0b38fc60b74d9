//! The spec parser and the generators never panic on what a user can type:
//! arbitrary text either parses or is an error, a parsed spec prints back to
//! itself, and any knob values inside their ranges either generate a
//! workload whose CTAs can be produced or are refused with a message.

use proptest::prelude::*;
use warplab_kernels::{GENERATORS, GenError, GenSpec, generate};

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_text_parses_or_is_an_error(text in "\\PC{0,80}|[a-z0-9-]{1,12}(:([a-z]{1,6}=[0-9kKmMx_]{0,8},?){0,4})?") {
        if let Ok(spec) = text.parse::<GenSpec>() {
            prop_assert_eq!(spec.to_string().parse::<GenSpec>(), Ok(spec));
        }
    }
}

/// A spec for generator `index` with every knob at a point `picks` chooses
/// inside its range (small sizes: the property is about knob values).
fn spec(index: usize, picks: &[u64]) -> GenSpec {
    let generator = &GENERATORS[index % GENERATORS.len()];
    let mut spec = GenSpec::new(generator.name);
    spec.size = Some(1 + picks[0] % 2);
    for (knob, pick) in generator.knobs.iter().zip(&picks[1..]) {
        // Mostly the ends and the default, where limits bite; sometimes anywhere.
        let value = match pick % 5 {
            0 => knob.min,
            1 => knob.max.min(knob.min.max(knob.default) * 4),
            2 => knob.default,
            _ => knob.min + pick % (knob.max - knob.min + 1),
        };
        spec.set(knob.name, value);
    }
    spec
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn knob_values_in_range_generate_or_are_refused(index in 0usize..64, picks in prop::collection::vec(any::<u64>(), 8)) {
        let config = warplab_config::default_preset().config().unwrap();
        let spec = spec(index, &picks);
        match generate(&spec, &config) {
            Ok(workload) => {
                prop_assert!(workload.estimated_warp_insts() > 0, "{spec}");
                let mut cta = warplab_trace::Cta::default();
                for kernel in workload.kernels() {
                    kernel.fill_cta(kernel.cta_count() - 1, &mut cta);
                    prop_assert!(!cta.warps.is_empty(), "{spec}");
                }
            }
            Err(GenError::Inconsistent(message)) => prop_assert!(!message.is_empty()),
            Err(other) => prop_assert!(false, "{spec}: in-range knobs refused as {other}"),
        }
    }
}
