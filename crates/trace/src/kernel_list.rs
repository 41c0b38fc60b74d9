//! `kernelslist.g`: the ordered commands of a traced application.

use crate::ParseError;

/// One command of `kernelslist.g`, in the order the application issued them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A kernel launch whose trace is in `file` (`kernel-N.traceg`, possibly `.xz`).
    Kernel {
        /// The trace file name, relative to the directory of `kernelslist.g`.
        file: String,
    },
    /// A host-to-device copy of `bytes` bytes to device address `addr`.
    MemcpyHtoD {
        /// Destination device address.
        addr: u64,
        /// Number of bytes copied.
        bytes: u64,
    },
}

/// The command's line in `kernelslist.g`.
impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Kernel { file } => f.write_str(file),
            Command::MemcpyHtoD { addr, bytes } => write!(f, "MemcpyHtoD,{addr:#018x},{bytes}"),
        }
    }
}

/// The parsed contents of a `kernelslist.g` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelList {
    /// Commands in file order.
    pub commands: Vec<Command>,
}

impl KernelList {
    /// Parses the text of a `kernelslist.g` named `file`.
    ///
    /// Lines naming a `.traceg` or `.traceg.xz` file are kernel launches;
    /// `MemcpyHtoD,addr,bytes` lines are copies; blank and any other lines are
    /// ignored, as Accel-Sim ignores them.
    ///
    /// # Errors
    /// A `MemcpyHtoD` line whose address or size is not a number.
    pub fn parse(file: &str, text: &str) -> Result<KernelList, ParseError> {
        let mut commands = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if let Some(rest) = line.strip_prefix("MemcpyHtoD,") {
                commands.push(parse_memcpy(file, index + 1, rest)?);
            } else if line.ends_with(".traceg") || line.ends_with(".traceg.xz") {
                commands.push(Command::Kernel { file: line.to_owned() });
            }
        }
        Ok(KernelList { commands })
    }

    /// The kernel trace files, in launch order.
    pub fn kernel_files(&self) -> impl Iterator<Item = &str> {
        self.commands.iter().filter_map(|command| match command {
            Command::Kernel { file } => Some(file.as_str()),
            Command::MemcpyHtoD { .. } => None,
        })
    }
}

fn parse_memcpy(file: &str, line: usize, rest: &str) -> Result<Command, ParseError> {
    let mut fields = rest.split(',').map(str::trim);
    let addr = fields.next().unwrap_or("");
    let bytes = fields.next().unwrap_or("");
    let addr = crate::header::parse_hex(addr).ok_or_else(|| {
        ParseError::new(file, line, "MemcpyHtoD address", format!("expected a hex address, found `{addr}`"))
    })?;
    let bytes = bytes.parse::<u64>().map_err(|_| {
        ParseError::new(file, line, "MemcpyHtoD size", format!("expected a byte count, found `{bytes}`"))
    })?;
    Ok(Command::MemcpyHtoD { addr, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<Vec<Command>, &str>) {
        let got = KernelList::parse("kernelslist.g", text).map(|list| list.commands).map_err(|e| e.to_string());
        assert_eq!(got, expect.map_err(str::to_owned));
    }

    #[test]
    fn kernels_copies_and_other_lines() {
        check(
            "MemcpyHtoD,0x00007f2b2d500000,400\n\nkernel-1.traceg\ncudaDeviceSynchronize\nkernel-2-ctx_0x5607b0e17740.traceg.xz\n",
            Ok(vec![
                Command::MemcpyHtoD { addr: 0x7f2b2d500000, bytes: 400 },
                Command::Kernel { file: "kernel-1.traceg".into() },
                Command::Kernel { file: "kernel-2-ctx_0x5607b0e17740.traceg.xz".into() },
            ]),
        );
    }

    #[test]
    fn malformed_copy_names_line_and_field() {
        check(
            "kernel-1.traceg\nMemcpyHtoD,0xzz,4\n",
            Err("kernelslist.g:2: MemcpyHtoD address: expected a hex address, found `0xzz`"),
        );
        check("MemcpyHtoD,0x10\n", Err("kernelslist.g:1: MemcpyHtoD size: expected a byte count, found ``"));
    }
}
