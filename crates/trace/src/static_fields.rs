//! The static part of an instruction line (its registers, opcode and access
//! width, which the program fixes at each PC) remembered by PC, so that the
//! many lines of one PC, one for each warp and iteration that runs it, are
//! parsed once.
//!
//! A line takes its static part from here only when its bytes are the ones it
//! was read from, up to a field boundary, so the fields are what parsing them
//! would give. Reading the static part was about half the cost of a line.

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
}

/// The static fields last read at each PC (for one kernel: opcode ids are its table's).
pub(crate) struct StaticFieldsByPc {
    slots: Vec<Slot>,
}

impl StaticFieldsByPc {
    pub(crate) fn new() -> Self {
        let empty = Slot { pc: 0, len: 0, text: [0; MAX_TEXT_BYTES], fields: StaticFields::default() };
        StaticFieldsByPc { slots: vec![empty; SLOTS] }
    }

    /// The fields remembered at `pc` when `line` (from the static part's first
    /// field on) begins with their text as a whole field, with that text's length.
    pub(crate) fn find(&self, pc: u32, line: &[u8]) -> Option<(StaticFields, usize)> {
        let slot = &self.slots[slot_of(pc)];
        let len = usize::from(slot.len);
        let same = slot.pc == pc && len > 0 && line.starts_with(&slot.text[..len]);
        (same && line.get(len).is_none_or(u8::is_ascii_whitespace)).then_some((slot.fields, len))
    }

    /// Remembers that `text` at `pc` reads as `fields`.
    pub(crate) fn remember(&mut self, pc: u32, text: &[u8], fields: StaticFields) {
        if text.len() > MAX_TEXT_BYTES {
            return;
        }
        let slot = &mut self.slots[slot_of(pc)];
        (slot.pc, slot.len, slot.fields) = (pc, text.len() as u8, fields);
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
        memo.remember(0x90, b"1 R4 LDG.E 1 R4 4", fields);
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 4 1 0x10 4 0"), Some((fields, 17)));
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 4"), Some((fields, 17)));
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R4 40 1 0x10 4 0"), None, "a longer field");
        assert_eq!(memo.find(0x90, b"1 R4 LDG.E 1 R5 4 1 0x10 4 0"), None, "other bytes");
        assert_eq!(memo.find(0x90 + 8 * SLOTS as u32, b"1 R4 LDG.E 1 R4 4"), None, "another PC of the slot");
        assert_eq!(memo.find(0x98, b""), None, "an empty slot");
        memo.remember(0xa0, &[b'1'; MAX_TEXT_BYTES + 1], fields);
        assert_eq!(memo.find(0xa0, &[b'1'; MAX_TEXT_BYTES + 1]), None, "too long to remember");
    }
}
