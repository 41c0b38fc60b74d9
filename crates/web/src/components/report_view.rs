//! The simulation report: IPC up front with the run's other headline figures,
//! then why it is what it is, in four charts (issue slots, cache outcomes,
//! MSHR occupancy, L1-miss latency), then the run's diagnostics and a button
//! that saves the whole report as JSON.
//!
//! The report's parts are read field by field here, in one function per chart,
//! because `warplab-lab` re-exports only `SimReport` itself: this crate cannot
//! name `IssueBreakdown` or `OutcomeCounts` to write helpers over them.

use std::rc::Rc;

use warplab_lab::SimReport;
use yew::prelude::*;

use crate::components::chart::{self, BarChart, BarRow, BarScale, Frame, Histogram, HistogramBar, Series};
use crate::download::download_text;
use crate::format;
use crate::glossary;
use crate::palette::Concept;

/// Properties of [`ReportView`].
#[derive(Debug, Clone, PartialEq, Properties)]
pub struct ReportViewProps {
    /// The finished run's report (shared, so re-renders do not copy it).
    pub report: Rc<SimReport>,
}

/// Shows one simulation report.
#[component]
pub fn ReportView(props: &ReportViewProps) -> Html {
    let report = props.report.as_ref();
    html! {
        <section class="report" data-testid="report">
            { headline(report) }
            <div class="charts">
                { chart::bar_chart(&issue_chart(report)) }
                { chart::bar_chart(&cache_chart(report)) }
                { chart::histogram(&mshr_chart(report)) }
                { chart::bar_chart(&latency_chart(report)) }
            </div>
            if !report.diagnostics.is_empty() {
                <ul class="diagnostics" data-testid="report-diagnostics">
                    { for report.diagnostics.iter().map(|d| html! { <li>{ d }</li> }) }
                </ul>
            }
            { download_button(&props.report) }
        </section>
    }
}

/// Saves the whole report as `report.json`: every figure of the run, in the
/// form `warplab run --json` writes it (which adds only its wall-clock rates).
fn download_button(report: &Rc<SimReport>) -> Html {
    let report = Rc::clone(report);
    let onclick = Callback::from(move |_: MouseEvent| match serde_json::to_string_pretty(report.as_ref()) {
        Ok(text) => download_text("report.json", "application/json", &text),
        Err(error) => gloo::console::warn!(format!("writing report.json: {error}")),
    });
    html! {
        <p class="report-actions">
            <button type="button" class="button" data-testid="report-download" {onclick}
                title="Save every figure of this run as JSON, as `warplab run --json` writes it (without its wall-clock rates)">
                { "Download report (JSON)" }
            </button>
        </p>
    }
}

/// What a scheduler can do in a cycle, in the order of [`issue_values`].
pub(crate) const ISSUE_SERIES: [Series; 7] = [
    Series { name: "issued", concept: Concept::Issuing, explain: glossary::ISSUED },
    Series { name: "memory", concept: Concept::WaitingOnMemory, explain: glossary::STALL_MEMORY },
    Series { name: "dependence", concept: Concept::WaitingOnResult, explain: glossary::STALL_DEPENDENCE },
    Series { name: "barrier", concept: Concept::AtBarrier, explain: glossary::STALL_BARRIER },
    Series { name: "fetch", concept: Concept::WaitingForFetch, explain: glossary::STALL_FETCH },
    Series { name: "structural", concept: Concept::UnitBusy, explain: glossary::STALL_STRUCTURAL },
    Series { name: "no warp", concept: Concept::NoWarp, explain: glossary::NO_WARP },
];

/// A cache lookup's outcomes, in the order of [`cache_chart`]'s values.
pub(crate) const OUTCOME_SERIES: [Series; 5] = [
    Series { name: "hit", concept: Concept::L1Hit, explain: glossary::HIT },
    Series { name: "hit on pending fill", concept: Concept::PendingFill, explain: glossary::HIT_RESERVED },
    Series { name: "miss", concept: Concept::L1Miss, explain: glossary::MISS },
    Series { name: "sector miss", concept: Concept::SectorMiss, explain: glossary::SECTOR_MISS },
    Series { name: "reservation fail", concept: Concept::ReservationFail, explain: glossary::RESERVATION_FAIL },
];

