//! Clock domains (`-gpgpu_clock_domains core:icnt:l2:dram`), held as whole
//! kilohertz so that configs compare exactly and write back unchanged.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::lookup::{OptionReader, Value};
use crate::writer::OptionWriter;

/// The fastest clock warplab accepts, in MHz (a documented limit).
pub const MAX_CLOCK_MHZ: u32 = 100_000;

/// A clock frequency with kHz resolution (`3500.5` MHz is 3,500,500 kHz).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Frequency {
    khz: u64,
}

/// The four clock domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockDomains {
    /// SM clock; cycle counts are in this clock.
    pub core: Frequency,
    /// Interconnect clock.
    pub icnt: Frequency,
    /// L2 clock.
    pub l2: Frequency,
    /// DRAM command clock.
    pub dram: Frequency,
}

impl Frequency {
    /// A frequency of `khz` kilohertz.
    pub fn from_khz(khz: u64) -> Self {
        Self { khz }
    }

    /// Kilohertz.
    pub fn khz(self) -> u64 {
        self.khz
    }

    /// Megahertz, as a float (for display and bandwidth figures).
    pub fn mhz(self) -> f64 {
        self.khz as f64 / 1000.0
    }

    /// Parses MHz as GPGPU-Sim's `%lf` does (`1132`, `1132.0`, `3500.5`),
    /// rounded to the nearest kHz.
    fn parse_mhz(text: &str) -> Option<Self> {
        let mhz: f64 = text.parse().ok()?;
        if !mhz.is_finite() || mhz <= 0.0 || mhz > f64::from(MAX_CLOCK_MHZ) {
            return None;
        }
        let khz = (mhz * 1000.0).round();
        (khz >= 1.0).then_some(Self { khz: khz as u64 })
    }
}

/// MHz without trailing zeros: `1132`, `3500.5`, `1053.125`.
impl fmt::Display for Frequency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, fraction) = (self.khz / 1000, self.khz % 1000);
        if fraction == 0 {
            write!(f, "{whole}")
        } else {
            let digits = format!("{fraction:03}");
            write!(f, "{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

impl ClockDomains {
    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let value = r.value("-gpgpu_clock_domains")?;
        let text = value.text();
        let fields: Vec<&str> = text.split(':').collect();
        if fields.len() != 4 {
            return Err(value.bad_field("number of values", "expected <core>:<icnt>:<l2>:<dram> in MHz"));
        }
        let names = ["core clock", "icnt clock", "L2 clock", "DRAM clock"];
        let mut clocks = [Frequency::from_khz(0); 4];
        for (index, field) in fields.iter().enumerate() {
            clocks[index] = parse_clock(&value, field, names[index])?;
        }
        Ok(Self { core: clocks[0], icnt: clocks[1], l2: clocks[2], dram: clocks[3] })
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Clock domains, MHz: <core>:<icnt>:<l2>:<dram>");
        w.option("-gpgpu_clock_domains", format!("{}:{}:{}:{}", self.core, self.icnt, self.l2, self.dram));
    }
}

fn parse_clock(value: &Value, field: &str, name: &str) -> Result<Frequency, ConfigError> {
    Frequency::parse_mhz(field.trim()).ok_or_else(|| {
        value.bad_field(name, &format!("expected MHz above 0 and at most {MAX_CLOCK_MHZ}, found `{field}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Option<(u64, &str)>) {
        let got = Frequency::parse_mhz(text).map(|f| (f.khz(), f.to_string()));
        assert_eq!(got, expect.map(|(khz, shown)| (khz, shown.to_owned())), "{text}");
    }

    #[test]
    fn frequencies() {
        check("1132.0", Some((1_132_000, "1132")));
        check("3500.5", Some((3_500_500, "3500.5")));
        check("1053.125", Some((1_053_125, "1053.125")));
        check("4531.25", Some((4_531_250, "4531.25")));
        check("0", None);
        check("-5", None);
        check("NaN", None);
        check("fast", None);
        check("100001", None);
    }
}
