//! `corpus-rust [--rounds N] [--records N] [--level L] [--timings]` with a listener on
//! `$HIGHRISE_ADDR`: runs [`corpus::round`] N times under the agent and, at exit, prints
//! `highrise-agent: sent N events, dropped M` on stderr (the agent's own counters after its
//! Goodbye), which `scripts/test-corpus.sh` compares with the session's count.

use std::time::{Duration, Instant};

fn main() {
    let mut rounds = 4u64;
    let mut count = 20_000usize;
    let mut level = 19i32;
    let mut timings = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--timings" {
            timings = true;
            continue;
        }
        let value = args.next().unwrap_or_default();
        let ok = match arg.as_str() {
            "--rounds" => value.parse().map(|v| rounds = v).is_ok(),
            "--records" => value.parse().map(|v| count = v).is_ok(),
            "--level" => value.parse().map(|v| level = v).is_ok(),
            _ => false,
        };
        if !ok {
            eprintln!("usage: corpus-rust [--rounds N] [--records N] [--level L] [--timings]");
            std::process::exit(2);
        }
    }
    let highrise = highrise_agent::init("corpus-rust");
    // Connecting happens in the background: wait for it (2 s at most), so that the whole run
    // is recorded.
    let deadline = Instant::now() + Duration::from_secs(2);
    while !highrise_agent::stats().connected && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut steps = corpus::Timings::default();
    let mut packed = 0;
    for seed in 0..rounds {
        packed += corpus::round(seed + 1, count, level, &mut steps);
    }
    drop(highrise); // flush, Goodbye
    println!("corpus-rust: {rounds} rounds of {count} records, {packed} bytes compressed");
    if timings {
        let total: Duration = steps.steps.iter().map(|(_, took)| *took).sum();
        for (step, took) in &steps.steps {
            println!(
                "  {step:<18} {:>8.3} s {:>5.1} %",
                took.as_secs_f64(),
                100.0 * took.as_secs_f64() / total.as_secs_f64().max(1e-9)
            );
        }
    }
    let stats = highrise_agent::stats();
    eprintln!(
        "highrise-agent: sent {} events, dropped {}",
        stats.events_sent, stats.events_dropped
    );
}
