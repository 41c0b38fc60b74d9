//! Opcodes: the per-architecture tables that map a SASS mnemonic to Accel-Sim's
//! operation category, and the interner that turns each distinct opcode string
//! of a trace into a small id with everything the models need to know about it.
//!
//! The tables are data (`data/opcode_maps.csv`), not code. Like Accel-Sim, the
//! table is chosen by the kernel's `-binary version` and looked up with the part
//! of the opcode before the first `.`; the access width comes from the
//! modifiers. Unlike Accel-Sim, an unknown mnemonic or binary version is not
//! fatal: it runs with a documented fallback and a diagnostic (DESIGN §2a).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::Diagnostic;

/// Accel-Sim's operation categories (`op_type` in its ISA definitions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum OpCategory {
    /// Integer and move operations without their own unit (`ALU_OP`).
    Alu,
    /// Single-precision floating point (`SP_OP`).
    Sp,
    /// Integer arithmetic (`INTP_OP`).
    Intp,
    /// Double precision (`DP_OP`).
    Dp,
    /// Special functions (`SFU_OP`).
    Sfu,
    /// Tensor core operations (`TENSOR_CORE_OP`).
    TensorCore,
    /// Loads (`LOAD_OP`).
    Load,
    /// Stores and atomics (`STORE_OP`).
    Store,
    /// Branches on Kepler/Pascal (`BRANCH_OP`).
    Branch,
    /// Calls on Kepler/Pascal (`CALL_OPS`).
    Call,
    /// Returns on Kepler/Pascal (`RET_OPS`).
    Ret,
    /// CTA barriers (`BARRIER_OP`).
    Barrier,
    /// Memory fences (`MEMORY_BARRIER_OP`).
    MemoryBarrier,
    /// Warp exit (`EXIT_OPS`).
    Exit,
    /// Runs on specialized unit k, 1-based (`SPECIALIZED_UNIT_k_OP`): 1 BRA, 2 TEX, 3 TENSOR, 4 UDP.
    Specialized(u8),
}

/// The execution unit an instruction asks for, before the config decides what
/// exists (a config without INT units runs INT work on SP, and so on; that
/// fallback belongs to the timing model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnitClass {
    /// Single-precision pipeline.
    Sp,
    /// Integer pipeline (also branches, barriers, exits and plain ALU work).
    Int,
    /// Double-precision pipeline.
    Dp,
    /// Special-function unit.
    Sfu,
    /// Tensor cores.
    Tensor,
    /// Specialized unit k (1-based).
    Specialized(u8),
    /// The load/store unit (loads, stores, atomics, memory fences).
    Memory,
}

/// The memory space an access goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub enum MemSpace {
    /// Not a memory instruction.
    #[default]
    None,
    /// Global memory (`LDG`, `STG`, `ATOMG`, `RED`, ...).
    Global,
    /// Shared memory; addresses are offsets in the CTA's window.
    Shared,
    /// Local memory; addresses are offsets in the thread's window.
    Local,
    /// Constant memory.
    Const,
    /// Texture memory.
    Tex,
    /// Generic `LD`/`ST`/`ATOM`: resolved per instruction from its first address.
    Generic,
}

impl MemSpace {
    /// Every space, in discriminant order (`ALL[s as usize] == s`).
    pub const ALL: [MemSpace; 7] = [
        MemSpace::None,
        MemSpace::Global,
        MemSpace::Shared,
        MemSpace::Local,
        MemSpace::Const,
        MemSpace::Tex,
        MemSpace::Generic,
    ];

    /// The lower-case name used in reports (`global`, `shared`, ...).
    pub fn name(self) -> &'static str {
        match self {
            MemSpace::None => "none",
            MemSpace::Global => "global",
            MemSpace::Shared => "shared",
            MemSpace::Local => "local",
            MemSpace::Const => "const",
            MemSpace::Tex => "tex",
            MemSpace::Generic => "generic",
        }
    }
}

/// An interned opcode: an index into the kernel's [`OpcodeTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
pub struct OpcodeId(pub u16);

