//! The example CUDA C kernels the editor opens (issue 41): the files of
//! `crates/cuda/examples/`, built into the app (a few kilobytes in all, so
//! they open offline and at once), from the toolbar's workload menu and from
//! a link ending in `#example=NAME`.

/// One example file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// Its name: the file's without `.cu`.
    pub name: &'static str,
    /// What it shows, in one sentence (the menu's hover text).
    pub description: &'static str,
    /// The file's text.
    pub source: &'static str,
}

impl Example {
    /// The file's name, as errors name it.
    pub fn file(&self) -> String {
        format!("{}.cu", self.name)
    }
}

/// The example `crates/cuda/examples/NAME.cu`, described.
macro_rules! example {
    ($name:literal, $description:literal) => {
        Example {
            name: $name,
            description: $description,
            source: include_str!(concat!("../../cuda/examples/", $name, ".cu")),
        }
    };
}

/// Every example, in the order the menu lists them.
pub const EXAMPLES: [Example; 5] = [
    example!("vecadd", "Vector addition, one thread per element: coalesced loads and stores"),
    example!(
        "transpose",
        "Matrix transpose naive, tiled and tiled with padding: coalescing and shared-memory bank conflicts"
    ),
    example!("reduction", "Tree reduction in shared memory, divergent and non-divergent"),
    example!("histogram", "Histogram with shared and global atomics"),
    example!("matmul", "Tiled matrix multiplication through shared memory"),
];

/// The example called `name`.
pub fn example(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|example| example.name == name)
}

/// The example a fragment (`#example=NAME`) names, if any.
pub fn example_in_fragment(fragment: &str) -> Option<&'static Example> {
    example(fragment.strip_prefix("#example=")?.split('&').next()?)
}

/// The example the page's URL names, if any.
pub fn example_in_location() -> Option<&'static Example> {
    example_in_fragment(&web_sys::window()?.location().hash().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_example_compiles_and_a_fragment_names_it() {
        let (_, config) = warplab_lab::preset_config("QV100").expect("a preset");
        for example in EXAMPLES {
            let compiled = warplab_lab::compile_kernel(&example.file(), example.source, &config);
            assert!(compiled.is_ok_and(|c| !c.kernels.is_empty()), "{}", example.name);
        }
        assert_eq!(example_in_fragment("#example=transpose").map(|e| e.name), Some("transpose"));
        assert_eq!(example_in_fragment("#example=matmul&step=2").map(|e| e.name), Some("matmul"));
        assert_eq!(example_in_fragment("#example=nope"), None);
        assert_eq!(example_in_fragment("#x=6abc"), None);
    }
}
