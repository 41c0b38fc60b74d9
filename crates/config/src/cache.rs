//! GPGPU-Sim cache configuration strings (`-gpgpu_cache:dl1`, `dl2`, `il1`),
//! parsed field by field: geometry, policies, MSHRs, queues, data port.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
use crate::lookup::Value;
use crate::numbers::parse_decimal;

/// One cache as a cache string describes it. For the L2 this is one slice
/// (one memory sub-partition); for the L1s one SM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// `N` normal or `S` sectored (128 B lines of four 32 B sectors).
    pub kind: CacheKind,
    /// Number of sets.
    pub n_sets: u32,
    /// Line size in bytes.
    pub line_size_bytes: u32,
    /// Ways per set.
    pub assoc: u32,
    /// Replacement policy.
    pub replacement: Replacement,
    /// Write policy.
    pub write_policy: WritePolicy,
    /// When a line is allocated.
    pub allocation: Allocation,
    /// What a write miss does.
    pub write_allocate: WriteAllocate,
    /// How an address picks a set.
    pub set_index: SetIndex,
    /// MSHR organisation.
    pub mshr_kind: MshrKind,
    /// MSHR entries.
    pub mshr_entries: u32,
    /// Requests that can merge into one MSHR entry.
    pub mshr_max_merge: u32,
    /// Miss queue entries.
    pub miss_queue_entries: u32,
    /// Result FIFO entries (used by the texture MSHR kinds only).
    pub result_fifo_entries: u32,
    /// Bytes the data port moves per cycle (the string's 0 or absence means
    /// the line size, and is stored resolved).
    pub data_port_width_bytes: u32,
}

/// `N` or `S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CacheKind {
    /// `N`: whole lines.
    Normal,
    /// `S`: lines of four 32 B sectors filled separately.
    Sectored,
}

/// `L` or `F`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Replacement {
    /// `L`: least recently used.
    Lru,
    /// `F`: first in, first out.
    Fifo,
}

/// `R`, `B`, `T`, `E` or `L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WritePolicy {
    /// `R`: read-only.
    ReadOnly,
    /// `B`: write-back.
    WriteBack,
    /// `T`: write-through.
    WriteThrough,
    /// `E`: write-evict.
    WriteEvict,
    /// `L`: write-back for local memory, write-through for global.
    LocalWriteBackGlobalWriteThrough,
}

/// `m`, `f` or `s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Allocation {
    /// `m`: allocate on miss.
    OnMiss,
    /// `f`: allocate on fill.
    OnFill,
    /// `s`: streaming (on fill, as many MSHRs as lines).
    Streaming,
}

/// `N`, `W`, `F` or `L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WriteAllocate {
    /// `N`: no write-allocate.
    None,
    /// `W`: write-allocate.
    WriteAllocate,
    /// `F`: fetch on write.
    FetchOnWrite,
    /// `L`: lazy fetch on read (write-validate).
    LazyFetchOnRead,
}

/// `L`, `H`, `P`, `X` or `C`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetIndex {
    /// `L`: address bits above the line offset.
    Linear,
    /// `H`: the Fermi hash (32 or 64 sets).
    FermiHash,
    /// `P`: the IPOLY hash (16, 32 or 64 sets).
    Ipoly,
    /// `X`: XOR with higher address bits.
    Xor,
    /// `C`: GPGPU-Sim's custom function.
    Custom,
}

/// `A`, `S`, `F` or `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MshrKind {
    /// `A`: associative.
    Assoc,
    /// `S`: sector-associative.
    SectorAssoc,
    /// `F`: texture FIFO.
    TexFifo,
    /// `T`: sector texture FIFO.
    SectorTexFifo,
}

/// Documented limits of a cache string's numbers.
pub const MAX_SETS: u32 = 65_536;
/// The largest line, in bytes.
pub const MAX_LINE_BYTES: u32 = 4096;
/// The most ways per set.
pub const MAX_ASSOC: u32 = 1024;
/// The most entries of an MSHR table, miss queue or result FIFO.
pub const MAX_QUEUE_ENTRIES: u32 = 65_536;