/// The parts of an L1 miss's latency, in the order of `LatencyBreakdown::means`.
pub(crate) const LATENCY_SERIES: [Series; 5] = [
    Series { name: "MSHR wait", concept: Concept::Mshr, explain: glossary::MSHR_WAIT },
    Series { name: "crossbar", concept: Concept::Crossbar, explain: glossary::NOC },
    Series { name: "L2", concept: Concept::L2, explain: glossary::L2_ACCESS },
    Series { name: "DRAM queue", concept: Concept::DramQueue, explain: glossary::DRAM_QUEUE },
    Series { name: "DRAM service", concept: Concept::DramService, explain: glossary::DRAM_SERVICE },
];

/// IPC large, the other headline figures beside it.
fn headline(report: &SimReport) -> Html {
    let mut figures = vec![
        ("warp IPC", format::decimal(report.warp_ipc), glossary::WARP_IPC, "warp-ipc"),
        ("cycles", format::count(report.cycles), glossary::CYCLES, "cycles"),
        ("thread instructions", format::count(report.thread_insts), glossary::THREAD_INSTS, "thread-insts"),
        ("warp instructions", format::count(report.warp_insts), glossary::WARP_INSTS, "warp-insts"),
        ("f_mem", format::share(report.f_mem), glossary::F_MEM, "f-mem"),
        ("L2 MPKI", format::decimal(report.l2_mpki), glossary::L2_MPKI, "l2-mpki"),
        (
            "bank-conflict cycles",
            format::count(report.shmem_bank_conflict_cycles),
            glossary::BANK_CONFLICTS,
            "bank-conflicts",
        ),
    ];
    if let Some(c) = &report.chiplets {
        let busy = format!("{} / {}", format::share(c.link_utilization), format::share(c.busiest_link_utilization));
        figures.extend([
            ("chiplets", c.chiplets.to_string(), glossary::CHIPLET, "chiplets"),
            ("remote L2 requests", format::share(c.remote_share), glossary::REMOTE_SHARE, "remote-share"),
            ("links busy (mean / busiest)", busy, glossary::LINK_BUSY, "links-busy"),
        ]);
    }
    html! {
        <div class="headline">
            <p class="ipc" title={glossary::IPC}>
                <span class="ipc-value" data-testid="ipc">{ format::decimal(report.ipc) }</span>
                <span class="ipc-unit">{ "IPC" }</span>
            </p>
            <dl class="figures">
                { for figures.into_iter().map(|(name, value, explain, testid)| html! {
                    <div title={explain}><dt>{ name }</dt><dd data-testid={testid}>{ value }</dd></div>
                }) }
            </dl>
        </div>
    }
}

/// Every scheduler's every cycle, by what it did.
fn issue_chart(report: &SimReport) -> BarChart<'static> {
    let values = issue_values(report);
    let scheduler_cycles: u64 = values.iter().sum();
    BarChart {
        frame: Frame {
            testid: "issue-chart",
            title: "Issue slots",
            explain: glossary::ISSUE_SLOTS,
            empty: "No data: the run took no cycles.",
        },
        series: &ISSUE_SERIES,
        rows: vec![BarRow {
            label: format!("{} scheduler cycles (SMs × schedulers × cycles)", format::count(scheduler_cycles)),
            values: values.map(|value| value as f64).to_vec(),
        }],
        scale: BarScale::Shares,
        axis: "% of scheduler cycles",
    }
}

/// The issue breakdown in the order of [`ISSUE_SERIES`].
fn issue_values(report: &SimReport) -> [u64; 7] {
    let issue = &report.issue_breakdown;
    [issue.issued, issue.memory, issue.dependence, issue.barrier, issue.fetch, issue.structural, issue.no_warp]
}

