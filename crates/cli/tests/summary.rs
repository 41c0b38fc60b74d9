//! `warplab summary` end to end: the bundled sample's figures, and a bad path
//! as one error line with exit code 2.

use std::process::Command;

fn warplab(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_warplab"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("the warplab binary runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8 output");
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

#[test]
fn summary_of_the_bundled_sample() {
    let (code, stdout, _) = warplab(&["summary", "--trace", "sample-traces/vectoradd-sm61-gtx1080-v4"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("_Z6vecAddIfEvPT_S1_S1_i"), "{stdout}");
    assert!(stdout.contains("total warp instructions 344, thread instructions 10516"), "{stdout}");
    // The list file itself is accepted too.
    let (code, same, _) = warplab(&["summary", "--trace", "sample-traces/vectoradd-sm61-gtx1080-v4/kernelslist.g"]);
    assert_eq!((code, same.lines().last()), (0, stdout.lines().last()));
}

#[test]
fn missing_trace_is_one_error_line_and_exit_code_2() {
    let (code, stdout, stderr) = warplab(&["summary", "--trace", "no/such/dir"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: no/such/dir/kernelslist.g: "), "{stderr}");
}
