//! Authored kernels in the page (issue 41): what the worker answers when it
//! compiles a CUDA C file (its SASS listing, or the error located for the
//! editor's marks), and the per-line figures the page makes of a run's
//! per-PC counters.
//!
//! The worker compiles and runs the file with `warplab_lab::run_kernel`, the
//! function `warplab --kernel` calls, so the listing the page shows is the
//! code that runs, and each per-PC counter belongs to exactly one row.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use warplab_lab::cuda::{self, Compiled, Diagnostic, Run};
use warplab_lab::per_pc::{PcStalls, SAMPLE_INTERVAL};

/// A compiled file: each kernel's listing and which kernel each launch ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authored {
    /// The file's name, as errors name it.
    pub file: String,
    /// Every `__global__` kernel, in source order.
    pub kernels: Vec<KernelListing>,
    /// The kernel each launch ran, in launch order (the per-PC counters
    /// name a launch by its index here).
    pub launches: Vec<String>,
}

/// One kernel's SASS.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelListing {
    /// The kernel's name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory, in bytes.
    pub shared_bytes: u32,
    /// Its instructions in PC order.
    pub rows: Vec<ListingRow>,
}

/// One instruction of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingRow {
    /// Its PC.
    pub pc: u32,
    /// Its SASS text.
    pub sass: String,
    /// The 1-based source line it comes from.
    pub line: u32,
}

/// A compile error, fault or budget run out, located for the editor: the
/// line and the columns it marks, in UTF-16 code units as the editor counts
/// them, and the message as the CLI prints its first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelError {
    /// `FILE:LINE:COL: error: message`.
    pub headline: String,
    /// The 1-based line.
    pub line: u32,
    /// Where the mark starts on the line, in UTF-16 code units from its start.
    pub from: u32,
    /// Where the mark ends on the line (at least `from`; the span's end, or
    /// the line's end when the span goes on).
    pub to: u32,
}

impl Authored {
    /// The listing of `compiled`, whose `run` made `launches`.
    pub fn new(file: &str, source: &str, compiled: &Compiled, run: &Run) -> Authored {
        let kernels = compiled
            .kernels
            .iter()
            .map(|kernel| KernelListing {
                name: kernel.name.clone(),
                registers: kernel.registers,
                shared_bytes: kernel.shared_bytes,
                rows: cuda::listing_rows(kernel, source)
                    .into_iter()
                    .map(|row| ListingRow { pc: row.pc, sass: row.sass, line: row.line })
                    .collect(),
            })
            .collect();
        let launches = run.launches.iter().map(|launch| launch.kernel.clone()).collect();
        Authored { file: file.to_owned(), kernels, launches }
    }
}

impl KernelError {
    /// `diagnostic`, located for the editor on its own line's text.
    pub fn new(diagnostic: &Diagnostic) -> KernelError {
        let line_text = &diagnostic.source_line;
        let start = (diagnostic.column as usize).saturating_sub(1).min(line_text.len());
        let span_bytes = diagnostic.span.end.saturating_sub(diagnostic.span.start) as usize;
        let end = (start + span_bytes).min(line_text.len());
        let from = utf16_len(line_text, start);
        let to = utf16_len(line_text, end).max(from);
        KernelError { headline: diagnostic.headline(), line: diagnostic.line, from, to }
    }
}

impl KernelError {
    /// An error about the file as a whole (a config that does not load, a
    /// workload too large for the browser), marked on its first line.
    pub fn unlocated(file: &str, message: String) -> KernelError {
        KernelError { headline: format!("{file}: error: {message}"), line: 1, from: 0, to: 0 }
    }
}

/// The UTF-16 length of `text`'s first `bytes` bytes (cut back to a
/// character boundary).
fn utf16_len(text: &str, bytes: usize) -> u32 {
    let end = (0..=bytes.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    text[..end].encode_utf16().count() as u32
}

/// What a run counted at one instruction or line: warp instructions issued,
/// warp-cycles stalled there by the reasons the page names, and the LD/ST
/// unit's shared-memory bank-conflict cycles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    /// Warp instructions issued.
    pub issued: u64,
    /// Warp-cycles waiting on memory.
    pub memory: u64,
    /// Warp-cycles waiting on an arithmetic result.
    pub dependence: u64,
    /// Warp-cycles waiting at a barrier.
    pub barrier: u64,
    /// Warp-cycles waiting for a free unit.
    pub structural: u64,
    /// Cycles its shared-memory accesses held the LD/ST unit for bank
    /// conflicts (counted, not sampled; not a warp stall reason).
    pub bank_conflicts: u64,
}

impl Figures {
    /// What `counted` counted at its PC.
    pub fn of(counted: &PcStalls) -> Figures {
        let mut figures = Figures::default();
        figures.add(counted);
        figures
    }

    fn add(&mut self, counted: &PcStalls) {
        self.issued += counted.issued;
        self.memory += counted.stalls.memory;
        self.dependence += counted.stalls.dependence;
        self.barrier += counted.stalls.barrier;
        self.structural += counted.stalls.structural;
        self.bank_conflicts += counted.bank_conflict_cycles;
    }

    /// Stall cycles of the four reasons together.
    pub fn stalled(&self) -> u64 {
        self.memory + self.dependence + self.barrier + self.structural
    }
}