/// A problem in one field of a cache string: the field's name and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFieldError {
    /// The field, e.g. `MSHR entries`.
    pub field: &'static str,
    /// What is wrong, e.g. `expected A, S, F or T, found `Q``.
    pub problem: String,
}

impl CacheConfig {
    /// Parses a cache string; `none` means no cache.
    ///
    /// # Errors
    ///
    /// The first field that is missing, malformed, out of range, or that does
    /// not fit the others (write-back with on-fill allocation, ...).
    pub fn parse(text: &str) -> Result<Option<Self>, CacheFieldError> {
        if text == "none" {
            return Ok(None);
        }
        let groups: Vec<Vec<&str>> = text.split(',').map(|group| group.split(':').collect()).collect();
        let fields = Fields { groups: &groups };
        let cache = Self {
            kind: fields.letter(0, 0, "cache type", &[('N', CacheKind::Normal), ('S', CacheKind::Sectored)])?,
            n_sets: fields.number(0, 1, "sets", 1..=MAX_SETS)?,
            line_size_bytes: fields.number(0, 2, "line size", 1..=MAX_LINE_BYTES)?,
            assoc: fields.number(0, 3, "associativity", 1..=MAX_ASSOC)?,
            replacement: fields.letter(
                1,
                0,
                "replacement policy",
                &[('L', Replacement::Lru), ('F', Replacement::Fifo)],
            )?,
            write_policy: fields.letter(1, 1, "write policy", &WRITE_POLICIES)?,
            allocation: fields.letter(1, 2, "allocation policy", &ALLOCATIONS)?,
            write_allocate: fields.letter(1, 3, "write-allocate policy", &WRITE_ALLOCATES)?,
            set_index: fields.letter(1, 4, "set-index function", &SET_INDEXES)?,
            mshr_kind: fields.letter(2, 0, "MSHR type", &MSHR_KINDS)?,
            mshr_entries: fields.number(2, 1, "MSHR entries", 1..=MAX_QUEUE_ENTRIES)?,
            mshr_max_merge: fields.number(2, 2, "MSHR max merge", 1..=MAX_QUEUE_ENTRIES)?,
            miss_queue_entries: fields.number(3, 0, "miss queue entries", 1..=MAX_QUEUE_ENTRIES)?,
            result_fifo_entries: fields.optional_number(3, 1, "result FIFO entries", 0..=MAX_QUEUE_ENTRIES)?,
            data_port_width_bytes: fields.optional_number(4, 0, "data port width", 0..=MAX_LINE_BYTES)?,
        };
        fields.check_no_extra()?;
        let cache = cache.resolve_port();
        cache.check_combination()?;
        Ok(Some(cache))
    }

    /// Reads the cache string of an option value (`None` for `none`).
    pub(crate) fn read(value: &Value) -> Result<Option<Self>, ConfigError> {
        Self::parse(&value.text()).map_err(|error| value.bad_field(error.field, &error.problem))
    }

