//! The notes under a report: each distinct diagnostic once, with how many
//! kernels it applies to, instead of once per kernel (a 33-kernel H100
//! trace would print the same opcode-table note 33 times); `--verbose`
//! prints every one as it came.

use std::sync::atomic::{AtomicBool, Ordering};

/// `--verbose`: every diagnostic on its own line.
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Sets `--verbose` for the rest of the process.
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// What a diagnostic says once its subject is taken off: the simulator's
/// `kernel N (name): ` and a kernel file's `NAME.traceg[.xz]: `. `None` when
/// it names neither, so it is about the whole run.
fn message(diagnostic: &str) -> Option<&str> {
    let mut rest = diagnostic;
    let mut about_a_kernel = false;
    if let Some(after) = diagnostic.strip_prefix("kernel ")
        && after.starts_with(|c: char| c.is_ascii_digit())
        && let Some(end) = after.find("): ")
    {
        rest = &after[end + 3..];
        about_a_kernel = true;
    }
    if let Some((file, after)) = rest.split_once(": ")
        && !file.contains(' ')
        && (file.ends_with(".traceg") || file.ends_with(".traceg.xz"))
    {
        rest = after;
        about_a_kernel = true;
    }
    about_a_kernel.then_some(rest)
}

/// `note: ...` lines for `diagnostics`: in the order they first came, each
/// message said once; one that several kernels share says how many.
pub fn render(diagnostics: &[String]) -> String {
    if VERBOSE.load(Ordering::Relaxed) {
        return diagnostics.iter().map(|d| format!("note: {d}\n")).collect();
    }
    let mut groups: Vec<(&str, Vec<&String>)> = Vec::new();
    for diagnostic in diagnostics {
        let key = message(diagnostic).unwrap_or(diagnostic);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(diagnostic),
            None => groups.push((key, vec![diagnostic])),
        }
    }
    let line = |(key, members): &(&str, Vec<&String>)| match members.as_slice() {
        [one] => format!("note: {one}\n"),
        _ if message(members[0]).is_some() => {
            format!("note: {key} ({} kernels; --verbose lists each)\n", members.len())
        }
        _ => format!("note: {key} ({} times)\n", members.len()),
    };
    groups.iter().map(line).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_several_kernels_share_is_said_once_with_their_count() {
        let fallback = "binary version 90 has no opcode table of its own; using the Ampere table";
        let mut diagnostics: Vec<String> =
            (1..=33).map(|k| format!("kernel {k} (find(int)): kernel-{k}.traceg.xz: {fallback}")).collect();
        diagnostics.insert(1, "kernel 2 (find(int)): stopped at 100 cycles".to_owned());
        diagnostics.push("kernel-9.traceg: line 3: bad field".to_owned());
        let text = render(&diagnostics);
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                format!("note: {fallback} (33 kernels; --verbose lists each)"),
                "note: kernel 2 (find(int)): stopped at 100 cycles".to_owned(),
                "note: kernel-9.traceg: line 3: bad field".to_owned(),
            ]
        );
        let same = vec!["the run stopped early".to_owned(); 2];
        assert_eq!(render(&same), "note: the run stopped early (2 times)\n");
    }
}
