//! The file system side of config commands: a preset name, a config
//! directory, or config files, read into a `GpuConfig` through the lab.

use std::path::{Path, PathBuf};

use warplab_lab::{ConfigReport, GpuConfig, preset_config, read_config_dir, read_config_files};

/// Reads the config named by `specs`: one preset name or alias, one config
/// directory (read by the directory rule), or config files (all applied).
pub fn load(specs: &[PathBuf]) -> Result<(String, GpuConfig), String> {
    let label = specs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" ");
    if let [single] = specs
        && !single.exists()
        && single.components().count() == 1
    {
        return preset_config(&label)
            .map(|(name, config)| (format!("preset {name}"), config))
            .map_err(|e| e.to_string());
    }
    match specs {
        [dir] if dir.is_dir() => read_config_dir(&directory_files(dir)?).map_err(|e| e.to_string()),
        _ => {
            let mut files = specs.iter().map(|spec| read(spec)).collect::<Result<Vec<_>, _>>()?;
            let looked = add_named_icnt(specs, &mut files);
            read_config_files(&files).map_err(|e| match looked {
                Some(places) if e.to_string().contains(".icnt file") => format!("{e} (looked for it {places})"),
                _ => e.to_string(),
            })
        }
    }
    .map(|config| (label, config))
}

/// GPGPU-Sim opens the file `-inter_config_file` names relative to where
/// it runs; a user who passes the config file expects the `.icnt` beside it
/// to be read too. When the files given name one (the last setting wins) and
/// none of them is it, adds it from beside the config file that names it,
/// else from the working directory. Returns where it looked when it found
/// nothing, for the error the reader gives if the config needs the file.
fn add_named_icnt(specs: &[PathBuf], files: &mut Vec<(String, String)>) -> Option<String> {
    let (namer, named) = specs
        .iter()
        .zip(files.iter())
        .rev()
        .find_map(|(spec, (_, text))| Some((spec, warplab_lab::named_icnt(text)?)))?;
    let base = |path: &Path| path.file_name().map(|n| n.to_owned());
    if specs.iter().any(|spec| base(spec) == base(Path::new(&named))) {
        return None;
    }
    let beside = namer.parent().unwrap_or(Path::new(".")).join(&named);
    let here = std::env::current_dir().unwrap_or_default().join(&named);
    for candidate in [&beside, &here] {
        if candidate.is_file()
            && let Ok(file) = read(candidate)
        {
            files.push(file);
            return None;
        }
    }
    Some(format!(
        "beside {}: {}, and in the working directory: {}; give it with --config too",
        namer.display(),
        beside.display(),
        here.display()
    ))
}

/// Whether `path` is a config directory or file rather than a trace.
pub fn is_config(path: &Path) -> bool {
    if path.is_dir() {
        return path.join("gpgpusim.config").is_file();
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".config") || name.ends_with(".icnt")
}

fn directory_files(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() && is_config(&path) {
            files.push(read(&path)?);
        }
    }
    Ok(files)
}

/// `(file name, text)`: the name is what error messages show.
fn read(path: &Path) -> Result<(String, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((path.display().to_string(), text))
}

/// Writes `config` as files into `dir`.
pub fn write(config: &GpuConfig, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, text) in config.to_files() {
        let path = dir.join(&name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// A config report as JSON (the summary) or as grouped text.
pub fn render(report: &ConfigReport, json: bool) -> Result<String, String> {
    if json {
        return serde_json::to_string_pretty(&report.summary).map_err(|e| format!("writing JSON: {e}"));
    }
    let mut out = format!("{}\n", report.label);
    for group in &report.view.groups {
        out += &format!("\n{}\n", group.title);
        for row in &group.rows {
            out += &format!("  {:<34} {:<28} {}\n", row.label, row.value, row.option);
        }
    }
    let lists = [
        ("options GPGPU-Sim does not know", &report.summary.unknown_options),
        ("options warplab does not model", &report.summary.unmodelled_options),
    ];
    for (title, options) in lists {
        out += &format!("\n{title} ({})\n", options.len());
        for option in options {
            out += &format!("  {} {}\n", option.name, option.value.as_deref().unwrap_or(""));
        }
    }
    out += &crate::notes::render(&report.diagnostics);
    Ok(out)
}
