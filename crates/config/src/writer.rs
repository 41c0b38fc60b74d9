//! Writing a config back as Accel-Sim files: `gpgpusim.config` (every
//! modelled option, then the kept ones), `trace.config` (the trace driver's
//! options) and the `.icnt` file if one was read.

use std::fmt::Display;

use crate::gpu::{GpuConfig, KeptOption};
use crate::options::{WARPLAB_PREFIX, looks_like_option};

/// The name of the main file the writer produces.
pub const GPGPUSIM_CONFIG: &str = "gpgpusim.config";
/// The name of the trace-driver file the writer produces.
pub const TRACE_CONFIG: &str = "trace.config";

/// Collects `-name value` lines into the two option files.
pub(crate) struct OptionWriter {
    main: String,
    trace: String,
}

impl OptionWriter {
    fn new() -> Self {
        Self { main: String::new(), trace: String::new() }
    }

    /// A comment line before a group of options in gpgpusim.config.
    pub(crate) fn section(&mut self, comment: &str) {
        self.main.push_str(&format!("\n# {comment}\n"));
    }

    /// One option. The trace driver's options go to trace.config, where
    /// Accel-Sim's tested configs keep them; everything else to gpgpusim.config.
    pub(crate) fn option(&mut self, name: &str, value: impl Display) {
        let line = format!("{name} {}\n", quote_if_needed(&value.to_string()));
        if is_trace_driver_option(name) { self.trace.push_str(&line) } else { self.main.push_str(&line) }
    }

    /// One of warplab's own options, after `#warplab ` so that GPGPU-Sim's
    /// parser, which skips comments, still runs the file (warplab reads it).
    pub(crate) fn warplab_option(&mut self, name: &str, value: impl Display) {
        self.main.push_str(&format!("{WARPLAB_PREFIX}{name} {}\n", quote_if_needed(&value.to_string())));
    }

    fn kept(&mut self, kept: &KeptOption) {
        match &kept.value {
            Some(value) => self.main.push_str(&format!("{} {}\n", kept.name, quote_if_needed(value))),
            None => self.main.push_str(&format!("{}\n", kept.name)),
        }
    }
}

impl GpuConfig {
    /// The config as Accel-Sim files, (name, text) in the order to read them:
    /// `gpgpusim.config`, `trace.config`, then the `.icnt` file if the config
    /// has one. Reading them back gives this config again, kept options
    /// included (the kept options all go to gpgpusim.config, after the
    /// modelled ones, so that their order survives). A value is quoted when it
    /// holds spaces, is empty, or starts like an option name or a quote.
    pub fn to_files(&self) -> Vec<(String, String)> {
        let mut w = OptionWriter::new();
        w.main.push_str(&self.header());
        self.write_options(&mut w);
        if !self.unmodelled_options.is_empty() {
            w.section("Options GPGPU-Sim knows and warplab does not model, kept as read");
            self.unmodelled_options.iter().for_each(|kept| w.kept(kept));
        }
        if !self.unknown_options.is_empty() {
            w.section("Options GPGPU-Sim does not know, kept as read");
            self.unknown_options.iter().for_each(|kept| w.kept(kept));
        }
        let trace = format!("# Accel-Sim trace-driver options written by warplab\n{}", w.trace);
        let mut files = vec![(GPGPUSIM_CONFIG.to_owned(), w.main), (TRACE_CONFIG.to_owned(), trace)];
        if let Some(icnt) = &self.interconnect.icnt {
            files.push((icnt.file_name.clone(), icnt.to_text()));
        }
        files
    }

    /// The opening comment: what wrote the file and the peak bandwidths the
    /// options imply, with their formulas.
    fn header(&self) -> String {
        let gb = |bytes_per_second: u64| bytes_per_second as f64 / 1e9;
        format!(
            "# GPU configuration written by warplab (gpgpusim.config format); run Accel-Sim with\n\
             # -config gpgpusim.config -config trace.config\n\
             # {} SMs, {} L2 slices of {} KB ({} KB in all)\n\
             # DRAM bandwidth = channels x bus width x chips x data/command ratio x DRAM clock = {:.1} GB/s\n\
             # NoC bandwidth = flit size x L2 slices x icnt clock = {:.1} GB/s\n",
            self.n_sms(),
            self.memory.n_sub_partitions(),
            self.memory.l2.size_bytes() / 1024,
            self.memory.l2_total_bytes() / 1024,
            gb(self.dram_bandwidth_bytes_per_second()),
            gb(self.noc_bandwidth_bytes_per_second()),
        )
    }
}

fn is_trace_driver_option(name: &str) -> bool {
    name.starts_with("-trace_opcode_latency_initiation_") || name.starts_with("-specialized_unit_")
}

/// Quotes a value the reader would otherwise split, drop or take for an option.
fn quote_if_needed(value: &str) -> String {
    let needs_quotes =
        value.is_empty() || value.contains(char::is_whitespace) || value.starts_with('"') || looks_like_option(value);
    if needs_quotes { format!("\"{value}\"") } else { value.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(value: &str, expect: &str) {
        assert_eq!(quote_if_needed(value), expect);
    }

    #[test]
    fn quoting() {
        check("32", "32");
        check("-1", "-1");
        check("a b", "\"a b\"");
        check("", "\"\"");
        check("-x", "\"-x\"");
        check("\"x\"", "\"\"x\"\"");
    }
}
