//! DRAM channels: bus geometry, the DRAM timing string (legacy ordered or
//! named form), the DRAM scheduler and its queues.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::lookup::{OptionReader, Value};
use crate::writer::OptionWriter;

/// The DRAM behind each memory channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DramConfig {
    /// `-gpgpu_dram_buswidth`: bytes per chip per data-bus cycle.
    pub bus_width_bytes: u32,
    /// `-gpgpu_dram_burst_length`: data-bus cycles of one access.
    pub burst_length: u32,
    /// `-dram_data_command_freq_ratio`: data transfers per command clock (2 DDR, 4 QDR).
    pub data_command_freq_ratio: u32,
    /// `-gpgpu_n_mem_per_ctrlr`: chips per channel.
    pub chips_per_channel: u32,
    /// `-gpgpu_dram_timing_opt`, in DRAM command clocks.
    pub timing: DramTiming,
    /// `-gpgpu_dram_scheduler`.
    pub scheduler: DramScheduler,
    /// `-gpgpu_frfcfs_dram_sched_queue_size`: 0 means unlimited.
    pub scheduler_queue_entries: u32,
    /// `-gpgpu_dram_return_queue_size`: 0 means unlimited.
    pub return_queue_entries: u32,
    /// `-dram_dual_bus_interface`: separate row and column command buses (HBM).
    pub dual_bus_interface: bool,
    /// `-dram_bnk_indexing_policy`: how a request's bank within its channel
    /// is taken from the address's bank and row bits.
    pub bank_indexing: BankIndexing,
    /// `-dram_bnkgrp_indexing_policy`: which bits of the bank number name its
    /// bank group.
    pub bank_group_indexing: BankGroupIndexing,
}

/// `-dram_bnk_indexing_policy`: the bank a request goes to, from the bank
/// bits of its address (GPGPU-Sim applies it in the DRAM channel, after the
/// address has chosen the channel and L2 slice, so it never moves a request
/// to another slice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BankIndexing {
    /// 0: the address's bank bits as they are.
    Linear,
    /// 1: the bank bits XOR the row's low bits.
    XorRow,
    /// 2: IPOLY of the row and bank bits (16, 32 or 64 banks).
    Ipoly,
}

/// `-dram_bnkgrp_indexing_policy`: which bits of the bank number are its bank
/// group. With `tCCDL` > `tCCD` this decides whether consecutive banks can
/// take back-to-back column commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BankGroupIndexing {
    /// 0: the high bits: banks `0..n/g` are group 0, the next `n/g` group 1, ...
    HighBits,
    /// 1: the low bits: bank `b` is in group `b mod g`, so consecutive banks
    /// are in different groups (every Accel-Sim preset sets this).
    LowBits,
}

impl BankIndexing {
    fn from_option(value: u32) -> Self {
        match value {
            0 => Self::Linear,
            1 => Self::XorRow,
            _ => Self::Ipoly,
        }
    }

    fn option_value(self) -> u32 {
        self as u32
    }
}

impl BankGroupIndexing {
    /// The bank group of bank `bank` of `n_banks` in `n_groups` groups
    /// (GPGPU-Sim's `dram_t::get_bankgrp_number`).
    pub fn group_of(self, bank: u32, n_banks: u32, n_groups: u32) -> u32 {
        let n_groups = n_groups.max(1);
        match self {
            Self::HighBits => bank / (n_banks / n_groups).max(1),
            Self::LowBits => bank % n_groups,
        }
        .min(n_groups - 1)
    }
}

/// DRAM timing parameters, in DRAM command clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DramTiming {
    /// `nbk`: banks per chip.
    pub n_banks: u32,
    /// `tCCD`: column to column delay.
    pub t_ccd: u32,
    /// `tRRD`: activate to activate in different banks.
    pub t_rrd: u32,
    /// `tRCD`: activate to column command.
    pub t_rcd: u32,
    /// `tRAS`: activate to precharge.
    pub t_ras: u32,
    /// `tRP`: precharge to activate.
    pub t_rp: u32,
    /// `tRC`: row cycle time.
    pub t_rc: u32,
    /// `CL`: CAS (read) latency.
    pub cl: u32,
    /// `WL`: write latency.
    pub wl: u32,
    /// `tCDLR`: write to read turnaround.
    pub t_cdlr: u32,
    /// `tWR`: write recovery.
    pub t_wr: u32,
    /// `nbkgrp`: bank groups (1 when not given).
    pub n_bank_groups: u32,
    /// `tCCDL`: column to column delay within a bank group (0 when not given).
    pub t_ccdl: u32,
    /// `tRTPL`: read to precharge within a bank group (0 when not given).
    pub t_rtpl: u32,
}