    /// Capacity in bytes: sets × line size × ways.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.n_sets) * u64::from(self.line_size_bytes) * u64::from(self.assoc)
    }

    /// Whether lines are filled in 32 B sectors.
    pub fn is_sectored(&self) -> bool {
        self.kind == CacheKind::Sectored
    }

    /// Bytes a miss fetches from the next level: a 32-B sector for a
    /// sectored cache, the whole line for one that is not.
    pub fn fetch_bytes(&self) -> u32 {
        if self.is_sectored() { 32 } else { self.line_size_bytes }
    }

    /// Whether the allocation policy is streaming (`s`).
    pub fn is_streaming(&self) -> bool {
        self.allocation == Allocation::Streaming
    }

    /// The MSHR entries the cache really has: the string's count, or for a
    /// streaming cache at least one per line, as GPGPU-Sim sizes it.
    pub fn mshrs_in_use(&self) -> u32 {
        if self.is_streaming() { self.mshr_entries.max(self.n_sets * self.assoc) } else { self.mshr_entries }
    }

    fn resolve_port(mut self) -> Self {
        if self.data_port_width_bytes == 0 {
            self.data_port_width_bytes = self.line_size_bytes;
        }
        self
    }

    /// The rules GPGPU-Sim asserts when it builds the cache.
    fn check_combination(&self) -> Result<(), CacheFieldError> {
        let problem = |field, problem: &str| Err(CacheFieldError { field, problem: problem.to_owned() });
        if !self.n_sets.is_power_of_two() {
            return problem("sets", &format!("{} is not a power of two", self.n_sets));
        }
        if !self.line_size_bytes.is_power_of_two() {
            return problem("line size", &format!("{} is not a power of two", self.line_size_bytes));
        }
        if self.kind == CacheKind::Sectored && self.line_size_bytes != 128 {
            return problem("line size", "a sectored cache has 128 B lines (four 32 B sectors)");
        }
        if self.data_port_width_bytes > self.line_size_bytes {
            return problem("data port width", "is wider than a line");
        }
        let allocation_on_fill = matches!(self.allocation, Allocation::OnFill | Allocation::Streaming);
        if self.write_policy == WritePolicy::WriteBack && allocation_on_fill {
            return problem("allocation policy", "a write-back cache must allocate on miss");
        }
        let fetches = matches!(self.write_allocate, WriteAllocate::FetchOnWrite | WriteAllocate::LazyFetchOnRead);
        if fetches && self.allocation == Allocation::OnFill {
            return problem("write-allocate policy", "fetch-on-write and lazy fetch-on-read need allocation on miss");
        }
        self.check_set_index()
    }

    fn check_set_index(&self) -> Result<(), CacheFieldError> {
        let field = "set-index function";
        match self.set_index {
            SetIndex::Ipoly if ![16, 32, 64].contains(&self.n_sets) => Err(CacheFieldError {
                field,
                problem: format!("the IPOLY hash needs 16, 32 or 64 sets, not {}", self.n_sets),
            }),
            SetIndex::FermiHash if ![32, 64].contains(&self.n_sets) => Err(CacheFieldError {
                field,
                problem: format!("the Fermi hash needs 32 or 64 sets, not {}", self.n_sets),
            }),
            _ => Ok(()),
        }
    }
}

/// Writes the string back in GPGPU-Sim's full 15-field form.
impl fmt::Display for CacheConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kind == CacheKind::Sectored { 'S' } else { 'N' };
        let replacement = if self.replacement == Replacement::Lru { 'L' } else { 'F' };
        write!(
            f,
            "{kind}:{}:{}:{},{replacement}:{}:{}:{}:{},{}:{}:{},{}:{},{}",
            self.n_sets,
            self.line_size_bytes,
            self.assoc,
            letter_of(&WRITE_POLICIES, self.write_policy),
            letter_of(&ALLOCATIONS, self.allocation),
            letter_of(&WRITE_ALLOCATES, self.write_allocate),
            letter_of(&SET_INDEXES, self.set_index),
            letter_of(&MSHR_KINDS, self.mshr_kind),
            self.mshr_entries,
            self.mshr_max_merge,
            self.miss_queue_entries,
            self.result_fifo_entries,
            self.data_port_width_bytes,
        )
    }
}

const WRITE_POLICIES: [(char, WritePolicy); 5] = [
    ('R', WritePolicy::ReadOnly),
    ('B', WritePolicy::WriteBack),
    ('T', WritePolicy::WriteThrough),
    ('E', WritePolicy::WriteEvict),
    ('L', WritePolicy::LocalWriteBackGlobalWriteThrough),
];
const ALLOCATIONS: [(char, Allocation); 3] =
    [('m', Allocation::OnMiss), ('f', Allocation::OnFill), ('s', Allocation::Streaming)];
