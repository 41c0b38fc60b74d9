//! The share-link codec and the experiment file: every field round-trips,
//! the pinned link of every version still opens, and every way a link can
//! be wrong is refused with a message, natively and in the browser.

mod gtx1080;

use warplab_lab::sampling::SampleMode;
use warplab_lab::scale::Rule;
use warplab_lab::{
    ConfigChoice, ConfigEdit, ContentHash, Experiment, GenSpec, LINK_VERSION, LinkError, MAX_EDITS, MAX_JSON_BYTES,
    MAX_KERNEL_SOURCE_BYTES, MAX_LINK_BYTES, ScaleChoice, ViewState, WorkloadChoice, decode_link, encode_link,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

/// An experiment with every field away from its default, and a baseline
/// that names the user's files.
fn everything() -> Experiment {
    let mut spec = GenSpec::new("strided");
    spec.size = Some(16);
    spec.set("gs", 32);
    let mut experiment = Experiment::new("SM7_QV100", WorkloadChoice::Generated(spec));
    experiment.edits = vec![
        ConfigEdit::Knob { name: "l1_mshrs".to_owned(), value: 64.0 },
        ConfigEdit::Option { name: "-gpgpu_scheduler".to_owned(), value: "lrr".to_owned() },
        ConfigEdit::Knob { name: "noc_bw_scale".to_owned(), value: 0.5 },
    ];
    experiment.memcpy_warms_l2 = true;
    experiment.sampling = SampleMode::Photon;
    experiment.scale = ScaleChoice {
        scale_models: Some([10, 20]),
        rule: Rule::Paper,
        validate: true,
        target_sms: Some(40),
        weak: true,
    };
    experiment.view = ViewState { watch_sm: 79, speed: 2000, paper_models_only: true, replay_speed: 500 };
    let mut baseline = Experiment::new(
        "SM7_QV100",
        WorkloadChoice::Trace { name: "my trace".to_owned(), hash: ContentHash(0x0123_4567_89ab_cdef) },
    );
    baseline.config = ConfigChoice::Files { name: "gpgpusim.config".to_owned(), hash: ContentHash(u64::MAX) };
    baseline.edits = vec![ConfigEdit::Option { name: "-gpgpu_n_clusters".to_owned(), value: "\"4\"".to_owned() }];
    baseline.view.watch_sm = 1000;
    experiment.baseline = Some(Box::new(baseline));
    experiment
}

/// `everything()` with an authored kernel as its workload (link version 6),
/// so with strong scaling: weak scaling grows a generated workload only.
fn authored() -> Experiment {
    let source = include_str!("../../cuda/examples/vecadd.cu").to_owned();
    let mut experiment = everything();
    experiment.workload = WorkloadChoice::Kernel { name: "vecadd.cu".to_owned(), source };
    experiment.scale.weak = false;
    experiment
}

fn vecadd() -> Experiment {
    Experiment::new("SM7_QV100", WorkloadChoice::Generated(GenSpec::new("vecadd")))
}

fn message(result: Result<Experiment, LinkError>) -> String {
    match result {
        Ok(experiment) => panic!("accepted: {experiment:?}"),
        Err(error) => error.to_string(),
    }
}

/// The link of `json` (not checked: how a tampered link is made).
fn link_of_json(json: &str) -> String {
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 9);
    format!("{LINK_VERSION}{}", base64_url(&deflated))
}

/// A plain base64url encoder, written out so the test does not reuse the
/// codec it checks.
fn base64_url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