/// One bar per cache and access kind that saw any lookup.
fn cache_chart(report: &SimReport) -> BarChart<'static> {
    let mut rows = Vec::new();
    for (cache_name, cache) in [("L1D", &report.l1d), ("L2", &report.l2)] {
        for (kind, counts) in [("reads", &cache.reads), ("writes", &cache.writes), ("atomics", &cache.atomics)] {
            let values = [counts.hit, counts.hit_reserved, counts.miss, counts.sector_miss, counts.reservation_fail];
            let lookups: u64 = values.iter().sum();
            if lookups > 0 {
                let label = format!("{cache_name} {kind}: {} lookups", format::count(lookups));
                rows.push(BarRow { label, values: values.map(|value| value as f64).to_vec() });
            }
        }
    }
    BarChart {
        frame: Frame {
            testid: "cache-chart",
            title: "Cache outcomes",
            explain: glossary::CACHE_OUTCOMES,
            empty: "No data: no cache lookups.",
        },
        series: &OUTCOME_SERIES,
        rows,
        scale: BarScale::Shares,
        axis: "% of lookups (a reservation fail is retried and counted again)",
    }
}

/// SM cycles by L1 MSHR entries in use.
fn mshr_chart(report: &SimReport) -> Histogram {
    let histogram = &report.mshr_occupancy;
    let labels = bucket_labels(histogram.entries, histogram.bucket_entries, histogram.cycles.len());
    // Without MSHRs every cycle lands in bucket 0: there is nothing to show.
    let bars = if histogram.entries == 0 {
        Vec::new()
    } else {
        labels.into_iter().zip(&histogram.cycles).map(|(label, &value)| HistogramBar { label, value }).collect()
    };
    Histogram {
        frame: Frame {
            testid: "mshr-chart",
            title: "MSHR occupancy",
            explain: glossary::MSHR_OCCUPANCY,
            empty: "No data: this configuration's L1 has no MSHRs, or the run took no cycles.",
        },
        series: Series { name: "SM cycles", concept: Concept::Mshr, explain: glossary::MSHR },
        bars,
        x_axis: format!("L1 MSHR entries in use (of {} per SM)", histogram.entries),
        y_axis: "% of SM cycles",
        unit: "SM cycles",
    }
}

/// Labels of the histogram buckets that can be reached: bucket k holds
/// `k × bucket_entries` to `(k + 1) × bucket_entries − 1` entries, the last
/// bucket everything from its start up to `entries`, and buckets starting
/// beyond `entries` (when the entries do not fill them all) are left out.
fn bucket_labels(entries: u32, bucket_entries: u32, n_buckets: usize) -> Vec<String> {
    let width = u64::from(bucket_entries.max(1));
    let entries = u64::from(entries);
    (0..n_buckets as u64)
        .map(|bucket| (bucket * width, bucket + 1 == n_buckets as u64))
        .take_while(|&(low, _)| low <= entries)
        .map(|(low, last)| {
            let high = if last { entries } else { (low + width - 1).min(entries) };
            if high == low { low.to_string() } else { format!("{low}–{high}") }
        })
        .collect()
}