/// `-gpgpu_dram_scheduler`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DramScheduler {
    /// 0: first in, first out.
    Fifo,
    /// 1: first-ready, first-come first-served (row hits first).
    FrFcfs,
}

impl std::fmt::Display for DramScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DramScheduler::Fifo => "FIFO",
            DramScheduler::FrFcfs => "FR-FCFS",
        })
    }
}

/// The largest DRAM timing value, in command clocks (a documented limit).
pub const MAX_DRAM_TIMING: u32 = 10_000;

/// Names of the timing fields in the legacy order, with the keys of the named form.
const TIMING_KEYS: [(&str, &str); 14] = [
    ("nbk", "nbk"),
    ("tCCD", "CCD"),
    ("tRRD", "RRD"),
    ("tRCD", "RCD"),
    ("tRAS", "RAS"),
    ("tRP", "RP"),
    ("tRC", "RC"),
    ("CL", "CL"),
    ("WL", "WL"),
    ("tCDLR", "CDLR"),
    ("tWR", "WR"),
    ("nbkgrp", "nbkgrp"),
    ("tCCDL", "CCDL"),
    ("tRTPL", "RTPL"),
];

impl DramConfig {
    pub(crate) fn read(r: &mut OptionReader<'_>) -> Result<Self, ConfigError> {
        let dram = Self {
            bus_width_bytes: r.u32_in("-gpgpu_dram_buswidth", 1..=1024)?,
            burst_length: r.u32_in("-gpgpu_dram_burst_length", 1..=1024)?,
            data_command_freq_ratio: r.u32_in("-dram_data_command_freq_ratio", 1..=16)?,
            chips_per_channel: r.u32_in("-gpgpu_n_mem_per_ctrlr", 1..=64)?,
            timing: DramTiming::read(&r.value("-gpgpu_dram_timing_opt")?)?,
            scheduler: read_scheduler(&r.value("-gpgpu_dram_scheduler")?)?,
            scheduler_queue_entries: r.u32_in("-gpgpu_frfcfs_dram_sched_queue_size", 0..=65_536)?,
            return_queue_entries: r.u32_in("-gpgpu_dram_return_queue_size", 0..=65_536)?,
            dual_bus_interface: r.value("-dram_dual_bus_interface")?.u32_in(0..=1)? == 1,
            // GPGPU-Sim's 3 ("custom") leaves the bank undefined; it is refused.
            bank_indexing: BankIndexing::from_option(r.u32_in("-dram_bnk_indexing_policy", 0..=2)?),
            bank_group_indexing: match r.u32_in("-dram_bnkgrp_indexing_policy", 0..=1)? {
                0 => BankGroupIndexing::HighBits,
                _ => BankGroupIndexing::LowBits,
            },
        };
        if dram.bank_indexing == BankIndexing::Ipoly && ![16, 32, 64].contains(&dram.timing.n_banks) {
            let value = r.value("-dram_bnk_indexing_policy")?;
            return Err(
                value.inconsistent("IPOLY bank indexing (2) needs 16, 32 or 64 banks in -gpgpu_dram_timing_opt")
            );
        }
        if !dram.burst_length.is_multiple_of(dram.data_command_freq_ratio) {
            let value = r.value("-gpgpu_dram_burst_length")?;
            return Err(value.inconsistent("the burst length must be a multiple of -dram_data_command_freq_ratio"));
        }
        Ok(dram)
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("DRAM: bandwidth per channel = bus width x chips x data/command ratio x DRAM clock");
        w.option("-gpgpu_dram_buswidth", self.bus_width_bytes);
        w.option("-gpgpu_dram_burst_length", self.burst_length);
        w.option("-dram_data_command_freq_ratio", self.data_command_freq_ratio);
        w.option("-gpgpu_n_mem_per_ctrlr", self.chips_per_channel);
        w.option("-gpgpu_dram_timing_opt", self.timing.to_named_string());
        w.option("-gpgpu_dram_scheduler", if self.scheduler == DramScheduler::FrFcfs { 1 } else { 0 });
        w.option("-gpgpu_frfcfs_dram_sched_queue_size", self.scheduler_queue_entries);
        w.option("-gpgpu_dram_return_queue_size", self.return_queue_entries);
        w.option("-dram_dual_bus_interface", u32::from(self.dual_bus_interface));
        w.option("-dram_bnk_indexing_policy", self.bank_indexing.option_value());
        w.option("-dram_bnkgrp_indexing_policy", self.bank_group_indexing as u32);
    }

