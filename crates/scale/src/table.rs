//! Published scale-model data as a table: a CSV in the anchor's columns
//! (`benchmark`, `num_sms` or `num_chiplets`, `ipc`, `mpki`, optional
//! `fmem_pct`; other columns are ignored), every method's prediction for each
//! benchmark, and the mean and maximum error per method and size — the
//! paper's accuracy figure from its own inputs.
//!
//! The smallest size in the file is S; each benchmark needs a row at S, 2S,
//! 4S, … up to its largest size, and its two smallest rows are its scale
//! models. Limits: [`MAX_TABLE_BYTES`], [`MAX_TABLE_ROWS`].

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ScaleError;
use crate::predictor::{Inputs, Method, Prediction, Role, Rule, predict};

/// The largest table read.
pub const MAX_TABLE_BYTES: usize = 4 << 20;
/// The most data rows read.
pub const MAX_TABLE_ROWS: usize = 100_000;

/// A table that cannot be read or evaluated: file, line (0 when the problem
/// is a whole benchmark), the field, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError {
    /// The file name given.
    pub file: String,
    /// 1-based line, or 0.
    pub line: usize,
    /// The column, or the benchmark.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => write!(f, "{}: {}: {}", self.file, self.field, self.message),
            line => write!(f, "{}:{line}: {}: {}", self.file, self.field, self.message),
        }
    }
}

impl std::error::Error for TableError {}

/// What the sizes count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Units {
    /// Streaming multiprocessors (`num_sms`).
    Sms,
    /// Chiplets (`num_chiplets`).
    Chiplets,
}

impl Units {
    /// `SMs` or `chiplets`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sms => "SMs",
            Self::Chiplets => "chiplets",
        }
    }
}

/// One benchmark's rows, smallest size first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    /// Its name.
    pub name: String,
    /// Sizes, doubling from the file's smallest.
    pub sizes: Vec<u32>,
    /// Simulated IPC at each size.
    pub ipc: Vec<f64>,
    /// LLC MPKI at each size.
    pub mpki: Vec<f64>,
    /// f_mem in percent, if the file gives one.
    pub fmem_pct: Option<f64>,
}

/// A table of benchmarks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// What the sizes count.
    pub units: Units,
    /// Benchmarks in the order they first appear.
    pub benchmarks: Vec<Benchmark>,
}

/// One prediction, in the reference CSV's columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictionRow {
    /// The benchmark.
    pub benchmark: String,
    /// The size predicted.
    pub units: u32,
    /// Scale model, intermediate or target.
    pub role: Role,
    /// The method.
    pub model: Method,
    /// What it predicts.
    pub predicted_ipc: f64,
    /// The simulated IPC.
    pub actual_ipc: f64,
    /// `|predicted − actual| / actual × 100`.
    pub abs_err_pct: f64,
}

impl PredictionRow {
    /// The row for `predicted` against `actual`, with its absolute error.
    pub fn new(benchmark: String, units: u32, role: Role, model: Method, predicted: f64, actual: f64) -> Self {
        let abs_err_pct = (predicted - actual).abs() / actual * 100.0;
        Self { benchmark, units, role, model, predicted_ipc: predicted, actual_ipc: actual, abs_err_pct }
    }
}

/// One method's error over the benchmarks at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// The method.
    pub model: Method,
    /// The size.
    pub target_units: u32,
    /// Mean absolute error, percent.
    pub mean_err_pct: f64,
    /// Largest absolute error, percent.
    pub max_err_pct: f64,
}

/// Every prediction and the per-method summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableReport {
    /// One row per benchmark, size and method.
    pub predictions: Vec<PredictionRow>,
    /// Per method and size past the scale models.
    pub summary: Vec<SummaryRow>,
}

