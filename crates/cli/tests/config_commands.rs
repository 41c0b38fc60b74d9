//! `warplab config show | scale | write` and `warplab info CONFIG` end to end
//! on the bundled presets.

mod common;

use common::{json, warplab};

#[test]
fn show_qv100_by_alias_directory_and_files() {
    let by_alias = json(&["config", "show", "qv100", "--json"]);
    assert_eq!(by_alias["n_sms"], 80);
    assert_eq!(by_alias["n_mem_channels"], 32);
    assert_eq!(by_alias["n_sub_partitions"], 64);
    assert_eq!(by_alias["schedulers_per_sm"], 4);
    assert_eq!(by_alias["scheduler"], "lrr");
    assert_eq!(by_alias["core_clock_mhz"], 1132.0);
    assert_eq!((by_alias["l2"]["sets"].as_u64(), by_alias["l2"]["assoc"].as_u64()), (Some(32), Some(24)));
    assert_eq!(by_alias["l1d"]["mshr_entries"], 512);
    let by_dir = json(&["config", "show", "configs/SM7_QV100", "--json"]);
    let by_files = json(&["info", "configs/SM7_QV100", "--json"]);
    assert_eq!(by_alias, by_dir);
    assert_eq!(by_dir, by_files);
}

#[test]
fn scale_divides_shared_resources_and_refuses_what_does_not_divide() {
    let half = json(&["config", "scale", "QV100", "--factor", "2", "--json"]);
    assert_eq!((half["n_sms"].as_u64(), half["n_mem_channels"].as_u64()), (Some(40), Some(16)));
    assert_eq!(half["l1d"], json(&["config", "show", "QV100", "--json"])["l1d"]);
    let (code, stdout, stderr) = warplab(&["config", "scale", "QV100", "--factor", "3"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(stderr, "error: scale factor 3: -gpgpu_n_clusters 80: 80 is not divisible by 3\n");
}

#[test]
fn write_then_read_gives_the_same_config() {
    let out = std::env::temp_dir().join(format!("warplab-config-{}", std::process::id()));
    let out_str = out.to_str().expect("UTF-8 temp path");
    let (code, _, stderr) = warplab(&["config", "write", "H100", "-o", out_str]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json(&["config", "show", out_str, "--json"]), json(&["config", "show", "H100", "--json"]));
    std::fs::remove_dir_all(&out).expect("cleans up");
}

#[test]
fn an_unknown_preset_lists_the_presets() {
    let (code, _, stderr) = warplab(&["config", "show", "GTX9000"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: no preset is called `GTX9000`; the presets are SM7_QV100, "), "{stderr}");
}

/// A scratch directory of the test's own.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warplab-icnt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `warplab config show FILE --json` run in `cwd`.
fn show_in(cwd: &std::path::Path, file: &std::path::Path) -> (i32, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_warplab"))
        .args(["config", "show", file.to_str().unwrap(), "--json"])
        .current_dir(cwd)
        .output()
        .unwrap();
    (output.status.code().unwrap_or(-1), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn the_icnt_file_a_config_file_names_is_read_from_beside_it_then_the_working_directory() {
    let source = std::path::Path::new(common::ROOT).join("crates/config/test_data/gtx1080");
    let beside = scratch("beside");
    for name in ["gpgpusim.config", "config_fermi_islip.icnt"] {
        std::fs::copy(source.join(name), beside.join(name)).unwrap();
    }
    let elsewhere = scratch("elsewhere");
    let (code, stderr) = show_in(&elsewhere, &beside.join("gpgpusim.config"));
    assert_eq!(code, 0, "the .icnt beside the config file: {stderr}");

    std::fs::rename(beside.join("config_fermi_islip.icnt"), elsewhere.join("config_fermi_islip.icnt")).unwrap();
    let (code, stderr) = show_in(&elsewhere, &beside.join("gpgpusim.config"));
    assert_eq!(code, 0, "the .icnt in the working directory: {stderr}");

    let (code, stderr) = show_in(&beside, &beside.join("gpgpusim.config"));
    assert_eq!(code, 2);
    let (here, there) = (beside.join("config_fermi_islip.icnt"), beside.display().to_string());
    assert!(stderr.contains("config_fermi_islip.icnt") && stderr.contains("looked for it"), "{stderr}");
    assert!(stderr.contains(&here.display().to_string()) && stderr.contains(&there), "where it looked: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let _ = (std::fs::remove_dir_all(&beside), std::fs::remove_dir_all(&elsewhere));
}