    /// The credits a channel's L2 slices share for sending requests to it
    /// (GPGPU-Sim's `arbitration_metadata`): a request borrows one when it
    /// leaves its slice's L2-to-DRAM queue and gives it back when its data
    /// leaves the return queue, so the scheduler's and the return queue's
    /// entries bound what a channel holds. Each of the channel's
    /// `slices_per_channel` slices also has one credit of its own, beyond
    /// these. `None`: unlimited (either queue unlimited).
    pub fn shared_credits(&self, slices_per_channel: u32) -> Option<u32> {
        let (queue, returns) = (self.scheduler_queue_entries, self.return_queue_entries);
        if queue == 0 || returns == 0 {
            return None;
        }
        Some((queue + returns).saturating_sub(slices_per_channel.saturating_sub(1)).max(1))
    }

    /// Every request a channel can hold between its slices and its return:
    /// the shared credits and one per slice.
    pub fn channel_credits(&self, slices_per_channel: u32) -> Option<u32> {
        self.shared_credits(slices_per_channel).map(|shared| shared + slices_per_channel)
    }

    /// Bytes one access moves: burst length × bus width × chips.
    pub fn access_bytes(&self) -> u32 {
        self.burst_length * self.bus_width_bytes * self.chips_per_channel
    }

    /// Bytes per DRAM command clock of one channel: bus width × chips × ratio.
    pub fn bytes_per_clock(&self) -> u32 {
        self.bus_width_bytes * self.chips_per_channel * self.data_command_freq_ratio
    }
}

fn read_scheduler(value: &Value) -> Result<DramScheduler, ConfigError> {
    match value.u32_in(0..=1)? {
        0 => Ok(DramScheduler::Fifo),
        _ => Ok(DramScheduler::FrFcfs),
    }
}

impl DramTiming {
    /// Parses either form: 14 (at least 11) `:`-separated numbers in the order
    /// `nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR:nbkgrp:tCCDL:tRTPL`, or
    /// named `key=value` pairs separated by `=`, `:`, `;` or spaces (GPGPU-Sim
    /// tells them apart by the presence of `=`).
    ///
    /// # Errors
    ///
    /// The first field that is missing, unknown or not a number in range.
    pub(crate) fn read(value: &Value) -> Result<Self, ConfigError> {
        let text = value.text();
        let numbers = if text.contains('=') { named_fields(value, &text)? } else { ordered_fields(value, &text)? };
        let timing = Self::from_array(numbers);
        if timing.n_banks == 0 || timing.n_bank_groups == 0 || !timing.n_banks.is_multiple_of(timing.n_bank_groups) {
            return Err(value.bad_field("nbkgrp", "the banks must split evenly into at least one bank group"));
        }
        Ok(timing)
    }

    fn from_array(n: [u32; 14]) -> Self {
        let [n_banks, t_ccd, t_rrd, t_rcd, t_ras, t_rp, t_rc, cl, wl, t_cdlr, t_wr, n_bank_groups, t_ccdl, t_rtpl] = n;
        Self { n_banks, t_ccd, t_rrd, t_rcd, t_ras, t_rp, t_rc, cl, wl, t_cdlr, t_wr, n_bank_groups, t_ccdl, t_rtpl }
    }

    fn to_array(self) -> [u32; 14] {
        [
            self.n_banks,
            self.t_ccd,
            self.t_rrd,
            self.t_rcd,
            self.t_ras,
            self.t_rp,
            self.t_rc,
            self.cl,
            self.wl,
            self.t_cdlr,
            self.t_wr,
            self.n_bank_groups,
            self.t_ccdl,
            self.t_rtpl,
        ]
    }

    /// The named form, e.g. `nbk=16:CCD=1:...:RTPL=3`.
    pub fn to_named_string(self) -> String {
        let pairs: Vec<String> =
            TIMING_KEYS.iter().zip(self.to_array()).map(|((_, key), number)| format!("{key}={number}")).collect();
        pairs.join(":")
    }
}

/// Defaults of the three bank-group fields, which both forms may leave out.
const OPTIONAL_DEFAULTS: [u32; 3] = [1, 0, 0];

fn ordered_fields(value: &Value, text: &str) -> Result<[u32; 14], ConfigError> {
    let fields: Vec<&str> = text.split(':').map(str::trim).collect();
    if !(11..=14).contains(&fields.len()) {
        let expected = format!("11 to 14 `:`-separated numbers, found {}", fields.len());
        return Err(value.bad_field("number of values", &expected));
    }
    let mut numbers = [0; 14];
    numbers[11..].copy_from_slice(&OPTIONAL_DEFAULTS);
    for (index, field) in fields.iter().enumerate() {
        numbers[index] = value.decimal_field(field, TIMING_KEYS[index].0, &(0..=MAX_DRAM_TIMING))?;
    }
    Ok(numbers)
}

