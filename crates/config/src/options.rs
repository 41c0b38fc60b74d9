//! The raw stage: option files read as GPGPU-Sim's `option_parser` reads them,
//! into `-name value` settings with the file and line of each, in order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{ConfigError, Location, shorten};
use crate::files::{ConfigFileKind, file_kind};
use crate::icnt::{RawIcnt, read_icnt};
use crate::known_options::{OptionKind, known_option};

/// One `-name value` setting as typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawSetting {
    /// The option name with its leading `-`.
    pub name: String,
    /// The value with quotes removed; `None` for a boolean standing alone
    /// (which means 1).
    pub value: Option<String>,
    /// Where the setting is.
    pub at: Location,
}

/// Every setting of a config's files, in the order read (later wins), plus the
/// BookSim `.icnt` files among them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawConfig {
    /// Settings in file order, then line order.
    pub settings: Vec<RawSetting>,
    /// The `.icnt` files, in the order given.
    pub icnt_files: Vec<RawIcnt>,
    /// The names of all files read, in order.
    pub files: Vec<String>,
    /// Index of the last setting of each name.
    last: BTreeMap<String, usize>,
}

impl RawConfig {
    /// Reads (file name, text) pairs in order: `.icnt` files as BookSim
    /// configs, every other file as a gpgpusim.config-format option file.
    ///
    /// # Errors
    ///
    /// An unterminated quote, a token where an option name belongs, an option
    /// that needs a value at the end of a file, or a malformed `.icnt` statement.
    pub fn read<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Self, ConfigError> {
        let mut raw = Self::default();
        for (name, text) in files {
            raw.files.push(name.to_owned());
            match file_kind(name) {
                ConfigFileKind::Icnt => raw.icnt_files.push(read_icnt(name, text)?),
                ConfigFileKind::Options | ConfigFileKind::Other => raw.read_options(name, text)?,
            }
        }
        Ok(raw)
    }

    /// The setting that wins for `name` (the last one), if any file sets it.
    pub fn get(&self, name: &str) -> Option<&RawSetting> {
        self.last.get(name).map(|&index| &self.settings[index])
    }

    /// Names in order of first appearance, each once.
    pub fn names_in_order(&self) -> Vec<&str> {
        let mut seen = std::collections::BTreeSet::new();
        self.settings.iter().map(|s| s.name.as_str()).filter(|name| seen.insert(*name)).collect()
    }

    fn read_options(&mut self, file: &str, text: &str) -> Result<(), ConfigError> {
        let tokens = tokenize(file, text)?;
        let mut index = 0;
        while index < tokens.len() {
            let token = &tokens[index];
            // The same test decides whether a token after an option is its
            // value, so what is read as an option here is written back as one.
            if token.quoted || !looks_like_option(&token.text) {
                return Err(ConfigError::ExpectedOption {
                    at: Location::new(file, token.line),
                    value: shorten(&token.text),
                });
            }
            let next = tokens.get(index + 1);
            let takes_value = match known_option(&token.text).map(|known| known.kind) {
                // GPGPU-Sim: a flag followed by another `-option` (or nothing) means 1.
                Some(OptionKind::Bool) => next.is_some_and(|next| next.quoted || !next.text.starts_with('-')),
                Some(_) => {
                    if next.is_none() {
                        let at = Location::new(file, token.line);
                        return Err(ConfigError::MissingValue { at, option: token.text.clone() });
                    }
                    true
                }
                // Unknown options are kept; a following option name (not a
                // negative number) means this one stands alone.
                None => next.is_some_and(|next| next.quoted || !looks_like_option(&next.text)),
            };
            let value = if takes_value { next.map(|next| next.text.clone()) } else { None };
            self.push(RawSetting { name: token.text.clone(), value, at: Location::new(file, token.line) });
            index += if takes_value { 2 } else { 1 };
        }
        Ok(())
    }

    fn push(&mut self, setting: RawSetting) {
        self.last.insert(setting.name.clone(), self.settings.len());
        self.settings.push(setting);
    }
}

/// Whether a token is an option name rather than a value: `-` then a letter
/// or `_` (so `-1` and `-.5` are values).
pub(crate) fn looks_like_option(token: &str) -> bool {
    let mut chars = token.chars();
    chars.next() == Some('-') && chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// A line starting with this holds options only warplab reads: to GPGPU-Sim
/// it is a comment, so a file warplab writes still runs there.
pub const WARPLAB_PREFIX: &str = "#warplab ";

/// A whitespace-separated word of an option file, or a quoted value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    /// The line the token starts on.
    line: u32,
    /// Whether it came from quotes (then it is always a value).
    quoted: bool,
}

/// Splits a file into tokens: `#` to the end of a line is a comment, except
/// the [`WARPLAB_PREFIX`] at the start of a line, after which the line is
/// read as options; a token
/// starting with `"` is joined (with single spaces, across lines) with the
/// following tokens until one ends with `"`, and the quotes are removed.
fn tokenize(file: &str, text: &str) -> Result<Vec<Token>, ConfigError> {
    let mut tokens = Vec::new();
    let mut open: Option<(Vec<&str>, u32)> = None;
    for (line_index, line) in text.lines().enumerate() {
        let line_number = u32::try_from(line_index + 1).unwrap_or(u32::MAX);
        let line = line.trim_start().strip_prefix(WARPLAB_PREFIX).unwrap_or(line);
        let code = line.split('#').next().unwrap_or("");
        for word in code.split_whitespace() {
            if let Some((parts, start)) = &mut open {
                parts.push(word);
                if word.ends_with('"') {
                    tokens.push(Token { text: unquote(&parts.join(" ")), line: *start, quoted: true });
                    open = None;
                }
            } else if word.starts_with('"') && !(word.len() > 1 && word.ends_with('"')) {
                open = Some((vec![word], line_number));
            } else if word.starts_with('"') {
                tokens.push(Token { text: unquote(word), line: line_number, quoted: true });
            } else {
                tokens.push(Token { text: word.to_owned(), line: line_number, quoted: false });
            }
        }
    }
    match open {
        Some((parts, start)) => {
            Err(ConfigError::UnterminatedQuote { at: Location::new(file, start), value: shorten(&parts.join(" ")) })
        }
        None => Ok(tokens),
    }
}

