//! A sweep directory's files: `plan.json`, and `points/I.json` for each
//! point run, each written whole under another name and then renamed, so a
//! task killed mid-write leaves no half-written point.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::evaluate::{Outcome, PointResult};
use super::plan::Plan;

/// `DIR/points`.
pub fn points_dir(dir: &Path) -> PathBuf {
    dir.join("points")
}

/// Writes `text` to `path` atomically: a temporary file beside it, synced,
/// then renamed over it.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let temporary = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let failed = |e: std::io::Error| format!("{}: {e}", temporary.display());
    let mut file = std::fs::File::create(&temporary).map_err(failed)?;
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `DIR/points/I.json`.
pub fn write_point(dir: &Path, result: &PointResult) -> Result<(), String> {
    let points = points_dir(dir);
    std::fs::create_dir_all(&points).map_err(|e| format!("{}: {e}", points.display()))?;
    let text = serde_json::to_string(result).map_err(|e| e.to_string())? + "\n";
    write_atomically(&points.join(format!("{}.json", result.index)), &text)
}

/// The plan's points that have a file, in point order (an unreadable file
/// counts as failed, with why), and the indexes of those that have none.
pub fn read_points(dir: &Path, plan: &Plan) -> (Vec<PointResult>, Vec<usize>) {
    let mut results = Vec::new();
    let mut missing = Vec::new();
    for index in 0..plan.points.len() {
        let path = points_dir(dir).join(format!("{index}.json"));
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(index);
                continue;
            }
            Err(e) => {
                results.push(unreadable(index, &path, &e.to_string()));
                continue;
            }
        };
        match serde_json::from_str::<PointResult>(&text) {
            Ok(result) if result.index != index => {
                results.push(unreadable(index, &path, &format!("holds point {}", result.index)));
            }
            Ok(PointResult { outcome: Outcome::Done { ipc, .. }, .. }) if ipc.len() != plan.models.len() => {
                let why = format!("{} IPCs for the plan's {} models", ipc.len(), plan.models.len());
                results.push(unreadable(index, &path, &why));
            }
            Ok(result) => results.push(result),
            Err(e) => results.push(unreadable(index, &path, &e.to_string())),
        }
    }
    (results, missing)
}

fn unreadable(index: usize, path: &Path, why: &str) -> PointResult {
    PointResult { index, outcome: Outcome::Failed { error: format!("{}: {why}", path.display()) } }
}

/// The points still to run: those without a file and those that failed.
pub fn unfinished(dir: &Path, plan: &Plan) -> Vec<usize> {
    let (results, missing) = read_points(dir, plan);
    let failed = results.iter().filter(|r| matches!(r.outcome, Outcome::Failed { .. })).map(|r| r.index);
    let mut indexes: Vec<usize> = missing.into_iter().chain(failed).collect();
    indexes.sort_unstable();
    indexes
}
