//! Nothing to build: this package exists so that its lockfile pins
//! wasm-bindgen-cli's dependencies (see Cargo.toml).
