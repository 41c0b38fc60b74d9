//! The share-link codec: an [`Experiment`] as the text after `#x=` in a URL,
//! and back, defensively, since a link is untrusted input.
//!
//! Format (version 6): the character `6`, then base64url without padding of
//! the raw DEFLATE (RFC 1951) of the experiment's compact JSON. The version
//! character comes first so that a later format adds an arm to
//! [`decode_link`]'s match and every link ever shared still opens, and a
//! page older than a link says so instead of calling it damaged.
//!
//! Versions: 1, the first; 2 added the scale-model target
//! (`scale.target_sms`); 3 added the sampling mode (`sampling`); 4 the
//! analytical panel's choice to show the paper's models only
//! (`view.paper_models_only`); 5 weak scaling (`scale.weak`); 6 an authored
//! kernel's source as the workload (`workload.kernel`) and the speed Replay
//! plays a finished run at (`view.replay_speed`). All are read by the same
//! decoder, since an older experiment is a newer one without the fields
//! added since (a target, sampling off, every model shown, strong scaling,
//! no kernel, the page's replay speed). A kernel's source makes a link as
//! long as the source compresses to: one that does not fit
//! [`MAX_LINK_BYTES`] travels in the experiment file instead (the page says
//! so). The version
//! still changes with each new field, so a page older than the link says
//! it is newer rather than that a field is unknown.
//!
//! Limits, checked before the work they bound: at most [`MAX_LINK_BYTES`] of
//! link text, at most [`MAX_JSON_BYTES`] of JSON once inflated (a "deflate
//! bomb" stops there), and then [`Experiment::validate`]: names that exist,
//! values in range, at most [`MAX_EDITS`] config edits.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use miniz_oxide::inflate::TINFLStatus;

use crate::experiment::Experiment;

/// The version [`encode_link`] writes.
pub const LINK_VERSION: char = '6';

/// Every version [`decode_link`] reads.
pub const KNOWN_LINK_VERSIONS: &[char] = &['1', '2', '3', '4', '5', '6'];

/// The longest link text accepted (a whole URL included): browsers and chat
/// programs keep URLs of this length intact.
pub const MAX_LINK_BYTES: usize = 8192;

/// The largest experiment JSON accepted, inflated from a link or read from a
/// downloaded file. A real experiment is well under 4 KiB.
pub const MAX_JSON_BYTES: usize = 64 * 1024;

/// The DEFLATE level links are written with (miniz's best, 0..=10): links
/// are short, so the time does not matter and every byte saved does.
const DEFLATE_LEVEL: u8 = 9;

/// Why a link or an experiment file cannot be opened, in words a student
/// understands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinkError {
    /// The link text is longer than [`MAX_LINK_BYTES`].
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
    /// The link (or file) holds more than [`MAX_JSON_BYTES`] of JSON.
    TooLarge,
    /// The link was written by a warplab whose format this one does not read.
    UnknownVersion {
        /// The version character found.
        version: char,
    },
    /// The link was cut short or mangled on the way (not base64url, not
    /// DEFLATE).
    Damaged(String),
    /// The JSON is not an experiment this warplab reads (a syntax error, a
    /// field it does not know, a value of the wrong type).
    Unreadable(String),
    /// The link names a preset this warplab does not bundle.
    UnknownPreset(String),
    /// A value the lab cannot use (an unknown sample, a knob out of range,
    /// an edit the config reader refuses, ...); the message names it.
    Invalid(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = || KNOWN_LINK_VERSIONS.iter().map(char::to_string).collect::<Vec<_>>().join(", ");
        match self {
            LinkError::TooLong { bytes } => write!(
                f,
                "the link is {bytes} bytes long; links of more than {MAX_LINK_BYTES} bytes are refused (was something pasted twice?)"
            ),
            LinkError::TooLarge => {
                write!(f, "the experiment is larger than {} KiB, more than any real experiment", MAX_JSON_BYTES / 1024)
            }
            LinkError::UnknownVersion { version } if version.is_ascii_digit() => {
                write!(f, "this link is from a newer warplab (version {version}); this page reads versions {}", known())
            }
            LinkError::UnknownVersion { version } => write!(
                f,
                "the link is damaged: it starts with `{}`, not a version (this page reads versions {})",
                version.escape_default(),
                known()
            ),
            LinkError::Damaged(reason) => write!(f, "the link is damaged: {}", one_line(reason)),
            LinkError::Unreadable(reason) => write!(
                f,
                "the experiment does not read: {} (was it written by another warplab, or edited?)",
                one_line(reason)
            ),
            LinkError::UnknownPreset(name) => {
                let names: Vec<_> = warplab_config::PRESETS.iter().map(|p| p.name).collect();
                write!(
                    f,
                    "the link names preset `{}`, which this warplab does not have; its presets are {}",
                    one_line(name),
                    names.join(", ")
                )
            }
            LinkError::Invalid(reason) => write!(f, "the experiment cannot run: {}", one_line(reason)),
        }
    }
}