/// A run's per-PC counters placed on the listing and the source: per
/// kernel and PC (over every launch of the kernel), and per source line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineFigures {
    /// By kernel name and PC.
    pub by_pc: BTreeMap<(String, u32), Figures>,
    /// By 1-based source line.
    pub by_line: BTreeMap<u32, Figures>,
}

impl LineFigures {
    /// Places `counted` (a run of `authored`'s workload) on its rows and
    /// lines; a counter of a launch or PC the listing lacks is left out.
    pub fn new(authored: &Authored, counted: &[PcStalls]) -> LineFigures {
        let mut figures = LineFigures::default();
        for row in counted {
            let Some(name) = authored.launches.get(row.kernel as usize) else { continue };
            let Some(kernel) = authored.kernels.iter().find(|kernel| kernel.name == *name) else { continue };
            let Some(listed) = kernel.rows.iter().find(|listed| listed.pc == row.pc) else { continue };
            figures.by_pc.entry((name.clone(), row.pc)).or_default().add(row);
            figures.by_line.entry(listed.line).or_default().add(row);
        }
        figures
    }
}

/// How the stall figures are taken, in one sentence for the page's labels
/// and hover texts: the timing model samples warp states rather than
/// counting every cycle (exact counts would cost far more than per-PC
/// counting's 10% bound), so no reader should take them for counts.
pub fn stall_sampling() -> String {
    format!(
        "Stall warp-cycles are a sampled estimate: every {SAMPLE_INTERVAL} cycles each resident warp's state is \
         charged as {SAMPLE_INTERVAL} warp-cycles to the instruction it waits at (issued counts and bank-conflict \
         cycles are exact)."
    )
}

/// A count as the figures show it: `950`, `12.3k`, `4.5M`.
pub fn compact(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1e3),
        _ => format!("{:.1}M", count as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use warplab_lab::per_pc::StallCycles;
    use warplab_lab::{preset_config, run_kernel};

    use super::*;

    const REDUCTION: &str = include_str!("../../cuda/examples/reduction.cu");

    fn compiled(source: &str) -> Authored {
        let (_, config) = preset_config("QV100").expect("a preset");
        let (compiled, run) = run_kernel("r.cu", source, &config, false, 1 << 32, "").expect("runs");
        Authored::new("r.cu", source, &compiled, &run)
    }

    #[test]
    fn the_listing_names_each_instruction_s_line_and_each_launch_s_kernel() {
        let authored = compiled(REDUCTION);
        let names: Vec<&str> = authored.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["reduce_divergent", "reduce_sequential"]);
        assert_eq!(authored.launches, names, "each launched once, from a loop");
        let lines = REDUCTION.lines().count() as u32;
        for kernel in &authored.kernels {
            assert!(kernel.rows.iter().all(|row| (1..=lines).contains(&row.line)), "{}", kernel.name);
            assert!(kernel.rows.windows(2).all(|pair| pair[0].pc < pair[1].pc));
            assert!(kernel.rows.iter().any(|row| row.sass.starts_with("EXIT")), "{}", kernel.name);
        }
    }

    #[test]
    fn counters_add_up_per_line_over_every_launch_of_a_kernel() {
        let mut authored = compiled(REDUCTION);
        // A third launch, of the first kernel again (as a loop of launches makes).
        authored.launches.push(authored.launches[0].clone());
        let kernel = &authored.kernels[0];
        let (first, second) = (&kernel.rows[0], &kernel.rows[1]);
        let stalls = StallCycles { memory: 64, barrier: 128, not_selected: 1000, ..StallCycles::default() };
        let counter = |kernel: u32, pc: u32| PcStalls {
            kernel,
            pc,
            opcode: "X".into(),
            issued: 3,
            bank_conflict_cycles: 2,
            stalls,
        };
        let counted = [counter(0, first.pc), counter(2, first.pc), counter(0, second.pc), counter(999, 0)];
        let figures = LineFigures::new(&authored, &counted);
        let at_first = figures.by_pc[&(kernel.name.clone(), first.pc)];
        assert_eq!((at_first.issued, at_first.memory, at_first.barrier), (6, 128, 256), "both launches");
        assert_eq!(at_first.bank_conflicts, 4, "bank-conflict cycles add up too");
        assert_eq!(at_first.stalled(), 384, "a warp not selected is not stalled");
        let on_line: u64 = figures.by_line.values().map(|f| f.issued).sum();
        assert_eq!(on_line, 9, "a launch the run did not make is left out");
        assert_eq!(figures.by_line[&first.line].issued, if first.line == second.line { 9 } else { 6 });
    }

    #[test]
    fn an_error_is_marked_in_utf16_columns_of_its_line() {
        let (_, config) = preset_config("QV100").expect("a preset");
        let source = "// é\nvoid host() { /* é */ int x = y; }\n";
        let diagnostic = warplab_lab::compile_kernel("e.cu", source, &config).expect_err("undeclared");
        let error = KernelError::new(&diagnostic);
        assert_eq!(error.headline, "e.cu:2:32: error: use of undeclared identifier 'y'");
        assert_eq!((error.line, error.from, error.to), (2, 30, 31), "é is two bytes and one UTF-16 unit");
        assert_eq!((compact(950), compact(12_345), compact(4_500_000)), ("950".into(), "12.3k".into(), "4.5M".into()));
    }
}