/// Removes the first and the last character (both `"`).
fn unquote(text: &str) -> String {
    text[1..text.len() - 1].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads one file and renders each setting as `line:name=value`
    /// (`name` alone for a standalone flag), or the error message.
    fn check(text: &str, expect: Result<&[&str], &str>) {
        let got = RawConfig::read([("gpgpusim.config", text)]).map(|raw| {
            raw.settings
                .iter()
                .map(|s| match &s.value {
                    Some(value) => format!("{}:{}={}", s.at.line, s.name, value),
                    None => format!("{}:{}", s.at.line, s.name),
                })
                .collect::<Vec<_>>()
        });
        let expect = expect.map(|lines| lines.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>());
        assert_eq!(got.map_err(|e| e.to_string()), expect.map_err(str::to_owned));
    }

    #[test]
    fn pairs_comments_and_blank_lines() {
        check(
            "# header\n-gpgpu_n_clusters 80   # eighty\n\n-gpgpu_n_mem 32\n",
            Ok(&["2:-gpgpu_n_clusters=80", "4:-gpgpu_n_mem=32"]),
        );
        check("-dram_data_command_freq_ratio 2  # HBM is DDR", Ok(&["1:-dram_data_command_freq_ratio=2"]));
        // Several pairs on one line are one token stream.
        check("-gpgpu_n_mem 8 -gpgpu_n_clusters 4", Ok(&["1:-gpgpu_n_mem=8", "1:-gpgpu_n_clusters=4"]));
    }

    #[test]
    fn quoted_values_span_lines() {
        check(
            "-gpgpu_dram_timing_opt \"nbk=16:CCD=1:\n                        CL=12:WL=2\"\n-gpgpu_n_mem 4",
            Ok(&["1:-gpgpu_dram_timing_opt=nbk=16:CCD=1: CL=12:WL=2", "3:-gpgpu_n_mem=4"]),
        );
        check("-inter_config_file \"a b\"", Ok(&["1:-inter_config_file=a b"]));
        check("-inter_config_file \"\"", Ok(&["1:-inter_config_file="]));
        check("-gpgpu_runtime_stat \"-x\"", Ok(&["1:-gpgpu_runtime_stat=-x"]));
    }

    #[test]
    fn standalone_booleans_mean_one() {
        check(
            "-gpgpu_perf_sim_memcpy\n-gpgpu_n_mem 4\n-gpgpu_flush_l1_cache",
            Ok(&["1:-gpgpu_perf_sim_memcpy", "2:-gpgpu_n_mem=4", "3:-gpgpu_flush_l1_cache"]),
        );
        check("-gpgpu_perf_sim_memcpy 0", Ok(&["1:-gpgpu_perf_sim_memcpy=0"]));
    }

    #[test]
    fn unknown_options_are_kept_with_or_without_a_value() {
        check(
            "-gpgpu_lrc_enabled 1\n-my_flag\n-gpgpu_n_mem 4\n-offset -3",
            Ok(&["1:-gpgpu_lrc_enabled=1", "2:-my_flag", "3:-gpgpu_n_mem=4", "4:-offset=-3"]),
        );
        // A known integer option takes the next token even if it starts with `-`.
        check("-gpgpu_warpdistro_shader -1", Ok(&["1:-gpgpu_warpdistro_shader=-1"]));
    }

    #[test]
    fn warplab_lines_are_options_and_other_comments_are_not() {
        check(
            "#warplab -warplab_chiplet_topology ring # a ring\n# -gpgpu_n_mem 4\n  #warplab -x 1",
            Ok(&["1:-warplab_chiplet_topology=ring", "3:-x=1"]),
        );
        check("#warplab-x 1\n#  warplab -y 2", Ok(&[]));
    }

    #[test]
    fn later_settings_win() {
        let raw = RawConfig::read([("a.config", "-gpgpu_n_mem 8\n-gpgpu_n_mem 16"), ("b.config", "-gpgpu_n_mem 24")])
            .expect("reads");
        let winner = raw.get("-gpgpu_n_mem").expect("set");
        assert_eq!((winner.value.as_deref(), winner.at.to_string().as_str()), (Some("24"), "b.config:1"));
        assert_eq!(raw.names_in_order(), ["-gpgpu_n_mem"]);
    }

    #[test]
    fn malformed_token_streams() {
        check(
            "gpgpu_n_mem 4",
            Err("gpgpusim.config:1: expected an option name starting with `-`, found `gpgpu_n_mem`"),
        );
        check("-gpgpu_n_mem 4 5", Err("gpgpusim.config:1: expected an option name starting with `-`, found `5`"));
        check("\n-gpgpu_n_mem", Err("gpgpusim.config:2: -gpgpu_n_mem: missing value at the end of the file"));
        check(
            "-gpgpu_dram_timing_opt \"nbk=16:\nCL=12",
            Err("gpgpusim.config:1: unterminated quote in `\"nbk=16: CL=12`"),
        );
    }
}
