//! The file system side of trace commands: which files a path means, opened as
//! streams for the lab.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use warplab_lab::{WorkloadSummary, convert_trace, summarize_kernel_file, summarize_trace};

/// What a trace path names.
enum TracePath {
    /// A directory (or its `kernelslist.g`): the list's text and the directory.
    List { dir: PathBuf, list: String },
    /// A single kernel file.
    Kernel(PathBuf),
}

fn resolve(path: &Path) -> Result<TracePath, String> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if path.is_file() && (name.ends_with(".traceg") || name.ends_with(".traceg.xz")) {
        return Ok(TracePath::Kernel(path.to_path_buf()));
    }
    let (dir, list_path) = if path.is_file() {
        (path.parent().map(Path::to_path_buf).unwrap_or_default(), path.to_path_buf())
    } else {
        (path.to_path_buf(), path.join("kernelslist.g"))
    };
    let list = std::fs::read_to_string(&list_path).map_err(|e| format!("{}: {e}", list_path.display()))?;
    Ok(TracePath::List { dir, list })
}

/// Opens the files of `dir` by the names the trace gives them.
pub fn opener(dir: &Path) -> impl FnMut(&str) -> Result<Box<dyn Read>, String> + 'static {
    let dir = dir.to_path_buf();
    move |file| File::open(dir.join(file)).map(|f| Box::new(f) as Box<dyn Read>).map_err(|e| e.to_string())
}

/// The `kernelslist.g` text and directory `path` means; a single kernel file
/// becomes a one-line list.
pub fn list_of(path: &Path) -> Result<(PathBuf, String), String> {
    Ok(match resolve(path)? {
        TracePath::List { dir, list } => (dir, list),
        TracePath::Kernel(file) => {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("kernel-1.traceg").to_owned();
            (file.parent().map(Path::to_path_buf).unwrap_or_default(), format!("{name}\n"))
        }
    })
}

/// Summarizes the trace at `path`.
pub fn summarize(path: &Path) -> Result<WorkloadSummary, String> {
    let label = path.display().to_string();
    match resolve(path)? {
        TracePath::Kernel(file) => {
            let reader = File::open(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            summarize_kernel_file(&label, &file.display().to_string(), reader).map_err(|e| e.to_string())
        }
        TracePath::List { dir, list } => {
            summarize_trace(&label, &list, &mut opener(&dir)).map_err(|e| format!("{}: {e}", dir.display()))
        }
    }
}

/// Rewrites the trace at `path` into `output` as version-5 traces.
pub fn convert(path: &Path, output: &Path, xz: bool) -> Result<(), String> {
    std::fs::create_dir_all(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let (dir, list) = list_of(path)?;
    let mut create = |name: &str| -> Result<Box<dyn Write>, String> {
        let file = File::create(output.join(name)).map_err(|e| e.to_string())?;
        Ok(Box::new(BufWriter::new(file)))
    };
    let new_list =
        convert_trace(&list, &mut opener(&dir), &mut create, xz).map_err(|e| format!("{}: {e}", dir.display()))?;
    let list_path = output.join("kernelslist.g");
    std::fs::write(&list_path, new_list).map_err(|e| format!("{}: {e}", list_path.display()))
}
