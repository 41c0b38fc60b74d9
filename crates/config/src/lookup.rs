//! Typed lookup of options during validation: the winning setting or
//! GPGPU-Sim's default, with its location, recording which options warplab
//! models so that the rest can be listed as unmodelled.

use std::collections::BTreeSet;
use std::ops::RangeInclusive;

use crate::error::{ConfigError, Location, shorten};
use crate::known_options::known_option;
use crate::numbers::{parse_c_integer, parse_decimal};
use crate::options::RawConfig;

/// Reads options out of a [`RawConfig`] and remembers each name it was asked for.
pub(crate) struct OptionReader<'a> {
    raw: &'a RawConfig,
    /// Every option name validation has read: warplab models these.
    pub(crate) modelled: BTreeSet<String>,
}

/// One option's effective value: where it comes from and its text.
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub option: String,
    /// `None` for a standalone boolean.
    pub text: Option<String>,
    pub at: Location,
}

impl<'a> OptionReader<'a> {
    pub(crate) fn new(raw: &'a RawConfig) -> Self {
        Self { raw, modelled: BTreeSet::new() }
    }

    /// The winning setting of `option`, else GPGPU-Sim's default.
    pub(crate) fn value(&mut self, option: &str) -> Result<Value, ConfigError> {
        self.modelled.insert(option.to_owned());
        if let Some(setting) = self.raw.get(option) {
            return Ok(Value { option: option.to_owned(), text: setting.value.clone(), at: setting.at.clone() });
        }
        match known_option(option) {
            Some(known) => Ok(Value {
                option: option.to_owned(),
                text: Some(known.default.to_owned()),
                at: Location::default_value(),
            }),
            None => Err(self.missing(option, "no default is registered")),
        }
    }

    /// The winning setting of an option that has no usable default.
    pub(crate) fn required(&mut self, option: &str, what: &str) -> Result<Value, ConfigError> {
        self.modelled.insert(option.to_owned());
        match self.raw.get(option) {
            Some(setting) => {
                Ok(Value { option: option.to_owned(), text: setting.value.clone(), at: setting.at.clone() })
            }
            None => Err(self.missing(option, what)),
        }
    }

    /// An unsigned integer option (C notation) within `range`.
    pub(crate) fn u32_in(&mut self, option: &str, range: RangeInclusive<u32>) -> Result<u32, ConfigError> {
        self.value(option)?.u32_in(range)
    }

    /// A boolean option: 0 or 1, or standing alone for 1.
    pub(crate) fn bool(&mut self, option: &str) -> Result<bool, ConfigError> {
        self.value(option)?.bool()
    }

    /// A text option's value (empty for a standalone one).
    pub(crate) fn text(&mut self, option: &str) -> Result<(String, Value), ConfigError> {
        let value = self.value(option)?;
        Ok((value.text(), value))
    }

    /// A `Missing` error naming the files read.
    pub(crate) fn missing(&self, option: &str, what: &str) -> ConfigError {
        ConfigError::Missing { files: self.raw.files.join(", "), option: option.to_owned(), what: what.to_owned() }
    }
}

impl Value {
    /// The value's text; a standalone option reads as `1`.
    pub(crate) fn text(&self) -> String {
        self.text.clone().unwrap_or_else(|| "1".to_owned())
    }

    pub(crate) fn u32_in(&self, range: RangeInclusive<u32>) -> Result<u32, ConfigError> {
        let text = self.text();
        let number = parse_c_integer(&text).map_err(|expected| self.bad(&expected))?;
        match u32::try_from(number) {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(self.out_of_range(&text, &format!("from {} to {}", range.start(), range.end()))),
        }
    }

    pub(crate) fn bool(&self) -> Result<bool, ConfigError> {
        match self.text().as_str() {
            "1" => Ok(true),
            "0" => Ok(false),
            _ => Err(self.bad("0 or 1")),
        }
    }

    /// A `BadValue` error for this value.
    pub(crate) fn bad(&self, expected: &str) -> ConfigError {
        ConfigError::BadValue {
            at: self.at.clone(),
            option: self.option.clone(),
            value: shorten(&self.text()),
            expected: expected.to_owned(),
        }
    }

    /// A `BadField` error for one field of this value.
    pub(crate) fn bad_field(&self, field: &str, expected: &str) -> ConfigError {
        ConfigError::BadField {
            at: self.at.clone(),
            option: self.option.clone(),
            value: shorten(&self.text()),
            field: field.to_owned(),
            expected: expected.to_owned(),
        }
    }

    /// An `OutOfRange` error for this value (or a number computed from it).
    pub(crate) fn out_of_range(&self, value: &str, limit: &str) -> ConfigError {
        ConfigError::OutOfRange {
            at: self.at.clone(),
            option: self.option.clone(),
            value: shorten(value),
            limit: limit.to_owned(),
        }
    }

    /// An `Inconsistent` error: this value breaks `rule`.
    pub(crate) fn inconsistent(&self, rule: &str) -> ConfigError {
        ConfigError::Inconsistent {
            at: self.at.clone(),
            option: self.option.clone(),
            value: shorten(&self.text()),
            rule: rule.to_owned(),
        }
    }

    /// The `separator`-separated fields, each a decimal within `range`, named
    /// `names[i]` in errors (or `entry i+1` past the names).
    pub(crate) fn decimal_list(
        &self,
        separator: char,
        names: &[&str],
        counts: RangeInclusive<usize>,
        range: RangeInclusive<u32>,
    ) -> Result<Vec<u32>, ConfigError> {
        let text = self.text();
        let fields: Vec<&str> = text.split(separator).map(str::trim).collect();
        if !counts.contains(&fields.len()) {
            let expected = if counts.start() == counts.end() {
                format!("{} `{separator}`-separated values, found {}", counts.start(), fields.len())
            } else {
                format!("{} to {} `{separator}`-separated values, found {}", counts.start(), counts.end(), fields.len())
            };
            return Err(self.bad_field("number of values", &expected));
        }
        fields
            .iter()
            .enumerate()
            .map(|(index, field)| self.decimal_field(field, &field_name(names, index), &range))
            .collect()
    }

    /// One decimal field of a compound value, checked against `range`.
    pub(crate) fn decimal_field(
        &self,
        field: &str,
        name: &str,
        range: &RangeInclusive<u32>,
    ) -> Result<u32, ConfigError> {
        let number = parse_decimal(field)
            .map_err(|expected| self.bad_field(name, &format!("expected {expected}, found `{field}`")))?;
        match u32::try_from(number) {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => {
                Err(self
                    .bad_field(name, &format!("{field} is out of range: from {} to {}", range.start(), range.end())))
            }
        }
    }
}

fn field_name(names: &[&str], index: usize) -> String {
    names.get(index).map_or_else(|| format!("entry {}", index + 1), |name| (*name).to_owned())
}
