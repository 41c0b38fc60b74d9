//! The generated sample traces in `sample-traces/` are exactly what their
//! spec generates today: regeneration is byte-identical (`cargo xtask
//! samples` rewrites them when a generator changes on purpose), every sample
//! stays under the size limit, and each reads back through the trace reader
//! with the same summary the generator gives.

use std::io::Read;
use std::path::Path;
use std::sync::OnceLock;

use warplab_lab::{
    GENERATORS, GenSpec, NamedFile, SAMPLE_TRACES, SampleTrace, default_config, sample_files, summarize_generated,
    summarize_trace,
};

/// The most a bundled sample may weigh, per kernel file.
const MAX_SAMPLE_FILE_BYTES: usize = 1 << 20;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().and_then(Path::parent).expect("crates/lab is two levels down")
}

/// Every generated sample with its regenerated files, made once for all tests
/// (compressing them is most of this file's run time).
fn regenerated() -> &'static [(SampleTrace, Vec<NamedFile>)] {
    static FILES: OnceLock<Vec<(SampleTrace, Vec<NamedFile>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        SAMPLE_TRACES
            .iter()
            .filter_map(|sample| Some((*sample, sample_files(sample)?.expect("the sample's spec runs"))))
            .collect()
    })
}

#[test]
fn every_generator_has_a_sample() {
    for generator in GENERATORS {
        let sample = SAMPLE_TRACES.iter().find(|s| s.name == generator.name);
        let spec: GenSpec = sample.and_then(|s| s.spec).expect("a sample per generator").parse().unwrap();
        assert_eq!(spec.kernel, generator.name);
    }
}

#[test]
fn regenerating_the_samples_gives_the_committed_bytes() {
    for (sample, files) in regenerated() {
        let dir = repository().join(sample.dir);
        let mut committed: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        committed.sort();
        let mut generated: Vec<_> = files.iter().map(|(name, _)| name.clone()).collect();
        generated.sort();
        assert_eq!(committed, generated, "{}: run `cargo xtask samples`", sample.name);
        for (name, bytes) in files {
            let on_disk = std::fs::read(dir.join(name)).unwrap();
            assert!(
                on_disk == *bytes,
                "{}/{name} differs from its regeneration: run `cargo xtask samples`",
                sample.dir
            );
            assert!(bytes.len() <= MAX_SAMPLE_FILE_BYTES, "{}/{name} is {} bytes", sample.dir, bytes.len());
        }
    }
}

#[test]
fn samples_read_back_with_the_generators_figures() {
    let (_, config) = default_config().unwrap();
    for (sample, files) in regenerated() {
        let file = |name: &str| files.iter().find(|(n, _)| n == name).map(|(_, bytes)| bytes.as_slice());
        let list = std::str::from_utf8(file("kernelslist.g").unwrap()).unwrap();
        let mut open = |name: &str| file(name).map(|b| Box::new(b) as Box<dyn Read>).ok_or_else(|| "missing".into());
        let read = summarize_trace(sample.name, list, &mut open).expect("a generated trace reads");
        let spec: GenSpec = sample.spec.unwrap().parse().unwrap();
        let generated = summarize_generated(&spec, &config).unwrap();
        assert_eq!(read.kernels, generated.kernels, "{}", sample.name);
        assert_eq!(read.memcpys, generated.memcpys, "{}", sample.name);
        assert!(read.diagnostics.is_empty(), "{}: {:?}", sample.name, read.diagnostics);
    }
}
