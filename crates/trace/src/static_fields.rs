//! The static part of an instruction line (its registers, opcode and access
//! width, which the program fixes at each PC) remembered by PC, so that the
//! many lines of one PC, one for each warp and iteration that runs it, are
//! parsed once.
//!
//! A line takes its static part from here only when its bytes are the ones it
//! was read from, up to a field boundary, so the fields are what parsing them
//! would give. Reading the static part was about half the cost of a line.
//!
//! A line without addresses ends with its immediate, which the program fixes
//! too: once such a line has been read whole, its slot holds the rest of the
//! line, and a line equal to it to its end is read without another field.

use crate::instruction::{MAX_DST_REGS, MAX_SRC_REGS};
use crate::{Instruction, OpcodeId, Reg};

/// Remembered PCs: a direct-mapped table, as a kernel's lines at one PC come
/// back after at most a warp's trace, and a PC that lost its slot is parsed.
const SLOTS: usize = 512;

/// The longest static text remembered, in bytes; longer ones are parsed each time.
const MAX_TEXT_BYTES: usize = 64;

/// The fields a line's static text holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct StaticFields {
    n_dst: u8,
    dst: [Reg; MAX_DST_REGS],
    opcode: OpcodeId,
    n_src: u8,
    src: [Reg; MAX_SRC_REGS],
    mem_width: u16,
}

impl StaticFields {
    pub(crate) fn of(inst: &Instruction) -> Self {
        let Instruction { n_dst, dst, opcode, n_src, src, mem_width, .. } = *inst;
        StaticFields { n_dst, dst, opcode, n_src, src, mem_width }
    }

    pub(crate) fn write_to(self, inst: &mut Instruction) {
        let StaticFields { n_dst, dst, opcode, n_src, src, mem_width } = self;
        (inst.n_dst, inst.dst, inst.opcode, inst.n_src, inst.src, inst.mem_width) =
            (n_dst, dst, opcode, n_src, src, mem_width);
    }
}

/// One PC's static text and fields; an empty text is an empty slot.
#[derive(Clone, Copy)]
struct Slot {
    pc: u32,
    len: u8,
    text: [u8; MAX_TEXT_BYTES],
    fields: StaticFields,
    /// The immediate, when the text runs to the end of the line.
    immediate: Option<i64>,
}

/// What a slot gives a line: its static fields, the length of the text they
/// were read from, and the immediate when that text was the rest of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found {
    pub fields: StaticFields,
    pub len: usize,
    pub immediate: Option<i64>,
}

/// The static fields last read at each PC (for one kernel: opcode ids are its table's).
pub(crate) struct StaticFieldsByPc {
    slots: Vec<Slot>,
}

impl StaticFieldsByPc {
    pub(crate) fn new() -> Self {
        let fields = StaticFields::default();
        let empty = Slot { pc: 0, len: 0, text: [0; MAX_TEXT_BYTES], fields, immediate: None };
        StaticFieldsByPc { slots: vec![empty; SLOTS] }
    }

    /// What is remembered at `pc` for `line` (from the static part's first
    /// field on): a static text it begins with as a whole field, or a rest of
    /// a line it equals.
    pub(crate) fn find(&self, pc: u32, line: &[u8]) -> Option<Found> {
        let slot = &self.slots[slot_of(pc)];
        let len = usize::from(slot.len);
        if slot.pc != pc || len == 0 || !line.starts_with(&slot.text[..len]) {
            return None;
        }
        let whole = match slot.immediate {
            Some(_) => line.len() == len,
            None => line.get(len).is_none_or(u8::is_ascii_whitespace),
        };
        whole.then_some(Found { fields: slot.fields, len, immediate: slot.immediate })
    }

    /// Remembers that `text` at `pc` reads as `fields`, and when `immediate`
    /// is given, that `text` is the rest of a line whose immediate it is.
    pub(crate) fn remember(&mut self, pc: u32, text: &[u8], fields: StaticFields, immediate: Option<i64>) {
        if text.len() > MAX_TEXT_BYTES {
            return;
        }
        let slot = &mut self.slots[slot_of(pc)];
        (slot.pc, slot.len, slot.fields, slot.immediate) = (pc, text.len() as u8, fields, immediate);
        slot.text[..text.len()].copy_from_slice(text);
    }
}

/// Instructions are 8 bytes apart before Volta and 16 from it on.
fn slot_of(pc: u32) -> usize {
    (pc as usize >> 3) % SLOTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_found_only_whole_at_its_pc() {
        let mut memo = StaticFieldsByPc::new();
        let fields = StaticFields { n_dst: 1, mem_width: 4, ..StaticFields::default() };
        let found = |len| Some(Found { fields, len, immediate: None });
        memo.remember(0x90, b"1 R4 LDG.E 1 R4 4", fields, None);
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 4 1 0x10 4 0"), found(17));
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 4"), found(17));
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 40 1 0x10 4 0"), None, "a longer field");
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 4 1 0x10 4 0"[..16].as_ref()), None, "a shorter line");
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R5 4 1 0x10 4 0"), None, "other bytes");
        assert_eq!(memo.find(0x90 + 8 * SLOTS as u32, b"1 R4 LDG.E 1 R4 4"), None, "another PC of the slot");
        assert_eq!(memo.find(0x98, b""), None, "an empty slot");
        memo.remember(0xa0, &[b'1'; MAX_TEXT_BYTES + 1], fields, None);
        assert_eq!(memo.find(0xa0, &[b'1'; MAX_TEXT_BYTES + 1]), None, "too long to remember");
    }

    #[test]
    fn a_rest_of_a_line_is_found_only_to_the_end() {
        let mut memo = StaticFieldsByPc::new();
        let fields = StaticFields { n_dst: 1, ..StaticFields::default() };
        memo.remember(0x10, b"1 R1 MOV 0 0 -7", fields, Some(-7));
        assert_eq!(memo.find(0x10, b"1 R1 MOV 0 0 -7"), Some(Found { fields, len: 15, immediate: Some(-7) }));
        assert_eq!(memo.find(0x10, b"1 R1 MOV 0 0 -7 8"), None, "more after it");
        assert_eq!(memo.find(0x10, b"1 R1 MOV 0 0 -75"), None, "a longer immediate");
        assert_eq!(memo.find(0x10, b"1 R1 MOV 0 0"), None, "no immediate");
    }
}
