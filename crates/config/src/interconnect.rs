//! The interconnect between SMs and memory partitions: network mode, flit
//! size, buffers, and the BookSim `.icnt` file in BookSim mode.

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::files::base_name;
use crate::icnt::{IcntConfig, MAX_FLIT_BYTES};
use crate::lookup::OptionReader;
use crate::options::RawConfig;
use crate::writer::OptionWriter;

/// Bytes of a packet's header on the interconnect (address and control:
/// GPGPU-Sim's control size).
pub const PACKET_HEADER_BYTES: u32 = 8;

/// The interconnect options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interconnect {
    /// `-network_mode`.
    pub mode: NetworkMode,
    /// `-inter_config_file`: the BookSim file's name (used in BookSim mode).
    pub config_file: String,
    /// `-icnt_flit_size`: bytes per flit of the built-in crossbar.
    pub flit_size_bytes: u32,
    /// `-icnt_in_buffer_limit`: packets an input buffer holds.
    pub in_buffer_limit: u32,
    /// `-icnt_out_buffer_limit`: packets an output buffer holds.
    pub out_buffer_limit: u32,
    /// `-icnt_subnets`: separate request and reply networks (2) or one.
    pub subnets: u32,
    /// `-icnt_arbiter_algo`: 0 naive round robin, 1 iSLIP.
    pub arbiter_algo: u32,
    /// `-icnt_grant_cycles`: cycles an output stays granted.
    pub grant_cycles: u32,
    /// The `.icnt` file read with the config, if any.
    pub icnt: Option<IcntConfig>,
}

/// `-network_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum NetworkMode {
    /// 1: BookSim ("intersim2"), configured by the `.icnt` file.
    BookSim,
    /// 2: the built-in crossbar (`local_interconnect`).
    LocalCrossbar,
}

impl Interconnect {
    pub(crate) fn read(r: &mut OptionReader<'_>, raw: &RawConfig) -> Result<Self, ConfigError> {
        let mode_value = r.value("-network_mode")?;
        let mode = match mode_value.u32_in(1..=2)? {
            1 => NetworkMode::BookSim,
            _ => NetworkMode::LocalCrossbar,
        };
        let (config_file, _) = r.text("-inter_config_file")?;
        let icnt = pick_icnt(raw, &config_file)?;
        if mode == NetworkMode::BookSim && icnt.as_ref().and_then(|i| i.flit_size_bytes).is_none() {
            let what = format!("BookSim mode (-network_mode 1) needs the .icnt file `{config_file}` with a flit_size");
            return Err(r.missing("flit_size", &what));
        }
        Ok(Self {
            mode,
            config_file,
            flit_size_bytes: r.u32_in("-icnt_flit_size", 1..=MAX_FLIT_BYTES)?,
            in_buffer_limit: r.u32_in("-icnt_in_buffer_limit", 1..=65_536)?,
            out_buffer_limit: r.u32_in("-icnt_out_buffer_limit", 1..=65_536)?,
            subnets: r.u32_in("-icnt_subnets", 1..=2)?,
            arbiter_algo: r.u32_in("-icnt_arbiter_algo", 0..=1)?,
            grant_cycles: r.u32_in("-icnt_grant_cycles", 1..=1024)?,
            icnt,
        })
    }

    pub(crate) fn write(&self, w: &mut OptionWriter) {
        w.section("Interconnect: bandwidth = flit size x L2 slices x icnt clock (the reply direction)");
        w.option("-network_mode", if self.mode == NetworkMode::BookSim { 1 } else { 2 });
        w.option("-inter_config_file", &self.config_file);
        w.option("-icnt_flit_size", self.flit_size_bytes);
        w.option("-icnt_in_buffer_limit", self.in_buffer_limit);
        w.option("-icnt_out_buffer_limit", self.out_buffer_limit);
        w.option("-icnt_subnets", self.subnets);
        w.option("-icnt_arbiter_algo", self.arbiter_algo);
        w.option("-icnt_grant_cycles", self.grant_cycles);
    }

    /// Interconnect cycles a packet of `bytes` holds a crossbar port: one
    /// flit a cycle under BookSim (`-network_mode 1`), so `⌈bytes / flit⌉`;
    /// GPGPU-Sim's own crossbar (mode 2) moves a whole packet a cycle,
    /// whatever its size, so one.
    pub fn port_cycles(&self, bytes: u32) -> u32 {
        match self.mode {
            NetworkMode::LocalCrossbar => 1,
            NetworkMode::BookSim => bytes.div_ceil(self.effective_flit_size_bytes().max(1)).max(1),
        }
    }

    /// Packets a direction of the crossbar takes per interconnect cycle from
    /// `senders` to `receivers` ports. Each receiving port takes one packet
    /// a cycle. Under iSLIP in mode 2 a sender granted by one output offers
    /// its next packet to the outputs still to come, so only the receivers
    /// bound the direction; otherwise each sender also sends one a cycle.
    pub fn ports(&self, senders: u32, receivers: u32) -> u32 {
        match (self.mode, self.arbiter_algo) {
            (NetworkMode::LocalCrossbar, algo) if algo != 0 => receivers,
            _ => senders.min(receivers),
        }
        .max(1)
    }

    /// The flit size the network uses: the `.icnt` file's in BookSim mode,
    /// `-icnt_flit_size` for the built-in crossbar.
    pub fn effective_flit_size_bytes(&self) -> u32 {
        match (self.mode, &self.icnt) {
            (NetworkMode::BookSim, Some(IcntConfig { flit_size_bytes: Some(flit), .. })) => *flit,
            _ => self.flit_size_bytes,
        }
    }
}

/// The `.icnt` file named by `-inter_config_file`, else the last one given.
fn pick_icnt(raw: &RawConfig, config_file: &str) -> Result<Option<IcntConfig>, ConfigError> {
    let wanted = base_name(config_file);
    let chosen = raw.icnt_files.iter().find(|icnt| base_name(&icnt.file) == wanted).or_else(|| raw.icnt_files.last());
    chosen.map(IcntConfig::from_raw).transpose()
}
