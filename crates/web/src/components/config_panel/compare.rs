//! The config's rows against a base preset's: which rows match a search, and
//! which differ from the preset (the values an experiment edited). Pure
//! functions of the two views, so they are tested natively.

use warplab_lab::{ConfigView, ViewRow};

/// One row that differs from the base preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The row's label.
    pub label: String,
    /// The option(s) it comes from.
    pub option: String,
    /// The preset's value, or `None` when the preset has no such row.
    pub base: Option<String>,
    /// This config's value.
    pub value: String,
}

/// Whether `row` matches `query`: the query, trimmed and ignoring case, is
/// part of its label, option name or value (an empty query matches all).
pub fn row_matches(row: &ViewRow, query: &str) -> bool {
    let query = query.trim().to_lowercase();
    query.is_empty() || [&row.label, &row.option, &row.value].iter().any(|text| text.to_lowercase().contains(&query))
}

/// The value the base view gives the row with `row`'s label and option, if
/// it has that row.
pub fn base_value<'a>(base: &'a ConfigView, row: &ViewRow) -> Option<&'a str> {
    let rows = base.groups.iter().flat_map(|group| &group.rows);
    rows.into_iter().find(|b| b.label == row.label && b.option == row.option).map(|b| b.value.as_str())
}

/// Every row of `view` whose value differs from `base`'s, in display order.
pub fn differences(view: &ConfigView, base: &ConfigView) -> Vec<Difference> {
    let rows = view.groups.iter().flat_map(|group| &group.rows);
    rows.filter_map(|row| {
        let base_value = base_value(base, row);
        (base_value != Some(row.value.as_str())).then(|| Difference {
            label: row.label.clone(),
            option: row.option.clone(),
            base: base_value.map(str::to_owned),
            value: row.value.clone(),
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use warplab_lab::{ViewGroup, apply_knob, config_report, preset_config};

    use super::*;

    fn row(label: &str, value: &str, option: &str) -> ViewRow {
        ViewRow { label: label.into(), value: value.into(), option: option.into() }
    }

    #[test]
    fn search_matches_label_option_or_value_ignoring_case() {
        let sms = row("SMs", "80", "-gpgpu_n_clusters");
        for (query, expect) in [("", true), ("  ", true), ("sms", true), ("N_CLUST", true), ("80", true), ("l2", false)]
        {
            assert_eq!(row_matches(&sms, query), expect, "{query:?}");
        }
    }

    #[test]
    fn edited_rows_differ_from_the_preset() {
        let (name, base) = preset_config("QV100").expect("a bundled preset");
        let base_view = config_report(name, &base, Vec::new()).view;
        assert_eq!(differences(&base_view, &base_view), [], "a preset is its own base");
        let edited = apply_knob(&base, "n_sms", 40.0).expect("40 SMs");
        let view = config_report(name, &edited, Vec::new()).view;
        let diff = differences(&view, &base_view);
        let sms = diff.iter().find(|d| d.label == "SMs").expect("the SM count differs");
        assert_eq!((sms.base.as_deref(), sms.value.as_str()), (Some("80 (80 clusters x 1)"), "40 (40 clusters x 1)"));
        let extra = ConfigView { groups: vec![ViewGroup { title: "New".into(), rows: vec![row("X", "1", "-x")] }] };
        assert_eq!(differences(&extra, &base_view)[0].base, None, "a row the preset lacks");
    }
}