const WRITE_ALLOCATES: [(char, WriteAllocate); 4] = [
    ('N', WriteAllocate::None),
    ('W', WriteAllocate::WriteAllocate),
    ('F', WriteAllocate::FetchOnWrite),
    ('L', WriteAllocate::LazyFetchOnRead),
];
const SET_INDEXES: [(char, SetIndex); 5] = [
    ('L', SetIndex::Linear),
    ('H', SetIndex::FermiHash),
    ('P', SetIndex::Ipoly),
    ('X', SetIndex::Xor),
    ('C', SetIndex::Custom),
];
const MSHR_KINDS: [(char, MshrKind); 4] =
    [('A', MshrKind::Assoc), ('S', MshrKind::SectorAssoc), ('F', MshrKind::TexFifo), ('T', MshrKind::SectorTexFifo)];

fn letter_of<T: PartialEq + Copy>(table: &[(char, T)], value: T) -> char {
    table.iter().find(|(_, v)| *v == value).map_or('?', |(letter, _)| *letter)
}

/// The string split into `,` groups of `:` fields, read by position.
struct Fields<'a> {
    groups: &'a [Vec<&'a str>],
}

/// How many `:` fields each `,` group holds at most.
const GROUP_SIZES: [usize; 5] = [4, 5, 3, 2, 1];

