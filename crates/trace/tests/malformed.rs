//! The malformed-input corpus: each file in `test_data/malformed/` gives
//! exactly the error written here, every time, and never a panic. The same
//! files seed the fuzz targets' corpora.

use warplab_trace::{Cta, KernelReader, ParseError, open_trace};

/// Reads a whole trace, returning the first error.
fn read(name: &str, bytes: &[u8]) -> Result<usize, ParseError> {
    let reader = open_trace(bytes).map_err(|e| ParseError::new(name, 0, "file", e.to_string()))?;
    let mut kernel = KernelReader::new(name, reader)?;
    let mut cta = Cta::default();
    let mut ctas = 0;
    while kernel.next_cta(&mut cta)? {
        ctas += 1;
    }
    Ok(ctas)
}

const CORPUS: &[(&str, &str)] = &[
    ("truncated-line.traceg", "truncated-line.traceg:13: base address: missing: the line ends early"),
    ("bad-mask-hex.traceg", "bad-mask-hex.traceg:13: mask: expected up to 8 hex digits, found `ffffzzff`"),
    ("bad-address-hex.traceg", "bad-address-hex.traceg:13: address: expected a hex number, found `0xqq`"),
    (
        "fewer-lines-than-insts.traceg",
        "fewer-lines-than-insts.traceg:15: insts: warp 0 ends 2 lines before its `insts =` count, at `warp = 1`",
    ),
    (
        "more-lines-than-insts.traceg",
        "more-lines-than-insts.traceg:14: line: expected `warp =`, `insts =` or `#END_TB`, found `00b0 ffffffff 0 NOP 0 0 0`",
    ),
    ("file-ends-inside-cta.traceg", "file-ends-inside-cta.traceg:13: #END_TB: the file ends inside a CTA"),
    ("huge-insts.traceg", "huge-insts.traceg:12: insts: expected a number, found `99999999999999999999`"),
    ("too-many-insts.traceg", "too-many-insts.traceg:12: insts: more than 4194304 instructions in one CTA"),
    ("huge-grid.traceg", "huge-grid.traceg:2: grid dim: expected `(x,y,z)`, found `(4294967296,1,1)`"),
    ("nested-begin.traceg", "nested-begin.traceg:13: #BEGIN_TB: a CTA began before the previous one ended"),
    ("end-without-begin.traceg", "end-without-begin.traceg:3: #END_TB: no CTA is open"),
    ("garbage-header.traceg", "garbage-header.traceg:1: header: expected `-key = value`, found `ÿþ garbage`"),
    ("binary-garbage.traceg", "binary-garbage.traceg:1: line: not valid UTF-8"),
    // Instruction lines are read as bytes; one that is not UTF-8 fails as any other line does.
    ("non-utf8-opcode.traceg", "non-utf8-opcode.traceg:13: line: not valid UTF-8"),
    ("non-utf8-register.traceg", "non-utf8-register.traceg:14: line: not valid UTF-8"),
    ("bad-address-mode.traceg", "bad-address-mode.traceg:13: address mode: expected 0, 1 or 2, found 9"),
    ("too-many-sources.traceg", "too-many-sources.traceg:13: src_num: 6 registers; at most 5 are supported"),
];

#[test]
fn every_malformed_file_gives_its_error() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/malformed");
    let mut checked = 0;
    for (name, expect) in CORPUS {
        let bytes = std::fs::read(format!("{dir}/{name}")).expect("corpus file");
        assert_eq!(read(name, &bytes).map_err(|e| e.to_string()), Err((*expect).to_owned()), "{name}");
        checked += 1;
    }
    // A truncated xz stream is an error from the decoder, located in the file.
    let truncated = std::fs::read(format!("{dir}/truncated-xz.traceg.xz")).expect("corpus file");
    let error = read("truncated-xz.traceg.xz", &truncated).expect_err("a truncated stream cannot be read");
    assert_eq!((error.file.as_str(), error.field), ("truncated-xz.traceg.xz", "line"));
    assert!(error.message.starts_with("read failed: "), "{error}");
    // Every file in the directory is in the table.
    let files = std::fs::read_dir(dir).expect("corpus dir").count();
    assert_eq!(files, checked + 1);
}
