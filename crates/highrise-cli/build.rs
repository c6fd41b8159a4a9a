//! Release builds on Linux link `highrise` with compressed debug sections: the line tables our
//! crates keep (`[profile.release]`) shrink about fourfold, and backtraces, gdb and addr2line
//! read them as they are (BENCHMARKS.md, "Build"). Debug builds and other systems link as
//! usual.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let release = std::env::var("PROFILE").is_ok_and(|profile| profile == "release");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if release && linux {
        println!("cargo:rustc-link-arg-bins=-Wl,--compress-debug-sections=zlib");
    }
}
