//! Converts a profile another tool wrote (folded stacks, speedscope, Chrome trace events) into
//! a `.hrec` recording and says how long that took: `cargo run --release -p highrise-import
//! --example import -- PROFILE OUT.hrec` (the figures in BENCHMARKS.md "Opening other tools'
//! profiles").

use std::time::Instant;

use highrise_import::{convert, ProfileFormat};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        return Err("usage: import PROFILE OUT.hrec".into());
    };
    let start = Instant::now();
    let mut head = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(input)?, 4096),
        &mut head,
    )?;
    let format = ProfileFormat::detect(&head).ok_or("not a profile this build reads")?;
    let out = std::io::BufWriter::new(std::fs::File::create(output)?);
    convert(input.as_ref(), format, out)?;
    let bytes = std::fs::metadata(input)?.len();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{input}: {format:?}, {:.1} MB in {seconds:.2} s ({:.0} MB/s) -> {output} ({:.1} MB)",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / seconds,
        std::fs::metadata(output)?.len() as f64 / 1e6
    );
    Ok(())
}