/// What the models need to know about one opcode string, e.g. `LDG.E.128.SYS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpcodeInfo {
    /// The opcode as traced, with modifiers.
    pub text: String,
    /// Accel-Sim's category for the base mnemonic.
    pub category: OpCategory,
    /// The unit it asks for.
    pub unit: UnitClass,
    /// Its memory space (before generic accesses are resolved).
    pub space: MemSpace,
    /// Bytes per thread of a memory access, from the modifiers as Accel-Sim
    /// reads them (`.64` → 8, `.128` → 16, `.U8` → 1; otherwise 4).
    pub access_bytes: u8,
    /// An atomic or reduction (`ATOM*`, `RED`): a load-modify-write done at L2.
    pub atomic: bool,
    /// True when the mnemonic was not in the table and the fallback was used.
    pub unknown: bool,
}

/// The ISA table a binary version selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// sm_35 and older; also 5x (Maxwell has no table of its own).
    Kepler,
    /// sm_60, sm_61.
    Pascal,
    /// sm_70.
    Volta,
    /// sm_75.
    Turing,
    /// sm_80, sm_86.
    Ampere,
    /// sm_90: Ampere's table plus the Hopper opcodes the anchors show.
    Hopper,
}

impl Isa {
    /// The table for `binary_version`, and a diagnostic when the version has no
    /// table of its own and the nearest older one is used (62→61, 72→70,
    /// 87/89→86, 90→86 plus Hopper opcodes).
    pub fn for_binary_version(binary_version: u32) -> (Isa, Option<String>) {
        let (isa, exact) = match binary_version {
            35 => (Isa::Kepler, true),
            60 | 61 => (Isa::Pascal, true),
            70 => (Isa::Volta, true),
            75 => (Isa::Turing, true),
            80 | 86 => (Isa::Ampere, true),
            0..=59 => (Isa::Kepler, false),
            62..=69 => (Isa::Pascal, false),
            71..=74 => (Isa::Volta, false),
            76..=79 => (Isa::Turing, false),
            81..=89 => (Isa::Ampere, false),
            _ => (Isa::Hopper, false),
        };
        let note = (!exact).then(|| {
            format!("binary version {binary_version} has no opcode table of its own; using {}", isa.table_name())
        });
        (isa, note)
    }

    /// How reports name the table.
    pub fn table_name(self) -> &'static str {
        match self {
            Isa::Kepler => "the Kepler table",
            Isa::Pascal => "the Pascal table",
            Isa::Volta => "the Volta table",
            Isa::Turing => "the Turing table",
            Isa::Ampere => "the Ampere table",
            Isa::Hopper => "the Ampere table with the Hopper additions",
        }
    }

    fn csv_name(self) -> &'static str {
        match self {
            Isa::Kepler => "kepler",
            Isa::Pascal => "pascal",
            Isa::Volta => "volta",
            Isa::Turing => "turing",
            Isa::Ampere | Isa::Hopper => "ampere",
        }
    }
}

/// Hopper opcodes that Ampere's table lacks (Accel-Sim 2.0's `hopper_opcode.h`,
/// as the anchor README lists them; `VIADD` occurs in the H100 anchor trace).
const HOPPER_EXTRAS: [(&str, OpCategory); 3] =
    [("VIADD", OpCategory::Intp), ("VIADDMNMX", OpCategory::Intp), ("VIMNMX", OpCategory::Sp)];

type CategoryMap = HashMap<&'static str, OpCategory>;

/// The parsed `opcode_maps.csv`, one map per architecture, built on first use.
fn tables() -> &'static HashMap<&'static str, CategoryMap> {
    static TABLES: OnceLock<HashMap<&'static str, CategoryMap>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut tables: HashMap<&'static str, CategoryMap> = HashMap::new();
        for line in include_str!("../data/opcode_maps.csv").lines().skip(1) {
            let mut fields = line.split(',');
            let (Some(arch), Some(opcode), Some(_enum), Some(category)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            // The compiled-in table is checked by a test; a line it cannot map is skipped.
            if let Some(category) = category_from_name(category.trim()) {
                tables.entry(arch).or_default().insert(opcode, category);
            }
        }
        tables
    })
}