impl Table {
    /// Reads a table from CSV text; `file` names it in errors.
    ///
    /// # Errors
    /// A missing column, a value that is not a number, a duplicated or
    /// missing size, sizes that do not double, disagreeing f_mem values, or
    /// more than the limits.
    pub fn read(file: &str, text: &str) -> Result<Self, TableError> {
        let error = |line: usize, field: &str, message: String| TableError {
            file: file.to_owned(),
            line,
            field: field.to_owned(),
            message,
        };
        if text.len() > MAX_TABLE_BYTES {
            return Err(error(0, "file", format!("{} bytes; the limit is {MAX_TABLE_BYTES}", text.len())));
        }
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
        let (header_line, header) = lines.next().ok_or_else(|| error(1, "header", "the file is empty".into()))?;
        let columns = Columns::find(header).map_err(|m| error(header_line, "header", m))?;
        let mut rows = Vec::new();
        for (line, text) in lines {
            if rows.len() == MAX_TABLE_ROWS {
                return Err(error(line, "file", format!("more than {MAX_TABLE_ROWS} rows")));
            }
            let row = columns.row(text).map_err(|(field, m)| error(line, field, m))?;
            rows.push(Row { line, ..row });
        }
        let smallest = rows.iter().map(|r| r.size).min().ok_or_else(|| error(0, "file", "no data rows".into()))?;
        let benchmarks = group(rows, smallest).map_err(|(line, field, m)| error(line, &field, m))?;
        Ok(Self { units: columns.units, benchmarks })
    }

    /// Predicts every benchmark's sizes from its two smallest with every
    /// method, and summarizes the errors per method and size.
    ///
    /// # Errors
    /// A benchmark the predictor refuses (e.g. a cliff with no `fmem_pct`),
    /// named with the reason.
    pub fn evaluate(&self, file: &str, rule: Rule) -> Result<TableReport, TableError> {
        let mut predictions = Vec::new();
        for bench in &self.benchmarks {
            let prediction = bench.predict(rule).map_err(|e| TableError {
                file: file.to_owned(),
                line: 0,
                field: format!("benchmark {}", bench.name),
                message: e.to_string(),
            })?;
            predictions.extend(rows_of(bench, &prediction));
        }
        let summary = summarize(&predictions);
        Ok(TableReport { predictions, summary })
    }
}

impl Benchmark {
    /// The predictor's inputs: the two smallest sizes' IPC, every MPKI, f_mem.
    ///
    /// # Errors
    /// As [`predict`].
    pub fn inputs(&self) -> Result<Inputs, ScaleError> {
        if self.ipc.len() < 2 {
            return Err(ScaleError::TooFewSizes { given: self.ipc.len() });
        }
        let f_mem = self.fmem_pct.map(|pct| pct / 100.0);
        Inputs::doubling(self.sizes[0], [self.ipc[0], self.ipc[1]], self.mpki.clone(), f_mem)
    }

    /// Every method's prediction at every size.
    ///
    /// # Errors
    /// As [`predict`].
    pub fn predict(&self, rule: Rule) -> Result<Prediction, ScaleError> {
        predict(&self.inputs()?, rule)
    }
}

fn rows_of<'a>(bench: &'a Benchmark, prediction: &'a Prediction) -> impl Iterator<Item = PredictionRow> + 'a {
    let n = bench.sizes.len();
    prediction.curves.iter().flat_map(move |curve| {
        (0..n).map(move |k| {
            PredictionRow::new(
                bench.name.clone(),
                bench.sizes[k],
                Role::of(k, n),
                curve.method,
                curve.ipc[k],
                bench.ipc[k],
            )
        })
    })
}

/// Mean and maximum error per method at every size past the scale models,
/// sizes ascending, methods in [`Method::ALL`] order.
pub fn summarize(predictions: &[PredictionRow]) -> Vec<SummaryRow> {
    let mut groups: BTreeMap<(u32, usize), Vec<f64>> = BTreeMap::new();
    for row in predictions.iter().filter(|r| r.role != Role::ScaleModel) {
        let method = Method::ALL.iter().position(|&m| m == row.model).unwrap_or(0);
        groups.entry((row.units, method)).or_default().push(row.abs_err_pct);
    }
    groups
        .into_iter()
        .map(|((units, method), errors)| SummaryRow {
            model: Method::ALL[method],
            target_units: units,
            mean_err_pct: errors.iter().sum::<f64>() / errors.len() as f64,
            max_err_pct: errors.iter().copied().fold(0.0, f64::max),
        })
        .collect()
}

/// Column positions found in the header.
struct Columns {
    benchmark: usize,
    size: usize,
    units: Units,
    ipc: usize,
    mpki: usize,
    fmem_pct: Option<usize>,
    count: usize,
}

/// One data row.
struct Row {
    line: usize,
    benchmark: String,
    size: u32,
    ipc: f64,
    mpki: f64,
    fmem_pct: Option<f64>,
}