/// The mean L1 read miss, split into its parts.
fn latency_chart(report: &SimReport) -> BarChart<'static> {
    let latency = &report.latency_breakdown;
    let means = latency.means();
    // With no misses the means are all zero, and the chart shows its note.
    let total: f64 = means.iter().sum();
    let label = format!("mean L1 read miss: {total:.1} cycles (over {} misses)", format::count(latency.misses));
    BarChart {
        frame: Frame {
            testid: "latency-chart",
            title: "L1-miss latency",
            explain: glossary::MISS_LATENCY,
            empty: "No data: no L1 read missed.",
        },
        series: &LATENCY_SERIES,
        rows: vec![BarRow { label, values: means.to_vec() }],
        scale: BarScale::Values { unit: "cycles", decimals: 1 },
        axis: "mean cycles per L1 read miss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(entries: u32, bucket_entries: u32, n_buckets: usize, expect: &[&str]) {
        assert_eq!(bucket_labels(entries, bucket_entries, n_buckets), expect, "{entries} entries by {bucket_entries}");
    }

    #[test]
    fn buckets_cover_every_entry_count_once() {
        // QV100: 512 entries in 16 buckets of 32, and one for "all in use".
        let qv100 = bucket_labels(512, 32, 17);
        assert_eq!(qv100.len(), 17);
        assert_eq!(qv100[..3], ["0–31", "32–63", "64–95"]);
        assert_eq!(qv100[15..], ["480–511", "512"]);
        check(4, 1, 17, &["0", "1", "2", "3", "4"]);
        check(20, 2, 17, &["0–1", "2–3", "4–5", "6–7", "8–9", "10–11", "12–13", "14–15", "16–17", "18–19", "20"]);
        check(
            40,
            3,
            17,
            &[
                "0–2", "3–5", "6–8", "9–11", "12–14", "15–17", "18–20", "21–23", "24–26", "27–29", "30–32", "33–35",
                "36–38", "39–40",
            ],
        );
        check(
            50,
            3,
            17,
            &[
                "0–2", "3–5", "6–8", "9–11", "12–14", "15–17", "18–20", "21–23", "24–26", "27–29", "30–32", "33–35",
                "36–38", "39–41", "42–44", "45–47", "48–50",
            ],
        );
    }

    #[test]
    fn odd_histograms_label_without_panicking() {
        check(0, 1, 17, &["0"]);
        check(8, 0, 3, &["0", "1", "2–8"]);
        check(8, 4, 0, &[]);
    }

    /// A report of a run that did nothing, to set fields on.
    fn empty_report() -> SimReport {
        SimReport {
            cycles: 0,
            warp_insts: 0,
            thread_insts: 0,
            ipc: 0.0,
            warp_ipc: 0.0,
            f_mem: 0.0,
            l2_mpki: 0.0,
            l1i: Default::default(),
            l1d: Default::default(),
            shmem_bank_conflict_cycles: 0,
            l2: Default::default(),
            dram: Default::default(),
            latency_breakdown: Default::default(),
            issue_breakdown: Default::default(),
            issued_by_pipeline: Default::default(),
            mshr_occupancy: Default::default(),
            queue_stalls: Default::default(),
            kernels: Vec::new(),
            sms: Vec::new(),
            diagnostics: Vec::new(),
            sampling: None,
            chiplets: None,
        }
    }

    fn row_totals(chart: &BarChart) -> Vec<f64> {
        chart.rows.iter().map(|row| row.values.iter().sum()).collect()
    }

    #[test]
    fn a_run_that_did_nothing_has_no_chart_data() {
        let mut report = empty_report();
        report.mshr_occupancy.bucket_entries = 1;
        report.mshr_occupancy.cycles = vec![0; 17];
        assert_eq!(row_totals(&issue_chart(&report)), [0.0]);
        assert!(cache_chart(&report).rows.is_empty());
        assert_eq!(mshr_chart(&report).bars, []);
        assert_eq!(row_totals(&latency_chart(&report)), [0.0]);
    }

    #[test]
    fn a_config_without_mshrs_has_no_histogram() {
        let mut report = empty_report();
        report.mshr_occupancy.bucket_entries = 1;
        report.mshr_occupancy.cycles = [vec![100], vec![0; 16]].concat();
        assert_eq!(mshr_chart(&report).bars, []);
        report.mshr_occupancy.entries = 2;
        let bars = mshr_chart(&report).bars;
        assert_eq!(
            bars.iter().map(|bar| (bar.label.as_str(), bar.value)).collect::<Vec<_>>(),
            [("0", 100), ("1", 0), ("2", 0)]
        );
    }

    #[test]
    fn charts_take_the_report_in_series_order() {
        let mut report = empty_report();
        report.issue_breakdown.issued = 1;
        report.issue_breakdown.no_warp = 7;
        report.l2.writes.sector_miss = 3;
        report.l2.writes.reservation_fail = 2;
        report.latency_breakdown.misses = 2;
        report.latency_breakdown.dram_service_cycles = 300;
        let issue = issue_chart(&report);
        assert_eq!(issue.rows[0].values, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]);
        assert_eq!(issue.rows[0].label, "8 scheduler cycles (SMs × schedulers × cycles)");
        let cache = cache_chart(&report);
        assert_eq!(
            cache.rows,
            [BarRow { label: "L2 writes: 5 lookups".to_owned(), values: vec![0.0, 0.0, 0.0, 3.0, 2.0] }]
        );
        let latency = latency_chart(&report);
        assert_eq!(latency.rows[0].values, [0.0, 0.0, 0.0, 0.0, 150.0]);
        assert_eq!(latency.rows[0].label, "mean L1 read miss: 150.0 cycles (over 2 misses)");
    }
}
