//! The malformed-input corpus of `test_data/malformed/`: every config there
//! is refused with exactly the message its `.expected` sidecar holds.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use warplab_config::{ConfigError, GpuConfig};

const DIR: &str = "test_data/malformed";

/// Reads one case and returns its error message (or what went wrong instead).
fn run_case(name: &str, text: &str) -> String {
    let config = match GpuConfig::read([(name, text)]) {
        Ok(config) => config,
        Err(error) => return error.to_string(),
    };
    let directive = text.lines().find_map(|line| line.strip_prefix("# warplab-test: "));
    let scaled = match directive.and_then(|d| d.split_once(' ')) {
        Some(("scale_shared", factor)) => config.scale_shared(factor.trim().parse().expect("a factor")),
        Some(("scale_up", factor)) => config.scale_up(factor.trim().parse().expect("a factor")),
        _ => return "no error: the config was accepted".to_owned(),
    };
    match scaled {
        Ok(_) => "no error: scaling was accepted".to_owned(),
        Err(error) => error.to_string(),
    }
}

#[test]
fn every_malformed_config_gives_its_expected_message() {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .expect("the corpus directory")
        .map(|entry| entry.expect("an entry").file_name().into_string().expect("utf-8"))
        .filter(|name| name.ends_with(".config"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 22, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(Path::new(DIR).join(name)).expect("reads");
        let expected_path = Path::new(DIR).join(name.replace(".config", ".expected"));
        let expected = std::fs::read_to_string(&expected_path).expect("every case has a sidecar");
        let got = run_case(name, &text);
        if got != expected.trim_end() {
            failures.push(format!("{name}:\n  expected {}\n  got      {got}", expected.trim_end()));
        }
        assert!(!got.ends_with('.'), "{name}: no trailing full stop");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_carry_file_line_option_and_value() {
    let text = "-network_mode 2\n-gpgpu_n_clusters 0x\n";
    let error = GpuConfig::read([("mine.config", text)]).expect_err("a bad hex number");
    let ConfigError::BadValue { at, option, value, expected } = error else { panic!("a BadValue, got {error:?}") };
    assert_eq!(
        (at.file.as_str(), at.line, option.as_str(), value.as_str()),
        ("mine.config", 2, "-gpgpu_n_clusters", "0x")
    );
    assert_eq!(expected, "a hexadecimal integer");
}

#[test]
fn no_option_file_is_an_error() {
    let error = GpuConfig::read([("config_volta_islip.icnt", "flit_size = 40;")]).expect_err("only an .icnt");
    assert_eq!(
        error.to_string(),
        "no gpgpusim.config-format file among [config_volta_islip.icnt]: give gpgpusim.config or a *.config file"
    );
}
