//! A small bookstore server in two versions, for highrise's compare mode: run it once with
//! `--variant before` and once with `--variant after` (each reports its variant as the
//! version label) and put the two sessions side by side.
//!
//! - `before`: packages `bookstore.http`, `bookstore.before.catalog`, `.cart`, `.pricing`.
//! - `after`: `Catalog` moved to `bookstore.after.catalog.search`; `Cart` and `PriceEngine`
//!   moved to `bookstore.after.checkout.*`; `PriceEngine::quote` costs 6× more.
//!
//! Four worker threads handle a deterministic stream of search and buy requests.

pub mod after;
pub mod before;
pub mod http;
mod shop;
pub mod work;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http::{Request, Server, Store};

/// Which version of the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    Before,
    After,
}

impl Variant {
    pub fn label(self) -> &'static str {
        match self {
            Variant::Before => "before",
            Variant::After => "after",
        }
    }
}

/// Command line.
#[derive(Debug, Clone, clap::Parser)]
#[command(about = "A bookstore server in two versions for highrise's compare mode")]
pub struct Options {
    /// Which version to run.
    #[arg(long, value_enum, default_value_t = Variant::Before)]
    pub variant: Variant,
    /// Seconds to run.
    #[arg(long, default_value_t = 30.0)]
    pub duration_s: f64,
    /// Worker threads.
    #[arg(long, default_value_t = 4)]
    pub workers: usize,
}

/// Requests handled and revenue, over all workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub requests: u64,
    pub revenue: u64,
}

fn worker<S: Store>(store: S, index: usize, stop: &AtomicBool) -> Summary {
    let mut server = Server::new(store);
    let mut n = index as u64;
    while !stop.load(Ordering::Relaxed) {
        n = n.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let query = format!("volume {}", (n >> 33) % 7);
        let request = if (n >> 40) % 3 == 0 {
            Request::Buy(query)
        } else {
            Request::Search(query)
        };
        server.handle(&request);
        std::thread::sleep(Duration::from_micros(300));
    }
    Summary {
        requests: server.handled,
        revenue: server.revenue,
    }
}

/// Runs the workers for the duration.
pub fn serve(options: &Options) -> anyhow::Result<Summary> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for index in 0..options.workers.max(1) {
        let stop = Arc::clone(&stop);
        let variant = options.variant;
        handles.push(
            std::thread::Builder::new()
                .name(format!("worker-{index}"))
                .spawn(move || match variant {
                    Variant::Before => worker(before::Shop::new(), index, &stop),
                    Variant::After => worker(after::Shop::new(), index, &stop),
                })?,
        );
    }
    let deadline = Instant::now() + Duration::from_secs_f64(options.duration_s.max(0.0));
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    let mut total = Summary {
        requests: 0,
        revenue: 0,
    };
    for handle in handles {
        let summary = handle
            .join()
            .map_err(|_| anyhow::anyhow!("a worker panicked"))?;
        total.requests += summary.requests;
        total.revenue += summary.revenue;
    }
    Ok(total)
}