fn category_from_name(name: &str) -> Option<OpCategory> {
    Some(match name {
        "ALU_OP" => OpCategory::Alu,
        "SP_OP" => OpCategory::Sp,
        "INTP_OP" => OpCategory::Intp,
        "DP_OP" => OpCategory::Dp,
        "SFU_OP" => OpCategory::Sfu,
        "TENSOR_CORE_OP" => OpCategory::TensorCore,
        "LOAD_OP" => OpCategory::Load,
        "STORE_OP" => OpCategory::Store,
        "BRANCH_OP" => OpCategory::Branch,
        "CALL_OPS" => OpCategory::Call,
        "RET_OPS" => OpCategory::Ret,
        "BARRIER_OP" => OpCategory::Barrier,
        "MEMORY_BARRIER_OP" => OpCategory::MemoryBarrier,
        "EXIT_OPS" => OpCategory::Exit,
        _ => {
            let k = name.strip_prefix("SPECIALIZED_UNIT_")?.strip_suffix("_OP")?;
            OpCategory::Specialized(k.parse().ok()?)
        }
    })
}

/// The category of base mnemonic `base` in `isa`'s table.
pub fn lookup(isa: Isa, base: &str) -> Option<OpCategory> {
    let found = tables().get(isa.csv_name()).and_then(|table| table.get(base)).copied();
    match (found, isa) {
        (None, Isa::Hopper) => HOPPER_EXTRAS.iter().find(|(name, _)| *name == base).map(|(_, c)| *c),
        _ => found,
    }
}

/// The distinct opcode strings of one kernel, each with its [`OpcodeInfo`].
#[derive(Debug, Clone)]
pub struct OpcodeTable {
    isa: Isa,
    ids: HashMap<Box<str>, OpcodeId>,
    infos: Vec<OpcodeInfo>,
    /// Opcodes seen lately, by a cheap hash of their text ([`recent_slot`]):
    /// one past the id, 0 for none. Every instruction line interns its
    /// opcode, and a kernel uses a few dozen, so most are found here with a
    /// comparison of their text instead of a hash by the map's hasher (which
    /// stays, keyed against a trace built to collide).
    recent: [u16; RECENT_SLOTS],
}

/// Slots of [`OpcodeTable::recent`].
const RECENT_SLOTS: usize = 64;

/// Where `text` goes in [`OpcodeTable::recent`]: a multiplicative hash of its
/// bytes. Two opcodes that share a slot only take turns in it.
fn recent_slot(text: &str) -> usize {
    let hash = text.bytes().fold(text.len() as u32, |hash, byte| hash.wrapping_mul(0x9E37_79B1) ^ u32::from(byte));
    (hash.wrapping_mul(0x9E37_79B1) >> (u32::BITS - RECENT_SLOTS.ilog2())) as usize
}

/// At most this many distinct opcode strings per kernel (the id is 16 bits);
/// real kernels use a few hundred.
pub const MAX_OPCODES: usize = u16::MAX as usize;

impl OpcodeTable {
    /// An empty table for `isa`.
    pub fn new(isa: Isa) -> Self {
        OpcodeTable { isa, ids: HashMap::new(), infos: Vec::new(), recent: [0; RECENT_SLOTS] }
    }

