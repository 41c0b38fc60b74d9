//! What a recorded run (`validate-*`, `sampling`) stamps its tables with,
//! and the reports a run saves so that `--tables-only` can rewrite the docs
//! from them without simulating again.

use std::path::Path;

use serde_json::Value;

use crate::shell::{Result, command, output};
use crate::validate_models::write;

/// `on YYYY-MM-DD at commit C`: today's date (UTC) and `git describe`, for
/// the line a generated table opens with.
pub fn made_now() -> Result<String> {
    let date = output(&mut command("date", &["-u", "+%Y-%m-%d"]))?;
    let commit = output(&mut command("git", &["describe", "--always", "--dirty"]))?;
    Ok(format!("on {} at commit {}", date.trim(), commit.trim()))
}

/// Saves `reports` as `dir/<name>.json`, one per name, and `made` beside them.
pub fn save(dir: &Path, names: &[String], reports: &[Value], made: &str) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, report) in names.iter().zip(reports) {
        let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
        write(&dir.join(format!("{name}.json")), &text)?;
    }
    write(&dir.join("made.txt"), made)
}

/// The reports [`save`] wrote for `names`, and when they were made; a
/// missing one says to run `command` first.
pub fn load(dir: &Path, names: &[String], command: &str) -> Result<(Vec<Value>, String)> {
    let read = |file: &str| {
        let path = dir.join(file);
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e} (run `{command}` first)", path.display()))
    };
    let reports = names
        .iter()
        .map(|name| serde_json::from_str(&read(&format!("{name}.json"))?).map_err(|e| e.to_string()))
        .collect::<Result<Vec<Value>>>()?;
    Ok((reports, read("made.txt")?))
}