impl Fields<'_> {
    fn get(&self, group: usize, index: usize) -> Option<&str> {
        self.groups.get(group).and_then(|fields| fields.get(index)).copied()
    }

    fn required(&self, group: usize, index: usize, field: &'static str) -> Result<&str, CacheFieldError> {
        self.get(group, index).ok_or_else(|| CacheFieldError { field, problem: "missing".to_owned() })
    }

    fn letter<T: Copy>(
        &self,
        group: usize,
        index: usize,
        field: &'static str,
        table: &[(char, T)],
    ) -> Result<T, CacheFieldError> {
        let text = self.required(group, index, field)?;
        let mut chars = text.chars();
        if let (Some(letter), None) = (chars.next(), chars.next())
            && let Some((_, value)) = table.iter().find(|(l, _)| *l == letter)
        {
            return Ok(*value);
        }
        let letters: Vec<String> = table.iter().map(|(l, _)| l.to_string()).collect();
        Err(CacheFieldError { field, problem: format!("expected one of {}, found `{text}`", letters.join(" ")) })
    }

    fn number(
        &self,
        group: usize,
        index: usize,
        field: &'static str,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<u32, CacheFieldError> {
        let text = self.required(group, index, field)?;
        let bad = |problem: String| CacheFieldError { field, problem };
        let number = parse_decimal(text).map_err(|expected| bad(format!("expected {expected}, found `{text}`")))?;
        match u32::try_from(number) {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(bad(format!("{text} is out of range: from {} to {}", range.start(), range.end()))),
        }
    }

    fn optional_number(
        &self,
        group: usize,
        index: usize,
        field: &'static str,
        range: std::ops::RangeInclusive<u32>,
    ) -> Result<u32, CacheFieldError> {
        if self.get(group, index).is_none() { Ok(0) } else { self.number(group, index, field, range) }
    }

    fn check_no_extra(&self) -> Result<(), CacheFieldError> {
        let too_many = self.groups.len() > GROUP_SIZES.len()
            || self.groups.iter().zip(GROUP_SIZES).any(|(fields, size)| fields.len() > size);
        if too_many {
            return Err(CacheFieldError {
                field: "data port width",
                problem: "unexpected text after the last field".to_owned(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses and renders (size, the canonical string) or the field error.
    fn check(text: &str, expect: Result<Option<(u64, &str)>, (&str, &str)>) {
        let got = CacheConfig::parse(text)
            .map(|cache| cache.map(|c| (c.size_bytes(), c.to_string())))
            .map_err(|e| (e.field.to_owned(), e.problem));
        let expect = expect
            .map(|cache| cache.map(|(size, s)| (size, s.to_owned())))
            .map_err(|(field, problem)| (field.to_owned(), problem.to_owned()));
        assert_eq!(got, expect, "{text}");
    }

    #[test]
    fn anchor_strings() {
        check("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", Ok(Some((32 * 1024, "S:4:128:64,L:T:m:L:L,A:512:8,16:0,32"))));
        check("S:32:128:24,L:B:m:L:P,A:192:4,32:0,32", Ok(Some((96 * 1024, "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32"))));
        // 13 fields: no result FIFO, and the data port defaults to the line size.
        check("N:64:128:16,L:R:f:N:L,S:2:48,4", Ok(Some((128 * 1024, "N:64:128:16,L:R:f:N:L,S:2:48,4:0,128"))));
        check("N:64:128:6,L:L:m:N:H,A:128:8,8", Ok(Some((48 * 1024, "N:64:128:6,L:L:m:N:H,A:128:8,8:0,128"))));
        check("none", Ok(None));
    }

    #[test]
    fn fields_of_a_parsed_string() {
        let cache = CacheConfig::parse("S:4:128:256,L:T:m:L:L,A:384:48,16:0,32").expect("parses").expect("a cache");
        assert_eq!((cache.n_sets, cache.line_size_bytes, cache.assoc), (4, 128, 256));
        assert_eq!((cache.replacement, cache.write_policy), (Replacement::Lru, WritePolicy::WriteThrough));
        assert_eq!(
            (cache.allocation, cache.write_allocate, cache.set_index),
            (Allocation::OnMiss, WriteAllocate::LazyFetchOnRead, SetIndex::Linear)
        );
        assert_eq!((cache.mshr_kind, cache.mshr_entries, cache.mshr_max_merge), (MshrKind::Assoc, 384, 48));
        assert_eq!((cache.miss_queue_entries, cache.result_fifo_entries, cache.data_port_width_bytes), (16, 0, 32));
        assert!(cache.is_sectored());
    }

    #[test]
    fn each_bad_field_is_named() {
        check("64:128:8,L:B:m:N,A:16:4,4", Err(("cache type", "expected one of N S, found `64`")));
        check("S:x:128:24,L:B:m:L:P,A:192:4,32", Err(("sets", "expected an unsigned decimal number, found `x`")));
        check("S:32:128:24,L:B:m:L,A:192:4,32", Err(("set-index function", "missing")));
        check("S:32:128:24,L:Q:m:L:P,A:192:4,32", Err(("write policy", "expected one of R B T E L, found `Q`")));
        check("S:32:128:24,L:B:m:L:P,Z:192:4,32", Err(("MSHR type", "expected one of A S F T, found `Z`")));
        check("S:32:128:24,L:B:m:L:P,A:0:4,32", Err(("MSHR entries", "0 is out of range: from 1 to 65536")));
        check("S:32:128:24,L:B:m:L:P,A:192:4", Err(("miss queue entries", "missing")));
        check(
            "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32,7",
            Err(("data port width", "unexpected text after the last field")),
        );
        check("S:32:128:24,L:B:m:L:P,A:192:4,32:0,256", Err(("data port width", "is wider than a line")));
        check("S:24:128:24,L:B:m:L:L,A:192:4,32", Err(("sets", "24 is not a power of two")));
        check(
            "S:32:64:24,L:B:m:L:L,A:192:4,32",
            Err(("line size", "a sectored cache has 128 B lines (four 32 B sectors)")),
        );
        check(
            "S:128:128:24,L:B:m:L:P,A:192:4,32",
            Err(("set-index function", "the IPOLY hash needs 16, 32 or 64 sets, not 128")),
        );
        check(
            "N:16:128:4,L:L:m:N:H,A:128:8,8",
            Err(("set-index function", "the Fermi hash needs 32 or 64 sets, not 16")),
        );
        check("N:16:128:4,L:B:f:N:L,A:128:8,8", Err(("allocation policy", "a write-back cache must allocate on miss")));
        check(
            "N:16:128:4,L:T:f:F:L,A:128:8,8",
            Err(("write-allocate policy", "fetch-on-write and lazy fetch-on-read need allocation on miss")),
        );
        check(
            "N:16:128:99999999999,L:T:m:F:L,A:128:8,8",
            Err(("associativity", "99999999999 is out of range: from 1 to 1024")),
        );
    }
}