impl Columns {
    fn find(header: &str) -> Result<Self, String> {
        let names: Vec<&str> = header.split(',').map(str::trim).collect();
        let at = |name: &str| names.iter().position(|&n| n == name);
        let need = |name: &str| at(name).ok_or_else(|| format!("no `{name}` column (columns: {})", names.join(", ")));
        let (size, units) = match (at("num_sms"), at("num_chiplets")) {
            (Some(i), None) => (i, Units::Sms),
            (None, Some(i)) => (i, Units::Chiplets),
            (Some(_), Some(_)) => return Err("both `num_sms` and `num_chiplets`; give one".into()),
            (None, None) => return Err("no `num_sms` or `num_chiplets` column".into()),
        };
        Ok(Self {
            benchmark: need("benchmark")?,
            size,
            units,
            ipc: need("ipc")?,
            mpki: need("mpki")?,
            fmem_pct: at("fmem_pct"),
            count: names.len(),
        })
    }

    fn row(&self, text: &str) -> Result<Row, (&'static str, String)> {
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        if fields.len() != self.count {
            return Err(("row", format!("{} fields; the header has {}", fields.len(), self.count)));
        }
        if text.contains('"') {
            return Err(("row", "quoted fields are not supported".into()));
        }
        let number = |i: usize, name: &'static str| {
            fields[i].parse::<f64>().map_err(|_| (name, format!("`{}` is not a number", fields[i])))
        };
        let size_name = match self.units {
            Units::Sms => "num_sms",
            Units::Chiplets => "num_chiplets",
        };
        let size = fields[self.size]
            .parse::<u32>()
            .ok()
            .filter(|&s| s > 0)
            .ok_or_else(|| (size_name, format!("`{}` is not a positive whole number", fields[self.size])))?;
        let fmem_pct = match self.fmem_pct {
            Some(i) if !fields[i].is_empty() => {
                let pct = number(i, "fmem_pct")?;
                if !(0.0..100.0).contains(&pct) {
                    return Err(("fmem_pct", format!("`{}` is not a percentage in [0, 100)", fields[i])));
                }
                Some(pct)
            }
            _ => None,
        };
        if fields[self.benchmark].is_empty() {
            return Err(("benchmark", "empty".into()));
        }
        let ipc = number(self.ipc, "ipc")?;
        if !(ipc.is_finite() && ipc > 0.0) {
            return Err(("ipc", format!("`{}` is not a positive number", fields[self.ipc])));
        }
        let mpki = number(self.mpki, "mpki")?;
        if !(mpki.is_finite() && mpki >= 0.0) {
            return Err(("mpki", format!("`{}` is not a number >= 0", fields[self.mpki])));
        }
        Ok(Row { line: 0, benchmark: fields[self.benchmark].to_owned(), size, ipc, mpki, fmem_pct })
    }
}

type GroupError = (usize, String, String);

/// Rows grouped by benchmark, each checked to run S, 2S, 4S, ….
fn group(rows: Vec<Row>, smallest: u32) -> Result<Vec<Benchmark>, GroupError> {
    let mut order: Vec<String> = Vec::new();
    let mut by_name: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for row in rows {
        if !by_name.contains_key(&row.benchmark) {
            order.push(row.benchmark.clone());
        }
        by_name.entry(row.benchmark.clone()).or_default().push(row);
    }
    order.into_iter().map(|name| benchmark(name.clone(), by_name.remove(&name).unwrap_or_default(), smallest)).collect()
}

fn benchmark(name: String, mut rows: Vec<Row>, smallest: u32) -> Result<Benchmark, GroupError> {
    rows.sort_by_key(|r| r.size);
    let field = |what: &str| format!("benchmark {name}: {what}");
    let mut expected = u64::from(smallest);
    for row in &rows {
        if u64::from(row.size) != expected {
            let message = if u64::from(row.size) < expected {
                format!("a second row at {}", row.size)
            } else {
                format!("no row at {expected} (sizes double from the file's smallest, {smallest})")
            };
            return Err((row.line, field("num_sms"), message));
        }
        expected *= 2;
    }
    let fmem_pct = rows.iter().find_map(|r| r.fmem_pct);
    if let Some(row) = rows.iter().find(|r| r.fmem_pct.is_some_and(|p| Some(p) != fmem_pct)) {
        return Err((row.line, field("fmem_pct"), "differs from the benchmark's first value".into()));
    }
    Ok(Benchmark {
        sizes: rows.iter().map(|r| r.size).collect(),
        ipc: rows.iter().map(|r| r.ipc).collect(),
        mpki: rows.iter().map(|r| r.mpki).collect(),
        fmem_pct,
        name,
    })
}