#[wasm_bindgen_test(unsupported = test)]
fn every_field_round_trips_through_a_link_and_a_file() {
    let experiment = everything();
    let link = encode_link(&experiment);
    assert!(link.starts_with(LINK_VERSION), "{link}");
    assert!(link.len() < 1000, "{} bytes", link.len());
    assert_eq!(decode_link(&link).unwrap(), experiment);
    assert_eq!(Experiment::from_json(&experiment.to_json_pretty()).unwrap(), experiment);
    // The link's JSON is exactly the file's, compressed.
    assert_eq!(link, link_of_json(&experiment.to_json_compact()));
    let default = vecadd();
    assert_eq!(decode_link(&encode_link(&default)).unwrap(), default);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_link_is_found_in_whatever_was_pasted() {
    let link = encode_link(&vecadd());
    for text in [
        link.clone(),
        format!("x={link}"),
        format!("#x={link}"),
        format!("  https://example.invalid/warplab/#x={link}\n"),
        format!("http://localhost:8080/sub/path/index.html?q=1#x={link}&later=2"),
    ] {
        assert_eq!(decode_link(&text).unwrap(), vecadd(), "{text}");
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn the_pinned_link_of_every_version_still_opens() {
    // Version 5 had no replay speed: its links replay at the page's default.
    let mut v5_experiment = everything();
    v5_experiment.view.replay_speed = 0;
    // Version 4 had no weak scaling either: its links open with strong scaling.
    let mut v4_experiment = v5_experiment.clone();
    v4_experiment.scale.weak = false;
    // Version 3 had no choice of models either: its links open with every model shown.
    let mut v3_experiment = v4_experiment.clone();
    v3_experiment.view.paper_models_only = false;
    // Version 2 had no sampling either: its links open with sampling off.
    let mut v2_experiment = v3_experiment.clone();
    v2_experiment.sampling = SampleMode::Off;
    // Version 1 had no scale-model target either.
    let mut v1_experiment = v2_experiment.clone();
    v1_experiment.scale.target_sms = None;
    let v1 = include_str!("../test_data/links/v1.txt").trim();
    assert_eq!(decode_link(v1).unwrap(), v1_experiment);
    let v2 = include_str!("../test_data/links/v2.txt").trim();
    assert_eq!(decode_link(v2).unwrap(), v2_experiment);
    let v3 = include_str!("../test_data/links/v3.txt").trim();
    assert_eq!(decode_link(v3).unwrap(), v3_experiment);
    let v4 = include_str!("../test_data/links/v4.txt").trim();
    assert_eq!(decode_link(v4).unwrap(), v4_experiment);
    let v5 = include_str!("../test_data/links/v5.txt").trim();
    assert_eq!(decode_link(v5).unwrap(), v5_experiment);
    let v6 = include_str!("../test_data/links/v6.txt").trim();
    assert_eq!(decode_link(v6).unwrap(), authored());
    assert!(v6.starts_with(LINK_VERSION), "the newest pinned link is of the version written now");
}

/// Issue 41: a link carries an authored kernel's source whole, compressed
/// (a teaching kernel's link is well under the cap), and refuses one larger
/// than an experiment carries.
#[wasm_bindgen_test(unsupported = test)]
fn issue_41_a_link_carries_an_authored_kernel_within_the_cap() {
    let experiment = authored();
    let link = encode_link(&experiment);
    assert!(link.len() < MAX_LINK_BYTES / 4, "{} bytes", link.len());
    assert_eq!(decode_link(&link).unwrap(), experiment);
    let mut weak = authored();
    weak.scale.weak = true;
    assert!(message(decode_link(&encode_link(&weak))).contains("weak scaling"));
    let mut huge = authored();
    huge.workload =
        WorkloadChoice::Kernel { name: "big.cu".to_owned(), source: "x".repeat(MAX_KERNEL_SOURCE_BYTES + 1) };
    let error = message(Experiment::from_json(&huge.to_json_pretty()));
    assert!(error.contains(&format!("at most {MAX_KERNEL_SOURCE_BYTES} bytes of source")), "{error}");
}

#[wasm_bindgen_test(unsupported = test)]
fn sampling_is_left_out_of_the_json_when_off_and_refused_when_unknown() {
    // Off: the JSON is what it was before sampling existed; so is strong scaling's before weak scaling.
    assert!(!vecadd().to_json_compact().contains("sampling"));
    assert!(!vecadd().to_json_compact().contains("weak"));
    assert!(!vecadd().to_json_compact().contains("replay_speed"), "the page's replay speed is left out");
    let mut sampled = vecadd();
    for mode in SampleMode::ALL {
        sampled.sampling = mode;
        let json = sampled.to_json_compact();
        assert_eq!(json.contains(&format!("\"sampling\":\"{mode}\"")), mode != SampleMode::Off, "{json}");
        assert_eq!(decode_link(&encode_link(&sampled)).unwrap(), sampled);
    }
    let json = vecadd().to_json_compact().replacen("{\"config\"", "{\"sampling\":\"simpoint\",\"config\"", 1);
    let error = message(decode_link(&link_of_json(&json)));
    assert!(error.contains("unknown variant `simpoint`"), "{error}");
}

#[wasm_bindgen_test(unsupported = test)]
fn damaged_links_are_refused_with_a_reason() {
    let link = encode_link(&everything());
    assert!(message(decode_link(&"1".repeat(MAX_LINK_BYTES + 1))).contains("links of more than 8192 bytes"));
    assert!(message(decode_link("")).contains("carries no experiment"));
    assert!(message(decode_link("#x=")).contains("carries no experiment"));
    assert_eq!(
        message(decode_link(&format!("7{}", &link[1..]))),
        "this link is from a newer warplab (version 7); this page reads versions 1, 2, 3, 4, 5, 6"
    );
    assert!(message(decode_link("%41")).contains("starts with `%`, not a version"));
    assert!(message(decode_link("1abc*def")).contains("not base64url"));
    assert!(message(decode_link(&link[..link.len() / 2])).contains("the link is damaged"));
    assert!(message(decode_link("1AAAA")).contains("the link is damaged"));
    // Valid DEFLATE of something that is not JSON.
    assert!(message(decode_link(&link_of_json("hello"))).contains("does not read"));
    // A deflate bomb: 1 MiB of spaces is a few hundred bytes of link.
    let bomb = link_of_json(&" ".repeat(1 << 20));
    assert!(bomb.len() < MAX_LINK_BYTES);
    assert!(message(decode_link(&bomb)).contains("larger than 64 KiB"));
    let big = format!("{}{}", " ".repeat(MAX_JSON_BYTES), vecadd().to_json_compact());
    assert!(message(Experiment::from_json(&big)).contains("larger than 64 KiB"));
}

#[wasm_bindgen_test(unsupported = test)]
fn unknown_fields_and_variants_are_refused() {
    let json = vecadd().to_json_compact();
    let with = |from: &str, to: &str| {
        assert!(json.contains(from), "{json}");
        json.replacen(from, to, 1)
    };
    let cases = [
        with("{\"config\"", "{\"colour\":1,\"config\""),
        with("\"rule\"", "\"rules\":1,\"rule\""),
        with("\"watch_sm\"", "\"zoom\":1,\"watch_sm\""),
        with("\"kernel\"", "\"seed\":1,\"kernel\""),
        with("{\"preset\":\"SM7_QV100\"}", "{\"files\":{\"name\":\"a\",\"hash\":\"0000000000000000\",\"size\":3}}"),
        with("{\"preset\":\"SM7_QV100\"}", "{\"cloud\":\"SM7_QV100\"}"),
        with("\"edits\":[]", "\"edits\":[{\"knob\":{\"name\":\"n_sms\",\"value\":2,\"unit\":\"SMs\"}}]"),
        with("\"reference\"", "\"bayesian\""),
        with("{\"generated\"", "{\"sample\":\"vecadd\",\"generated\""),
    ];
    for case in cases {
        let error = message(decode_link(&link_of_json(&case)));
        assert!(error.starts_with("the experiment does not read: "), "{case}: {error}");
        assert!(message(Experiment::from_json(&case)).starts_with("the experiment does not read: "), "{case}");
    }
    let hash = with("{\"preset\":\"SM7_QV100\"}", "{\"files\":{\"name\":\"a\",\"hash\":\"xyz\"}}");
    assert!(message(Experiment::from_json(&hash)).contains("content hash `xyz`"));
}

#[wasm_bindgen_test(unsupported = test)]
fn values_that_do_not_exist_or_do_not_fit_are_refused() {
    let check = |change: &dyn Fn(&mut Experiment), expect: &str| {
        let mut experiment = vecadd();
        change(&mut experiment);
        let error = message(decode_link(&encode_link(&experiment)));
        assert!(error.contains(expect), "{error}");
        // The file says the same (but for where in the JSON a value sits).
        let file_error = message(Experiment::from_json(&experiment.to_json_pretty()));
        assert_eq!(file_error.split(" at line").next(), error.split(" at line").next());
    };
    let option = |name: &str, value: &str| ConfigEdit::Option { name: name.to_owned(), value: value.to_owned() };
    check(
        &|e| e.config = ConfigChoice::Preset("GTX480".to_owned()),
        "the link names preset `GTX480`, which this warplab does not have; its presets are SM7_QV100",
    );
    check(&|e| e.edits = vec![ConfigEdit::Knob { name: "warps".to_owned(), value: 2.0 }], "the knobs are n_sms");
    check(&|e| e.edits = vec![ConfigEdit::Knob { name: "n_sms".to_owned(), value: f64::INFINITY }], "does not read");
    check(&|e| e.edits = vec![ConfigEdit::Knob { name: "n_sms".to_owned(), value: -4.0 }], "positive");
    check(&|e| e.edits = vec![option("gpgpu_scheduler", "gto")], "is not a config option name");
    check(&|e| e.edits = vec![option("-gpgpu_scheduler", "gto\n-gpgpu_n_clusters 1")], "line break");
    check(&|e| e.edits = vec![option("-gpgpu_scheduler", "gto # lrr")], "`#`");
    check(&|e| e.edits = vec![option("-gpgpu_scheduler", "g\"to")], "quotes");
    check(&|e| e.edits = vec![option("-gpgpu_scheduler", &"x".repeat(2000))], "longer than 1024 bytes");
    check(&|e| e.edits = vec![option("-gpgpu_n_clusters", "0")], "config edit 1 (-gpgpu_n_clusters 0)");
    check(&|e| e.edits = vec![option("-gpgpu_scheduler", "lrr"); MAX_EDITS + 1], "at most 64");
    check(&|e| e.workload = WorkloadChoice::Sample("rodinia".to_owned()), "no sample trace is called `rodinia`");
    check(&|e| e.workload = WorkloadChoice::Generated(GenSpec::new("fft")), "no generator named `fft`");
    check(&|e| e.workload = WorkloadChoice::Generated("vecadd:size=0".parse().unwrap()), "`size` = 0 is outside");
    check(&|e| e.workload = WorkloadChoice::Generated("vecadd:gs=4".parse().unwrap()), "has no knob `gs`");
    check(&|e| e.workload = WorkloadChoice::Sample("v\u{7}".to_owned()), "is not a name");
    check(&|e| e.scale.scale_models = Some([8, 12]), "must be S and 2S SMs");
    check(&|e| e.scale.scale_models = Some([0, 0]), "must be S and 2S SMs");
    check(&|e| e.scale.target_sms = Some(30), "the scale-model target of 30 SMs: ");
    check(&|e| e.scale.target_sms = Some(160), "the scale-model target of 160 SMs: ");
    check(
        &|e| {
            e.scale.scale_models = Some([10, 20]);
            e.scale.target_sms = Some(60);
        },
        "the scale-model target of 60 SMs: ",
    );
    check(
        &|e| {
            e.workload = WorkloadChoice::Sample("vecadd".to_owned());
            e.scale.weak = true;
        },
        "weak scaling grows a generated workload with the GPU; a trace has one size",
    );
    check(&|e| e.view.watch_sm = 80, "the watched SM 80 does not exist: the GPU has 80 SMs");
    check(
        &|e| {
            e.edits = vec![ConfigEdit::Knob { name: "n_sms".to_owned(), value: 8.0 }];
            e.view.watch_sm = 8;
        },
        "the GPU has 8 SMs",
    );
    check(&|e| e.view.speed = u64::MAX, "above the fastest");
    check(&|e| e.view.replay_speed = warplab_lab::MAX_SPEED + 1, "the replay speed");
    check(
        &|e| {
            let mut baseline = vecadd();
            baseline.baseline = Some(Box::new(vecadd()));
            e.baseline = Some(Box::new(baseline));
        },
        "the baseline has a baseline of its own",
    );
    check(
        &|e| {
            let mut baseline = vecadd();
            baseline.view.watch_sm = 500;
            e.baseline = Some(Box::new(baseline));
        },
        "baseline: the watched SM 500",
    );
    // The user's config files are not here: only the edits' spelling is checked.
    let mut files = vecadd();
    files.config = ConfigChoice::Files { name: "gpgpusim.config".to_owned(), hash: ContentHash(7) };
    files.edits = vec![option("-gpgpu_n_clusters", "0")];
    files.view.watch_sm = 5000;
    assert_eq!(decode_link(&encode_link(&files)).unwrap(), files);
}

#[wasm_bindgen_test(unsupported = test)]
fn a_config_near_a_preset_travels_as_the_preset_and_its_edits() {
    let (_, qv100) = warplab_lab::preset_config("SM7_QV100").unwrap();
    let mut files = qv100.to_files();
    files.push(("mine.config".to_owned(), "-gpgpu_scheduler gto\n-gpgpu_n_clusters 40\n".to_owned()));
    let mine = warplab_lab::read_config_files(&files).unwrap();
    let (preset, edits) = warplab_lab::config_delta(&mine).unwrap();
    assert_eq!(preset, "SM7_QV100");
    let option = |name: &str, value: &str| ConfigEdit::Option { name: name.to_owned(), value: value.to_owned() };
    assert_eq!(edits, [option("-gpgpu_n_clusters", "40"), option("-gpgpu_scheduler", "gto")]);
    // The experiment that carries it opens to the same GPU.
    let mut experiment = vecadd();
    experiment.config = ConfigChoice::Preset(preset.to_owned());
    experiment.edits = edits;
    let opened = decode_link(&encode_link(&experiment)).unwrap();
    assert_eq!(opened.preset_config().unwrap(), Some(mine));
    // Every preset is its own delta.
    for info in warplab_lab::presets() {
        let (_, config) = warplab_lab::preset_config(&info.name).unwrap();
        assert_eq!(warplab_lab::config_delta(&config), Some((info.name.as_str(), Vec::new())));
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn a_config_far_from_every_preset_does_not_travel() {
    let gtx1080 = gtx1080::config();
    match warplab_lab::config_delta(&gtx1080) {
        None => {}
        // Should a preset come near enough, its edits must give this GPU back.
        Some((preset, edits)) => {
            let (_, base) = warplab_lab::preset_config(preset).unwrap();
            assert_eq!(warplab_lab::apply_edits(&base, &edits).unwrap(), gtx1080);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn edit() -> impl Strategy<Value = ConfigEdit> {
        prop_oneof![
            (1u32..8).prop_map(|n| ConfigEdit::Knob { name: "l1_mshrs".to_owned(), value: f64::from(n * 32) }),
            prop::sample::select(vec!["gto", "lrr", "two_level_active:6:0:1"])
                .prop_map(|s| ConfigEdit::Option { name: "-gpgpu_scheduler".to_owned(), value: s.to_owned() }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn any_valid_experiment_round_trips(
            edits in prop::collection::vec(edit(), 0..4),
            sample in prop::sample::select(warplab_lab::SAMPLE_TRACES.iter().map(|s| s.name).collect::<Vec<_>>()),
            generated in any::<bool>(),
            size in 1u64..64,
            seed in any::<u32>(),
            memcpy in any::<bool>(),
            small in 1u32..20,
            paper in any::<bool>(),
            validate in any::<bool>(),
            watch_sm in 0u32..80,
            speed in 0u64..=warplab_lab::MAX_SPEED,
            hash in any::<u64>(),
            label in "[a-zA-Z0-9 ._/-]{0,40}",
            with_baseline in any::<bool>(),
            targeted in any::<bool>(),
            sampling in prop::sample::select(SampleMode::ALL.to_vec()),
            paper_models_only in any::<bool>(),
        ) {
            let workload = if generated {
                let mut spec = GenSpec::new("histogram");
                spec.size = Some(size);
                spec.set("seed", u64::from(seed));
                WorkloadChoice::Generated(spec)
            } else {
                WorkloadChoice::Sample(sample.to_owned())
            };
            let mut experiment = Experiment::new("QV100", workload);
            experiment.edits = edits;
            experiment.memcpy_warms_l2 = memcpy;
            experiment.sampling = sampling;
            let rule = if paper { Rule::Paper } else { Rule::Reference };
            // A target four times the smaller scale model, for pairs the
            // QV100 (80 SMs, 32 memory channels) divides into.
            let target_sms = (targeted && matches!(small, 5 | 10 | 20)).then_some(4 * small);
            // Weak scaling only where it is allowed: a generated workload.
            let weak = generated && paper_models_only;
            experiment.scale = ScaleChoice { scale_models: Some([small, 2 * small]), rule, validate, target_sms, weak };
            experiment.view = ViewState { watch_sm, speed, paper_models_only, replay_speed: speed / 2 };
            if with_baseline {
                let mut baseline = experiment.clone();
                baseline.config = ConfigChoice::Files { name: label.clone(), hash: ContentHash(hash) };
                baseline.workload = WorkloadChoice::Trace { name: label, hash: ContentHash(!hash) };
                baseline.scale.weak = false;
                experiment.baseline = Some(Box::new(baseline));
            }
            let link = encode_link(&experiment);
            prop_assert!(link.len() <= MAX_LINK_BYTES);
            prop_assert_eq!(&decode_link(&link).unwrap(), &experiment);
            prop_assert_eq!(&Experiment::from_json(&experiment.to_json_pretty()).unwrap(), &experiment);
        }
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn messages_quote_the_link_on_one_line() {
    // Found by the fuzzer: serde quotes an unknown field's name as given.
    let json = vecadd().to_json_compact().replacen("{\"config\"", "{\"a\\nb\":1,\"config\"", 1);
    let error = message(decode_link(&link_of_json(&json)));
    assert!(error.contains("unknown field `a\\nb`"), "{error}");
    let mut knob = vecadd();
    knob.workload = WorkloadChoice::Generated("vecadd".parse().unwrap());
    if let WorkloadChoice::Generated(spec) = &mut knob.workload {
        spec.knobs.push(("x\ny".repeat(300), 1));
    }
    let error = message(decode_link(&encode_link(&knob)));
    assert!(!error.contains('\n') && error.ends_with('…'), "{error}");
}