    /// The ISA whose table this uses.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The id of `text`, interning it on first sight. A mnemonic missing from the
    /// table runs as an INT instruction (Accel-Sim's `ALU_OP`) and produces a
    /// diagnostic once. `None` when the table is full ([`MAX_OPCODES`]).
    pub fn intern(&mut self, text: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<OpcodeId> {
        let slot = recent_slot(text);
        if let Some(id) = self.recent[slot].checked_sub(1).map(OpcodeId)
            && self.infos[usize::from(id.0)].text == text
        {
            return Some(id);
        }
        let id = self.intern_by_map(text, diagnostics)?;
        // `MAX_OPCODES` keeps the id below `u16::MAX`, so one past it fits.
        self.recent[slot] = id.0 + 1;
        Some(id)
    }

    /// [`OpcodeTable::intern`] by the map.
    fn intern_by_map(&mut self, text: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<OpcodeId> {
        if let Some(id) = self.ids.get(text) {
            return Some(*id);
        }
        if self.infos.len() >= MAX_OPCODES {
            return None;
        }
        let info = describe(self.isa, text);
        if info.unknown {
            diagnostics.push(Diagnostic::UnknownOpcode { opcode: text.to_owned(), table: self.isa.table_name() });
        }
        let id = OpcodeId(self.infos.len() as u16);
        self.infos.push(info);
        self.ids.insert(text.into(), id);
        Some(id)
    }

    /// The information of an interned opcode.
    ///
    /// # Panics
    /// If `id` did not come from this table.
    pub fn info(&self, id: OpcodeId) -> &OpcodeInfo {
        &self.infos[usize::from(id.0)]
    }

    /// Every interned opcode, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (OpcodeId, &OpcodeInfo)> {
        self.infos.iter().enumerate().map(|(i, info)| (OpcodeId(i as u16), info))
    }
}

/// Everything derivable from an opcode string alone.
pub fn describe(isa: Isa, text: &str) -> OpcodeInfo {
    let base = text.split('.').next().unwrap_or(text);
    let (category, unknown) = match lookup(isa, base) {
        Some(category) => (category, false),
        None => (OpCategory::Alu, true),
    };
    OpcodeInfo {
        text: text.to_owned(),
        category,
        unit: unit_of(category),
        space: space_of(base, category),
        access_bytes: access_bytes(text),
        atomic: base.starts_with("ATOM") || base == "RED",
        unknown,
    }
}

fn unit_of(category: OpCategory) -> UnitClass {
    match category {
        OpCategory::Sp => UnitClass::Sp,
        OpCategory::Dp => UnitClass::Dp,
        OpCategory::Sfu => UnitClass::Sfu,
        OpCategory::TensorCore => UnitClass::Tensor,
        OpCategory::Specialized(k) => UnitClass::Specialized(k),
        OpCategory::Load | OpCategory::Store | OpCategory::MemoryBarrier => UnitClass::Memory,
        OpCategory::Alu
        | OpCategory::Intp
        | OpCategory::Branch
        | OpCategory::Call
        | OpCategory::Ret
        | OpCategory::Barrier
        | OpCategory::Exit => UnitClass::Int,
    }
}

/// The space of a load or store by its mnemonic. `LDC` is an ALU operation in
/// Accel-Sim (constant loads are not simulated as memory accesses) and so has
/// no space here.
fn space_of(base: &str, category: OpCategory) -> MemSpace {
    if !matches!(category, OpCategory::Load | OpCategory::Store) {
        return match category {
            OpCategory::Specialized(2) => MemSpace::Tex,
            _ => MemSpace::None,
        };
    }
    match base {
        "LDS" | "STS" | "ATOMS" | "LDSM" => MemSpace::Shared,
        "LDL" | "STL" => MemSpace::Local,
        "LD" | "ST" | "ATOM" => MemSpace::Generic,
        "LDC" => MemSpace::Const,
        _ => MemSpace::Global,
    }
}

/// Bytes per thread from the modifiers: the first purely numeric one divided by
/// 8, or `U<bits>` divided by 8; 4 when there is neither (Accel-Sim's rule,
/// which ignores the trace's own `mem_width`).
pub fn access_bytes(text: &str) -> u8 {
    for modifier in text.split('.').skip(1) {
        let digits = modifier.strip_prefix('U').unwrap_or(modifier);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let bits: u32 = digits.parse().unwrap_or(32);
            return u8::try_from(bits / 8).unwrap_or(u8::MAX);
        }
    }
    4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_found_among_the_recent_ones_keep_the_ids_of_their_first_sight() {
        // More opcodes than slots, so that many share one, interned in an
        // order that revisits them: each must keep the id of its first sight.
        let texts: Vec<String> = (0..3 * RECENT_SLOTS).map(|i| format!("FADD.F{i}")).collect();
        let mut table = OpcodeTable::new(Isa::Ampere);
        let mut diagnostics = Vec::new();
        let mut first_seen = HashMap::new();
        for round in 0..4 {
            for (i, text) in texts.iter().enumerate().filter(|(i, _)| (i + round) % 3 != 0) {
                let id = table.intern(text, &mut diagnostics).expect("room");
                let expected = *first_seen.entry(i).or_insert(id);
                assert_eq!(id, expected, "{text} in round {round}");
                assert_eq!(table.info(id).text, *text);
            }
        }
        assert_eq!(table.iter().count(), texts.len());
    }

