//! `warplab gen-trace`, `info --gen`, `generators` and `samples` end to end:
//! a generated trace on disk reads back with the generator's own figures.

mod common;

use common::{json, warplab};

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("warplab-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn gen_trace_writes_a_trace_that_info_reads_back_identically() {
    for xz in [false, true] {
        let dir = scratch(if xz { "gen-xz" } else { "gen-plain" });
        let out = dir.to_str().unwrap();
        let mut args = vec!["gen-trace", "strided", "--size", "2", "--set", "gs=32", "--set", "n=3", "-o", out];
        if xz {
            args.push("--xz");
        }
        let (code, stdout, stderr) = warplab(&args);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, format!("strided:size=2,gs=32,n=3: wrote {out}\n"));
        let kernel_file = if xz { "kernel-1.traceg.xz" } else { "kernel-1.traceg" };
        let list = std::fs::read_to_string(dir.join("kernelslist.g")).unwrap();
        assert!(list.starts_with("MemcpyHtoD,0x00007f1000000000,"), "{list}");
        assert!(list.ends_with(&format!("{kernel_file}\n")), "{list}");
        let from_disk = json(&["info", out, "--json"]);
        let generated = json(&["info", "--gen", "strided:size=2,gs=32,n=3", "--json"]);
        assert_eq!(from_disk["kernels"], generated["kernels"]);
        assert_eq!(from_disk["memcpys"], generated["memcpys"]);
        // 2048 threads in 8 CTAs of 8 warps; (10 + 8n) instructions per warp.
        assert_eq!(generated["totals"]["warp_insts"].as_u64(), Some(64 * (10 + 8 * 3)));
        assert_eq!(generated["label"], "strided:size=2,gs=32,n=3");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn knobs_at_their_default_are_left_out_of_the_name() {
    let generated = json(&["info", "--gen", "strided:gs=1,size=3", "--json"]);
    assert_eq!(generated["label"], "strided:size=3");
}

#[test]
fn bad_generator_specs_are_one_line_and_exit_2() {
    let cases: [(&[&str], &str); 5] = [
        (&["info", "--gen", "nosuch"], "error: no generator named `nosuch`; known: vecadd, strided"),
        (&["info", "--gen", "strided:gz=3"], "error: `strided` has no knob `gz`; its knobs: gs, n"),
        (&["info", "--gen", "strided:gs=0"], "error: `gs` = 0 is outside 1..=1024"),
        (
            &["gen-trace", "vecadd", "--set", "block", "-o", "/nonexistent/x"],
            "error: generator spec: expected `name=value`, found `block`",
        ),
        (&["gen-trace", "vecadd", "--size", "0", "-o", "/nonexistent/x"], "error: `size` = 0 is outside 1..=1048576"),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = warplab(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stdout.is_empty());
        assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

#[test]
fn an_unwritable_output_names_the_file() {
    let (code, _, stderr) = warplab(&["gen-trace", "vecadd", "--size", "1", "-o", "/proc/warplab-cannot-write"]);
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: /proc/warplab-cannot-write: "), "{stderr}");
}

#[test]
fn generators_and_samples_are_listed() {
    let (code, stdout, _) = warplab(&["generators"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("strided: MDM Listing 1"), "{stdout}");
    assert!(stdout.contains("  gs "), "{stdout}");
    let (code, stdout, _) = warplab(&["samples"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("sample-traces/strided"), "{stdout}");
}

#[test]
fn the_kernels_doc_lists_what_warplab_generators_prints() {
    let (code, stdout, _) = warplab(&["generators"]);
    assert_eq!(code, 0);
    let doc = std::fs::read_to_string(format!("{}/docs/kernels.md", common::ROOT)).unwrap();
    let block = doc.split("```text\n").nth(1).and_then(|rest| rest.split("```").next()).unwrap();
    assert_eq!(block, stdout, "docs/kernels.md's reference block is stale: paste `warplab generators` into it");
}