fn named_fields(value: &Value, text: &str) -> Result<[u32; 14], ConfigError> {
    let words: Vec<&str> = text.split(['=', ':', ';', ' ', '\t']).filter(|w| !w.is_empty()).collect();
    let mut numbers: [Option<u32>; 14] = [None; 14];
    for pair in words.chunks(2) {
        let key = pair[0];
        let index = TIMING_KEYS
            .iter()
            .position(|(_, named)| *named == key)
            .ok_or_else(|| value.bad_field(key, "unknown DRAM timing parameter"))?;
        let number = pair.get(1).ok_or_else(|| value.bad_field(TIMING_KEYS[index].0, "missing its value"))?;
        numbers[index] = Some(value.decimal_field(number, TIMING_KEYS[index].0, &(0..=MAX_DRAM_TIMING))?);
    }
    let mut resolved = [0; 14];
    for (index, number) in numbers.iter().enumerate() {
        resolved[index] = match (number, index.checked_sub(11)) {
            (Some(n), _) => *n,
            (None, Some(optional)) => OPTIONAL_DEFAULTS[optional],
            (None, None) => return Err(value.bad_field(TIMING_KEYS[index].0, "missing")),
        };
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;

    fn check(text: &str, expect: Result<[u32; 14], &str>) {
        let value = Value {
            option: "-gpgpu_dram_timing_opt".into(),
            text: Some(text.into()),
            at: Location::new("g.config", 3),
        };
        let got = DramTiming::read(&value).map(DramTiming::to_array).map_err(|e| e.to_string());
        assert_eq!(got, expect.map_err(str::to_owned));
    }

    #[test]
    fn both_forms() {
        // QV100's value, joined across lines by the reader.
        check(
            "nbk=16:CCD=1:RRD=3:RCD=12:RAS=28:RP=12:RC=40: CL=12:WL=2:CDLR=3:WR=10:nbkgrp=4:CCDL=2:RTPL=3",
            Ok([16, 1, 3, 12, 28, 12, 40, 12, 2, 3, 10, 4, 2, 3]),
        );
        check("4:2:8:12:21:13:34:9:4:5:13:1:0:0", Ok([4, 2, 8, 12, 21, 13, 34, 9, 4, 5, 13, 1, 0, 0]));
        check("16:2:8:12:21:13:34:9:4:5:13", Ok([16, 2, 8, 12, 21, 13, 34, 9, 4, 5, 13, 1, 0, 0]));
        check(
            "RC=40;nbk=8 CCD=1:RRD=3:RCD=12:RAS=28:RP=12:CL=12:WL=2:CDLR=3:WR=10",
            Ok([8, 1, 3, 12, 28, 12, 40, 12, 2, 3, 10, 1, 0, 0]),
        );
    }

    #[test]
    fn malformed_timings() {
        check("nbk=16:CCD=1", Err("g.config:3: -gpgpu_dram_timing_opt: tRRD: missing (in `nbk=16:CCD=1`)"));
        check(
            "nbk=16:XYZ=1",
            Err("g.config:3: -gpgpu_dram_timing_opt: XYZ: unknown DRAM timing parameter (in `nbk=16:XYZ=1`)"),
        );
        check(
            "4:2:8",
            Err(
                "g.config:3: -gpgpu_dram_timing_opt: number of values: 11 to 14 `:`-separated numbers, found 3 (in `4:2:8`)",
            ),
        );
        check(
            "4:2:8:x:21:13:34:9:4:5:13",
            Err(
                "g.config:3: -gpgpu_dram_timing_opt: tRCD: expected an unsigned decimal number, found `x` (in `4:2:8:x:21:13:34:9:4:5:13`)",
            ),
        );
        check(
            "16:2:8:12:21:13:34:9:4:5:13:3",
            Err(
                "g.config:3: -gpgpu_dram_timing_opt: nbkgrp: the banks must split evenly into at least one bank group (in `16:2:8:12:21:13:34:9:4:5:13:3`)",
            ),
        );
    }

    #[test]
    fn the_named_form_round_trips() {
        let timing = DramTiming::from_array([16, 1, 3, 12, 28, 12, 40, 12, 2, 3, 10, 4, 2, 3]);
        check(&timing.to_named_string(), Ok(timing.to_array()));
    }

    #[test]
    fn a_channels_credits_are_its_scheduler_and_return_queues_and_one_per_slice() {
        // SM80_A100: 64 + 192 entries, four slices a channel: 64 + 192 − 3
        // shared and one own credit each, 257 in all.
        let mut dram = crate::preset("SM80_A100").unwrap().config().unwrap().dram;
        assert_eq!((dram.shared_credits(4), dram.channel_credits(4)), (Some(253), Some(257)));
        assert_eq!(dram.channel_credits(1), Some(257));
        // An unlimited queue lifts the bound.
        dram.return_queue_entries = 0;
        assert_eq!(dram.channel_credits(4), None);
    }
}
