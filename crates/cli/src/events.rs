//! `warplab run --events FILE`: the event stream of a window of cycles and
//! SMs, with periodic snapshots, written as JSON Lines while the run goes
//! on, so memory stays bounded by one slice's events.
//!
//! The file holds one JSON object per line: first a header
//! (`{"warplab_events": 1, "window": ...}`), then events
//! (`{"cycle": 1234, "kind": "issued", "sm": 0, ...}`, flattened from the
//! engine's externally tagged form) and snapshots
//! (`{"snapshot": {...}}`) in cycle order, and last an end line
//! (`{"end": {"cycle": ..., "events": ..., "dropped": ...}}`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;
use warplab_lab::{Event, EventWindow, Simulation};

/// What `--events`, `--window`, `--sms`, `--snapshot-every` and
/// `--max-events` asked for.
#[derive(Debug, Clone)]
pub struct EventArgs {
    pub file: PathBuf,
    pub cycles: Range<u64>,
    pub sms: Range<u32>,
    pub snapshot_every: u64,
    pub max_events: usize,
}

/// Reads `A..B`, `A..` or `..B` (end exclusive) as a range of integers.
pub fn parse_range<T: std::str::FromStr + Copy + Default>(text: &str, unbounded: T) -> Result<Range<T>, String> {
    let (start, end) = text.split_once("..").ok_or(format!("`{text}`: expected A..B, A.. or ..B"))?;
    let number = |part: &str, default: T| -> Result<T, String> {
        if part.is_empty() { Ok(default) } else { part.trim().parse().map_err(|_| format!("`{part}`: not a number")) }
    };
    Ok(number(start, T::default())?..number(end, unbounded)?)
}

/// The event file being written.
pub struct EventFile {
    out: BufWriter<File>,
    path: PathBuf,
    args: EventArgs,
    next_snapshot: Option<u64>,
    events: u64,
    dropped: u64,
}

#[derive(Serialize)]
struct Header<'a> {
    warplab_events: u32,
    config: &'a str,
    workload: &'a str,
    cycles: [u64; 2],
    sms: [u32; 2],
    snapshot_every: u64,
    max_events: usize,
}

#[derive(Serialize)]
struct End {
    cycle: u64,
    events: u64,
    dropped: u64,
}

impl EventFile {
    /// Creates the file, writes the header and sets the simulation's window.
    pub fn start(
        args: &EventArgs,
        config: &str,
        workload: &str,
        simulation: &mut Simulation<'_>,
    ) -> Result<Self, String> {
        let file = File::create(&args.file).map_err(|e| format!("{}: {e}", args.file.display()))?;
        let mut this = Self {
            out: BufWriter::new(file),
            path: args.file.clone(),
            args: args.clone(),
            next_snapshot: (args.snapshot_every > 0).then_some(args.cycles.start),
            events: 0,
            dropped: 0,
        };
        let header = Header {
            warplab_events: 1,
            config,
            workload,
            cycles: [args.cycles.start, args.cycles.end],
            sms: [args.sms.start, args.sms.end],
            snapshot_every: args.snapshot_every,
            max_events: args.max_events,
        };
        this.line(&header)?;
        let window = EventWindow { cycles: args.cycles.clone(), sms: args.sms.clone(), max_events: args.max_events };
        simulation.set_event_window(Some(window));
        Ok(this)
    }

    /// Where the driver must stop next for a snapshot (`u64::MAX`: never).
    pub fn next_stop(&self) -> u64 {
        self.next_snapshot.unwrap_or(u64::MAX)
    }

    /// Writes what the last slice recorded, and a snapshot when one is due.
    pub fn after_slice(&mut self, simulation: &mut Simulation<'_>) -> Result<(), String> {
        let batch = simulation.take_events();
        self.events += batch.events.len() as u64;
        self.dropped += batch.dropped;
        for event in &batch.events {
            self.line(&flat(event))?;
        }
        let cycle = simulation.progress().cycle.0;
        if let Some(due) = self.next_snapshot.filter(|&due| due <= cycle) {
            #[derive(Serialize)]
            struct Line {
                snapshot: warplab_lab::Snapshot,
            }
            self.line(&Line { snapshot: simulation.snapshot() })?;
            let next = due.max(cycle) + self.args.snapshot_every;
            self.next_snapshot = (next < self.args.cycles.end).then_some(next);
        }
        Ok(())
    }

    /// Writes the end line and flushes.
    pub fn finish(mut self, cycle: u64) -> Result<(), String> {
        #[derive(Serialize)]
        struct Line {
            end: End,
        }
        self.line(&Line { end: End { cycle, events: self.events, dropped: self.dropped } })?;
        let path = self.path.clone();
        self.out.flush().map_err(|e| write_error(&path, &e))?;
        if let Some(warning) = self.drop_warning() {
            eprintln!("warning: {warning}");
        }
        Ok(())
    }

    /// What to tell the user when events were dropped: the file's last line
    /// says so too, but only someone who reads to its end would see it.
    fn drop_warning(&self) -> Option<String> {
        (self.dropped > 0).then(|| {
            format!(
                "{} of {} events were not written to {}: more than --max-events {} were held between two writes \
                 (CTA launches and finishes are always kept); raise --max-events or narrow --window and --sms",
                self.dropped,
                self.events + self.dropped,
                self.path.display(),
                self.args.max_events
            )
        })
    }

    fn line(&mut self, value: &impl Serialize) -> Result<(), String> {
        serde_json::to_writer(&mut self.out, value).map_err(|e| write_error(&self.path, &e))?;
        self.out.write_all(b"\n").map_err(|e| write_error(&self.path, &e))
    }
}

/// An event as one flat object, `{"cycle": 5002, "kind": "cta_launched",
/// "sm": 0, ...}`, easier to filter than the externally tagged form.
fn flat(event: &Event) -> serde_json::Value {
    let mut object = serde_json::Map::new();
    object.insert("cycle".to_owned(), event.cycle.into());
    if let Ok(serde_json::Value::Object(tagged)) = serde_json::to_value(&event.kind) {
        for (kind, fields) in tagged {
            object.insert("kind".to_owned(), kind.into());
            if let serde_json::Value::Object(fields) = fields {
                object.extend(fields);
            }
        }
    }
    serde_json::Value::Object(object)
}

fn write_error(path: &Path, error: &dyn std::fmt::Display) -> String {
    format!("{}: {error}", path.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_read_both_ends_or_either() {
        assert_eq!(parse_range("10..20", u64::MAX), Ok(10..20));
        assert_eq!(parse_range("10..", u64::MAX), Ok(10..u64::MAX));
        assert_eq!(parse_range("..7", u32::MAX), Ok(0..7));
        assert!(parse_range("10-20", u64::MAX).is_err());
        assert!(parse_range("a..3", u64::MAX).unwrap_err().contains("`a`"));
    }
}
