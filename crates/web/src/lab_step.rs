//! A lab step a link carries: which lab, which step, and what to watch (one
//! figure, in one panel), for the banner the page opens with.
//!
//! It travels after the experiment in the URL fragment, as parameters the
//! share-link codec already skips (`#x=PAYLOAD&lab=...&step=...&watch=...&panel=...`,
//! each value percent-encoded; `lab::link` reads the payload up to the first
//! `&`), so the CLI and an older page open such a link as the bare
//! experiment, and a link without them opens exactly as before. `cargo xtask
//! labs` writes them into the handouts' links (`xtask/src/labs.rs`, the same
//! format; the e2e handout test opens every link and reads the banner).

use crate::components::section_label;

/// What a link says about its lab step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabStep {
    /// The lab, e.g. `Lab 1: memory divergence`.
    pub lab: String,
    /// The step, e.g. `1b`.
    pub step: String,
    /// What to watch, e.g. `the L1-miss latency chart`; may be empty.
    pub watch: String,
    /// The `id` of the panel that shows it, one of the page's sections.
    pub panel: Option<&'static str>,
}

impl LabStep {
    /// The step a URL fragment carries after its experiment, if any: `None`
    /// without a `step` parameter or with a value that does not decode; an
    /// unknown panel is left out (the banner still names the step).
    pub fn from_fragment(fragment: &str) -> Option<LabStep> {
        let (_, params) = fragment.split_once('&')?;
        let mut step = LabStep { lab: String::new(), step: String::new(), watch: String::new(), panel: None };
        for param in params.split('&') {
            let (key, value) = param.split_once('=')?;
            let value = percent_decode(value)?;
            match key {
                "lab" => step.lab = value,
                "step" => step.step = value,
                "watch" => step.watch = value,
                "panel" => step.panel = section_label(&value).map(|(id, _)| id),
                // Parameters a later page may add are skipped, as the codec skips these.
                _ => {}
            }
        }
        (!step.step.is_empty()).then_some(step)
    }

    /// The parameters that carry this step, to follow an experiment's
    /// `#x=PAYLOAD`: `&lab=...&step=...&watch=...&panel=...`.
    pub fn params(&self) -> String {
        let mut params = format!(
            "&lab={}&step={}&watch={}",
            percent_encode(&self.lab),
            percent_encode(&self.step),
            percent_encode(&self.watch)
        );
        if let Some(panel) = self.panel {
            params.push_str(&format!("&panel={panel}"));
        }
        params
    }

    /// The panel's name as the section links write it.
    pub fn panel_label(&self) -> Option<&'static str> {
        self.panel.and_then(|id| section_label(id).map(|(_, label)| label))
    }
}

/// `text` with every byte but the unreserved ones (`A-Z a-z 0-9 - . _ ~`)
/// as `%XX`, so a value never holds `&`, `#`, `)` or a space.
fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// The text `%XX` escapes stand for; `None` for a broken escape or bytes
/// that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(fragment: &str, expect: Option<(&str, &str, &str, Option<&str>)>) {
        let step = LabStep::from_fragment(fragment);
        let got = step.as_ref().map(|s| (s.lab.as_str(), s.step.as_str(), s.watch.as_str(), s.panel));
        assert_eq!(got, expect, "{fragment}");
    }

    #[test]
    fn a_link_without_a_step_has_none() {
        check("#x=5LY9abc", None);
        check("", None);
        check("#x=5LY9abc&sampling=on", None);
    }

    #[test]
    fn a_handout_link_names_its_lab_step_watch_and_panel() {
        // As `cargo xtask labs` writes them (xtask/src/labs.rs's test pins the same text).
        check(
            "#x=5LY9&lab=Lab%201%3A%20memory%20divergence&step=1b&watch=the%20L1-miss%20latency%20chart&panel=report-panel",
            Some(("Lab 1: memory divergence", "1b", "the L1-miss latency chart", Some("report-panel"))),
        );
        check("#x=5LY9&step=2a&future=1", Some(("", "2a", "", None)));
        check("#x=5LY9&step=2a&panel=nowhere", Some(("", "2a", "", None)));
    }

    #[test]
    fn broken_parameters_open_no_banner() {
        check("#x=5LY9&step=1%2", None);
        check("#x=5LY9&step=%FF", None);
        check("#x=5LY9&step", None);
    }

    #[test]
    fn a_step_travels_back_into_the_same_parameters() {
        let step = LabStep {
            lab: "Lab 3: scale models".into(),
            step: "3c".into(),
            watch: "the Scale-model card's reason (why no prediction) & the IPC line".into(),
            panel: Some("scale-panel"),
        };
        let params = step.params();
        assert!(!params[1..].contains(['#', ' ', ')', '(']), "{params}");
        assert_eq!(params.matches('&').count(), 4, "only the separators: {params}");
        assert_eq!(LabStep::from_fragment(&format!("#x=5LY9{params}")), Some(step.clone()));
        assert_eq!(step.panel_label(), Some("Scale models"));
    }
}
