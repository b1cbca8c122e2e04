//! Embeds the default models of the agent `nn`: every
//! `models/*.safetensors` of this crate, by file name, sorted (the order
//! `nn` tries them for a ruleset's family). None is fine: the build then
//! refuses the spec `nn` with a clear error (`nn:PATH` still works).

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let dir =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("models");
    println!("cargo:rerun-if-changed=models");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = String::from(
        "/// The embedded model files: (file name, bytes).\nconst EMBEDDED: &[(&str, &[u8])] = &[\n",
    );
    for f in &files {
        let name = f.file_name().expect("a file").to_string_lossy();
        let path = f.to_string_lossy();
        writeln!(out, "    ({name:?}, include_bytes!({path:?})),").expect("a String");
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded_models.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