    fn check(isa: Isa, text: &str, expect: (OpCategory, UnitClass, MemSpace, u8, bool)) {
        let info = describe(isa, text);
        assert_eq!((info.category, info.unit, info.space, info.access_bytes, info.unknown), expect, "{text}");
    }

    #[test]
    fn every_memory_space_is_listed_once_at_its_discriminant() {
        for (index, space) in MemSpace::ALL.iter().enumerate() {
            assert_eq!(*space as usize, index, "{space:?}");
        }
        let names: std::collections::HashSet<_> = MemSpace::ALL.iter().map(|space| space.name()).collect();
        assert_eq!(names.len(), MemSpace::ALL.len());
    }

    #[test]
    fn every_csv_line_maps_to_a_category() {
        let csv = include_str!("../data/opcode_maps.csv");
        let rows = csv.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
        let mapped: usize = tables().values().map(HashMap::len).sum();
        assert_eq!(mapped, rows, "duplicate or unmappable rows in opcode_maps.csv");
        assert_eq!(tables().len(), 5);
    }

    #[test]
    fn opcodes_of_the_anchor_traces() {
        check(Isa::Pascal, "LDG.E.CG", (OpCategory::Load, UnitClass::Memory, MemSpace::Global, 4, false));
        check(Isa::Ampere, "LDG.E.128.SYS", (OpCategory::Load, UnitClass::Memory, MemSpace::Global, 16, false));
        check(Isa::Ampere, "STL.64", (OpCategory::Store, UnitClass::Memory, MemSpace::Local, 8, false));
        check(Isa::Pascal, "LDS.U8", (OpCategory::Load, UnitClass::Memory, MemSpace::Shared, 1, false));
        check(Isa::Ampere, "FADD", (OpCategory::Sp, UnitClass::Sp, MemSpace::None, 4, false));
        check(Isa::Ampere, "IMAD.MOV.U32", (OpCategory::Intp, UnitClass::Int, MemSpace::None, 4, false));
        check(Isa::Pascal, "BAR.SYNC", (OpCategory::Barrier, UnitClass::Int, MemSpace::None, 4, false));
        check(Isa::Hopper, "VIADD", (OpCategory::Intp, UnitClass::Int, MemSpace::None, 4, false));
        check(
            Isa::Ampere,
            "ULDC.64",
            (OpCategory::Specialized(4), UnitClass::Specialized(4), MemSpace::None, 8, false),
        );
        check(Isa::Volta, "ATOMG.E.ADD.STRONG.GPU", (OpCategory::Store, UnitClass::Memory, MemSpace::Global, 4, false));
        assert!(describe(Isa::Volta, "RED.E.ADD").atomic);
    }

    #[test]
    fn unknown_mnemonic_falls_back_to_alu() {
        check(Isa::Ampere, "VIADD", (OpCategory::Alu, UnitClass::Int, MemSpace::None, 4, true));
        let mut table = OpcodeTable::new(Isa::Volta);
        let mut diagnostics = Vec::new();
        let a = table.intern("FOO.X", &mut diagnostics);
        let b = table.intern("FOO.X", &mut diagnostics);
        assert_eq!((a, b), (Some(OpcodeId(0)), Some(OpcodeId(0))));
        assert_eq!(diagnostics.len(), 1, "one diagnostic per distinct opcode");
    }

    #[test]
    fn binary_versions_without_a_table_use_the_nearest_older() {
        assert_eq!(Isa::for_binary_version(61), (Isa::Pascal, None));
        assert_eq!(Isa::for_binary_version(62).0, Isa::Pascal);
        assert_eq!(Isa::for_binary_version(72).0, Isa::Volta);
        assert_eq!(Isa::for_binary_version(89).0, Isa::Ampere);
        let (isa, note) = Isa::for_binary_version(90);
        assert_eq!(isa, Isa::Hopper);
        let expect =
            "binary version 90 has no opcode table of its own; using the Ampere table with the Hopper additions";
        assert_eq!(note.as_deref(), Some(expect));
    }
}