/// The longest message part shown from a link: the text comes from the link
/// (a field name, a value), so it is bounded here.
const MAX_SHOWN_CHARS: usize = 400;

/// `text` on one line and bounded: the messages quote the link's own text
/// (serde names an unknown field as given), which may hold line breaks.
fn one_line(text: &str) -> String {
    let mut shown: String = text
        .chars()
        .take(MAX_SHOWN_CHARS)
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect();
    if text.chars().nth(MAX_SHOWN_CHARS).is_some() {
        shown.push('…');
    }
    shown
}

impl std::error::Error for LinkError {}

/// The link payload of `experiment`: what follows `#x=` in the page's URL.
/// A link longer than [`MAX_LINK_BYTES`] would be refused when opened;
/// callers that show links check `len()` (the CLI refuses to print one).
pub fn encode_link(experiment: &Experiment) -> String {
    let json = experiment.to_json_compact();
    let deflated = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), DEFLATE_LEVEL);
    let mut link = String::with_capacity(1 + deflated.len().div_ceil(3) * 4);
    link.push(LINK_VERSION);
    URL_SAFE_NO_PAD.encode_string(&deflated, &mut link);
    link
}

/// The experiment a link carries, checked with [`Experiment::validate`].
/// `text` is the bare payload, `x=...`, `#x=...`, or a whole URL whose
/// fragment holds `x=...`; surrounding whitespace is ignored.
///
/// # Errors
/// Text too long, an unknown version, a damaged payload, JSON over
/// [`MAX_JSON_BYTES`] or with fields this warplab does not know, or values
/// that do not check out.
pub fn decode_link(text: &str) -> Result<Experiment, LinkError> {
    if text.len() > MAX_LINK_BYTES {
        return Err(LinkError::TooLong { bytes: text.len() });
    }
    let payload = link_payload(text);
    let mut chars = payload.chars();
    let Some(version) = chars.next() else {
        return Err(LinkError::Damaged("it carries no experiment (nothing after `#x=`)".to_owned()));
    };
    let experiment = match version {
        '1' | '2' | '3' | '4' | '5' | '6' => decode_deflated_json(chars.as_str())?,
        version => return Err(LinkError::UnknownVersion { version }),
    };
    experiment.validate()?;
    Ok(experiment)
}

/// The payload inside whatever was pasted: after `#x=` (or a leading `x=`),
/// up to a later `&` parameter a future page might add.
fn link_payload(text: &str) -> &str {
    let text = text.trim();
    let text = match text.find("#x=") {
        Some(at) => &text[at + 3..],
        None => text.strip_prefix("x=").unwrap_or(text),
    };
    text.split('&').next().unwrap_or(text)
}

/// Versions 1 to 6: base64url (padding tolerated) of raw DEFLATE of compact JSON.
fn decode_deflated_json(encoded: &str) -> Result<Experiment, LinkError> {
    let encoded = encoded.trim_end_matches('=');
    let deflated = URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|error| LinkError::Damaged(format!("it is not base64url text ({error})")))?;
    let json = inflate_bounded(&deflated)?;
    Experiment::from_json_bytes(&json)
}

/// Inflates at most [`MAX_JSON_BYTES`].
fn inflate_bounded(deflated: &[u8]) -> Result<Vec<u8>, LinkError> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_JSON_BYTES).map_err(|error| match error.status {
        TINFLStatus::HasMoreOutput => LinkError::TooLarge,
        TINFLStatus::FailedCannotMakeProgress => {
            LinkError::Damaged("it ends too early (was it cut off when copied?)".to_owned())
        }
        _ => LinkError::Damaged("its compressed data does not unpack".to_owned()),
    })
}

impl Experiment {
    /// The experiment as pretty JSON with a final newline: the "Download
    /// experiment (JSON)" file and what `warplab experiment show` prints.
    pub fn to_json_pretty(&self) -> String {
        // Serializing cannot fail: every map key is a string and every
        // value a plain number, string or list.
        serde_json::to_string_pretty(self).map(|text| text + "\n").unwrap_or_default()
    }

    /// The experiment as compact JSON (what a link compresses).
    pub fn to_json_compact(&self) -> String {
        // As in `to_json_pretty`, this cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads an experiment file (JSON, at most [`MAX_JSON_BYTES`]) and
    /// checks it as [`decode_link`] checks a link.
    ///
    /// # Errors
    /// As [`decode_link`], but for the link's own encoding.
    pub fn from_json(text: &str) -> Result<Experiment, LinkError> {
        let experiment = Experiment::from_json_bytes(text.as_bytes())?;
        experiment.validate()?;
        Ok(experiment)
    }

    /// Parses at most [`MAX_JSON_BYTES`] of JSON, unknown fields refused;
    /// values are not checked yet.
    fn from_json_bytes(json: &[u8]) -> Result<Experiment, LinkError> {
        if json.len() > MAX_JSON_BYTES {
            return Err(LinkError::TooLarge);
        }
        serde_json::from_slice(json).map_err(|error| LinkError::Unreadable(error.to_string()))
    }
}
