//! `cargo run -p highrise-example-shapes` with a viewer listening: the allocation-site
//! paper's example, its allocations counted per method (`--repeat N` runs it N times,
//! `--pause-ms` waits between runs so the viewer can watch).

#[global_allocator]
static ALLOC: highrise_agent::Allocator = highrise_agent::Allocator::system();

fn main() {
    let mut repeat = 1u64;
    let mut pause_ms = 0u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|value| value.parse().ok());
        match (arg.as_str(), value) {
            ("--repeat", Some(value)) => repeat = value,
            ("--pause-ms", Some(value)) => pause_ms = value,
            _ => {
                eprintln!("usage: shapes [--repeat N] [--pause-ms MS]");
                std::process::exit(2);
            }
        }
    }
    let _highrise = highrise_agent::init("shapes");
    let mut shapes = 0;
    for _ in 0..repeat {
        shapes += shapes::run();
        if pause_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(pause_ms));
        }
    }
    println!("shapes: {shapes} shapes made in {repeat} run(s)");
}
