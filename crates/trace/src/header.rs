//! The `.traceg` header: the `-key = value` lines before the first CTA.

use serde::{Deserialize, Serialize};

use crate::ParseError;

/// Grid or block dimensions, `(x, y, z)`; serialized as `[x, y, z]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(from = "[u32; 3]", into = "[u32; 3]")]
pub struct Dim3 {
    /// Extent (or index) in x.
    pub x: u32,
    /// Extent (or index) in y.
    pub y: u32,
    /// Extent (or index) in z.
    pub z: u32,
}

impl Dim3 {
    /// The number of elements, `x * y * z`.
    pub fn size(self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }

    /// This index's place in `grid`, counted with x fastest (the CTA order
    /// of a launch).
    pub fn index_in(self, grid: Dim3) -> u64 {
        (u64::from(self.z) * u64::from(grid.y) + u64::from(self.y)) * u64::from(grid.x) + u64::from(self.x)
    }
}

/// `(x,y,z)`, as trace headers write it.
impl std::fmt::Display for Dim3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{},{})", self.x, self.y, self.z)
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from([x, y, z]: [u32; 3]) -> Self {
        Dim3 { x, y, z }
    }
}

impl From<Dim3> for [u32; 3] {
    fn from(d: Dim3) -> Self {
        [d.x, d.y, d.z]
    }
}

/// Everything the header says about the kernel launch.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KernelHeader {
    /// The (mangled) kernel name.
    pub name: String,
    /// `-kernel id`: the launch's 1-based number in the application.
    pub id: u64,
    /// Grid dimensions in CTAs.
    pub grid: Dim3,
    /// CTA dimensions in threads.
    pub block: Dim3,
    /// Shared memory per CTA, static plus dynamic, in bytes.
    pub shmem_bytes: u32,
    /// Registers per thread.
    pub nregs: u32,
    /// `-binary version`: selects the opcode table.
    pub binary_version: u32,
    /// `-cuda stream id`: kernels of different streams may overlap.
    pub stream_id: u64,
    /// Base of the generic-address window of shared memory (0 when absent).
    pub shmem_base: u64,
    /// Base of the generic-address window of local memory (0 when absent).
    pub local_base: u64,
    /// `-nvbit version` as written.
    pub nvbit_version: String,
    /// `-accelsim tracer version`; 0 when absent (the oldest traces).
    pub tracer_version: u32,
    /// `-enable lineinfo = 1`: instruction lines start with a source line number.
    pub line_info: bool,
    /// Header lines warplab does not interpret, kept in order as `(key, value)`.
    pub other: Vec<(String, String)>,
}

impl KernelHeader {
    /// Applies one header line (without its leading `-`).
    pub(crate) fn apply(&mut self, file: &str, line: usize, text: &str) -> Result<(), ParseError> {
        let (key, value) = match text.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (text.trim(), ""),
        };
        let error = |field: &'static str, what: &str| {
            ParseError::new(file, line, field, format!("expected {what}, found `{value}`"))
        };
        match key {
            "kernel name" => self.name = value.to_owned(),
            "kernel id" => self.id = value.parse().map_err(|_| error("kernel id", "a number"))?,
            "grid dim" => self.grid = parse_dim3(value).ok_or_else(|| error("grid dim", "`(x,y,z)`"))?,
            "block dim" => self.block = parse_dim3(value).ok_or_else(|| error("block dim", "`(x,y,z)`"))?,
            "shmem" => self.shmem_bytes = value.parse().map_err(|_| error("shmem", "a byte count"))?,
            "nregs" => self.nregs = value.parse().map_err(|_| error("nregs", "a register count"))?,
            "binary version" => {
                self.binary_version = value.parse().map_err(|_| error("binary version", "a number"))?;
            }
            "cuda stream id" => self.stream_id = value.parse().map_err(|_| error("cuda stream id", "a number"))?,
            "shmem base_addr" => {
                self.shmem_base = parse_hex(value).ok_or_else(|| error("shmem base_addr", "a hex address"))?
            }
            "local mem base_addr" => {
                self.local_base = parse_hex(value).ok_or_else(|| error("local mem base_addr", "a hex address"))?;
            }
            "nvbit version" => self.nvbit_version = value.to_owned(),
            "accelsim tracer version" => {
                // "1.2" is version 1, as C's %d reads it.
                let digits = value.split('.').next().unwrap_or("");
                self.tracer_version =
                    digits.parse().map_err(|_| error("accelsim tracer version", "a version number"))?;
            }
            "enable lineinfo" => {
                self.line_info = value.parse::<u32>().map_err(|_| error("enable lineinfo", "0 or 1"))? != 0;
            }
            _ => self.other.push((key.to_owned(), value.to_owned())),
        }
        Ok(())
    }
}

/// `(x,y,z)` with optional spaces.
pub(crate) fn parse_dim3(value: &str) -> Option<Dim3> {
    let inner = value.trim().strip_prefix('(')?.strip_suffix(')')?;
    parse_triple(inner)
}

/// `x,y,z` with optional spaces.
pub(crate) fn parse_triple(value: &str) -> Option<Dim3> {
    let mut parts = value.split(',').map(|p| p.trim().parse::<u32>());
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(Ok(x)), Some(Ok(y)), Some(Ok(z)), None) => Some(Dim3 { x, y, z }),
        _ => None,
    }
}

/// A hex number with or without `0x`.
pub(crate) fn parse_hex(value: &str) -> Option<u64> {
    let digits = value.strip_prefix("0x").or_else(|| value.strip_prefix("0X")).unwrap_or(value);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    // A sign, which `from_str_radix` allows, is the one form `plain_hex` leaves to it.
    crate::numbers::plain_hex(digits).or_else(|| u64::from_str_radix(digits, 16).ok())
}

#[cfg(test)]
mod tests {
    use super::Dim3;

    #[test]
    fn an_index_counts_x_fastest_then_y_then_z() {
        let grid = Dim3 { x: 4, y: 3, z: 2 };
        assert_eq!(Dim3 { x: 0, y: 0, z: 0 }.index_in(grid), 0);
        assert_eq!(Dim3 { x: 3, y: 0, z: 0 }.index_in(grid), 3);
        assert_eq!(Dim3 { x: 0, y: 1, z: 0 }.index_in(grid), 4);
        assert_eq!(Dim3 { x: 1, y: 2, z: 1 }.index_in(grid), 12 + 8 + 1);
        assert_eq!(Dim3 { x: 3, y: 2, z: 1 }.index_in(grid), grid.size() - 1);
    }
}
