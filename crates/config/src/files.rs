//! Which files of a config directory are read, and in which order (DESIGN
//! §2a): `gpgpusim.config` first, then every `*trace.config`, then `.icnt`.

/// What a file of a config directory is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfigFileKind {
    /// `gpgpusim.config`, `*trace.config` or another `*.config`: option files.
    Options,
    /// A BookSim interconnect file (`*.icnt`).
    Icnt,
    /// Anything else (power model XML, READMEs): not part of the config.
    Other,
}

/// The kind of a file, from its name (a path is allowed; only the last
/// component counts).
pub fn file_kind(name: &str) -> ConfigFileKind {
    let base = base_name(name);
    if base.ends_with(".icnt") {
        ConfigFileKind::Icnt
    } else if base.ends_with(".config") {
        ConfigFileKind::Options
    } else {
        ConfigFileKind::Other
    }
}

/// Orders a config directory's file names the way warplab applies them, and
/// drops the files that are not part of a config: `gpgpusim.config` first,
/// then every name ending in `trace.config` (e.g. `trace.config`,
/// `gpgpusim.trace.config`) in byte order, then every `.icnt` file in byte
/// order. Other `*.config` files are not read: the rule names exactly the
/// files Accel-Sim is run with. The CLI and the web app both call this, so a
/// directory means the same config in both.
pub fn order_config_files<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut ranked: Vec<(u8, &str)> = names.into_iter().filter_map(|name| rank(name).map(|r| (r, name))).collect();
    ranked.sort_by(|a, b| (a.0, base_name(a.1)).cmp(&(b.0, base_name(b.1))));
    ranked.into_iter().map(|(_, name)| name).collect()
}

/// Orders config files a user chose one by one: every option file is kept,
/// option files other than `*trace.config` first (in the order given), then
/// every `*trace.config`, then `.icnt` files; other files are dropped. Unlike
/// a directory, an explicit choice of `my.config` means that file is wanted.
pub fn order_chosen_config_files<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let chosen_rank = |name: &str| match (rank(name), file_kind(name)) {
        (Some(rank), _) => Some(rank),
        (None, ConfigFileKind::Options) => Some(0),
        (None, _) => None,
    };
    let mut ranked: Vec<(u8, &str)> = names.into_iter().filter_map(|n| chosen_rank(n).map(|r| (r, n))).collect();
    // Stable: within a rank, the order the user gave.
    ranked.sort_by_key(|(rank, _)| *rank);
    ranked.into_iter().map(|(_, name)| name).collect()
}

fn rank(name: &str) -> Option<u8> {
    let base = base_name(name);
    if base == "gpgpusim.config" {
        Some(0)
    } else if base.ends_with("trace.config") {
        Some(1)
    } else if base.ends_with(".icnt") {
        Some(2)
    } else {
        None
    }
}

/// The last component of a `/`- or `\`-separated path.
pub fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

#[cfg(test)]
mod chosen_tests {
    use super::*;

    #[test]
    fn chosen_files_keep_every_option_file() {
        let names = ["my.icnt", "trace.config", "b.config", "README.md", "a.config", "gpgpusim.config"];
        assert_eq!(
            order_chosen_config_files(names),
            ["b.config", "a.config", "gpgpusim.config", "trace.config", "my.icnt"]
        );
        assert_eq!(order_config_files(names), ["gpgpusim.config", "trace.config", "my.icnt"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(names: &[&str], expect: &[&str]) {
        assert_eq!(order_config_files(names.iter().copied()), expect);
    }

    #[test]
    fn directory_order() {
        check(
            &["trace.config", "config_volta_islip.icnt", "gpgpusim.config"],
            &["gpgpusim.config", "trace.config", "config_volta_islip.icnt"],
        );
        check(
            &["gpgpusim.trace.config", "config_fermi_islip.icnt", "gpgpusim.config", "accelwattch_sass_sim.xml"],
            &["gpgpusim.config", "gpgpusim.trace.config", "config_fermi_islip.icnt"],
        );
        check(
            &["b.icnt", "z/trace.config", "a.icnt", "a.trace.config"],
            &["a.trace.config", "z/trace.config", "a.icnt", "b.icnt"],
        );
        check(&["README.md", "other.config"], &[]);
    }

    #[test]
    fn kinds() {
        assert_eq!(file_kind("dir/config_volta_islip.icnt"), ConfigFileKind::Icnt);
        assert_eq!(file_kind("trace.config"), ConfigFileKind::Options);
        assert_eq!(file_kind("notes.txt"), ConfigFileKind::Other);
    }
}
