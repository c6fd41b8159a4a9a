//! What the web stream costs at scale: a synthetic program of N methods (real TCP into the
//! real ingest server, its hot spots moving every tick) served to K WebSocket clients
//! (tungstenite's). Prints the time to the first whole city, the stream's bytes per second per
//! page in steady state, and the web threads' CPU. `--serve-for S` keeps serving S seconds
//! more and prints the link, for a browser's frame time (scripts/web/check_web.mjs `frames`).
//!
//! cargo bench -p highrise-web --bench stream -- --methods 200000 --pages 20 --seconds 10

use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use highrise_aggregate::AlertConfig;
use highrise_aggregate_sink::AggregateSink;
use highrise_protocol::{write_frame, AgentMessage, EventKind};
use highrise_testkit::messages::{batch, hello, method};
use highrise_testkit::server::{start, test_config};
use highrise_web::{WebConfig, WebServer};
use tokio_tungstenite::tungstenite::Message;

#[derive(Clone)]
struct Args {
    methods: u32,
    pages: usize,
    seconds: f64,
    threads: u64,
    serve_for_s: f64,
}

fn args() -> Args {
    let mut args = Args {
        methods: 20_000,
        pages: 1,
        seconds: 10.0,
        threads: 4,
        serve_for_s: 0.0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_default();
        match flag.as_str() {
            "--methods" => args.methods = value().parse().expect("--methods N"),
            "--pages" => args.pages = value().parse().expect("--pages K"),
            "--seconds" => args.seconds = value().parse().expect("--seconds S"),
            "--threads" => args.threads = value().parse().expect("--threads T"),
            "--serve-for" => args.serve_for_s = value().parse().expect("--serve-for S"),
            _ => {} // cargo bench's own flags
        }
    }
    args
}

/// Web threads' CPU time so far (the model thread and the runtime's workers), seconds.
fn web_cpu_s() -> f64 {
    let mut ticks = 0u64;
    for task in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("highrise-web") {
            continue;
        }
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(") ")
            .map_or("", |(_, rest)| rest)
            .split(' ')
            .collect();
        ticks += fields
            .get(11)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        ticks += fields
            .get(12)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    ticks as f64 / 100.0
}

/// The program: N methods in classes of 20 and packages of 50 classes; each 50 ms tick every
/// thread spends 20 ms in a hot method (another every 2 s) and calls 300 methods around a
/// point that moves every tick.
fn program(addr: std::net::SocketAddr, args: &Args, stop: Arc<AtomicBool>) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    let mut send = |message: &AgentMessage| {
        let mut frame = Vec::new();
        write_frame(&mut frame, message).expect("encodes");
        stream.write_all(&frame).expect("writes");
    };
    send(&AgentMessage::Hello(hello(
        "bench",
        &format!("synthetic-{}", args.methods),
    )));
    let ids: Vec<u32> = (0..args.methods).collect();
    for chunk in ids.chunks(5_000) {
        send(&AgentMessage::DefineMethods(
            chunk
                .iter()
                .map(|&id| {
                    let class = id / 20;
                    method(
                        id,
                        &format!("app.p{}.q{}", class / 500, class / 50),
                        &format!("C{class}"),
                        &format!("m{}", id % 20),
                    )
                })
                .collect(),
        ));
    }
    let started = Instant::now();
    for thread in 0..args.threads {
        send(&AgentMessage::ThreadStart {
            thread_id: thread,
            name: format!("worker-{thread}"),
            timestamp: 1,
        });
    }
    let mut tick = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let now_ns = started.elapsed().as_nanos() as u64 + 1;
        let centre = (tick * 997) % u64::from(args.methods);
        for thread in 0..args.threads {
            let mut events = Vec::with_capacity(606);
            let mut t = now_ns;
            // A hot spot that moves every 2 s: 20 ms of each 50 ms tick.
            let hot = ((tick / 40 * 7_919 + thread * 13) % u64::from(args.methods)) as u32;
            events.push((t, hot, EventKind::Enter));
            t += 20_000_000;
            events.push((t, hot, EventKind::Exit));
            events.push((t, 0, EventKind::Enter));
            for k in 0..300u64 {
                let id = ((centre + thread * 300 + k * 7) % u64::from(args.methods)) as u32;
                events.push((t + 1, id, EventKind::Enter));
                t += 20_000 + (k % 5) * 10_000;
                events.push((t, id, EventKind::Exit));
            }
            events.push((t + 1, 0, EventKind::Exit));
            send(&batch(thread, &events));
        }
        tick += 1;
        std::thread::sleep(Duration::from_millis(50));
    }
    send(&AgentMessage::Goodbye {
        timestamp: started.elapsed().as_nanos() as u64 + 1,
    });
}

fn main() {
    let args = args();
    let ingest = start(test_config(), AggregateSink::factory);
    let web = WebServer::start(
        WebConfig {
            listen_addr: "127.0.0.1:0".parse().expect("an address"),
            token: None,
            alerts: AlertConfig::default(),
        },
        ingest.subscribe(),
    )
    .expect("starts");
    let addr = web.local_addr();
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Instant::now();
    let agent = std::thread::spawn({
        let (stop, addr, args) = (Arc::clone(&stop), ingest.local_addr(), args.clone());
        move || program(addr, &args, stop)
    });
    // The pages: each counts what it receives; the first says when its first whole city came.
    let received = Arc::new(AtomicU64::new(0));
    let first_city_ms = Arc::new(AtomicU64::new(0));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    for page in 0..args.pages {
        let (received, first_city_ms) = (Arc::clone(&received), Arc::clone(&first_city_ms));
        runtime.spawn(async move {
            let stream = tokio::net::TcpStream::connect(addr)
                .await
                .expect("connects");
            let (mut socket, _) =
                tokio_tungstenite::client_async(format!("ws://{addr}/stream"), stream)
                    .await
                    .expect("upgrades");
            while let Some(Ok(message)) = socket.next().await {
                let length = match &message {
                    Message::Binary(bytes) => {
                        if page == 0
                            && bytes[0] == highrise_web::wire::HEIGHTS
                            && bytes[1] == highrise_web::wire::ALL
                        {
                            let _ = first_city_ms.compare_exchange(
                                0,
                                opened.elapsed().as_millis() as u64,
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                            );
                        }
                        bytes.len()
                    }
                    Message::Text(text) => text.len(),
                    _ => 0,
                };
                received.fetch_add(length as u64, Ordering::Relaxed);
            }
        });
    }
    while args.pages > 0
        && first_city_ms.load(Ordering::SeqCst) == 0
        && opened.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    // Steady state: past the first plan and the window's first fill.
    std::thread::sleep(Duration::from_secs(4));
    let (bytes0, cpu0, t0) = (
        received.load(Ordering::Relaxed),
        web_cpu_s(),
        Instant::now(),
    );
    std::thread::sleep(Duration::from_secs_f64(args.seconds));
    let (bytes1, cpu1, elapsed_s) = (
        received.load(Ordering::Relaxed),
        web_cpu_s(),
        t0.elapsed().as_secs_f64(),
    );
    println!(
        "methods {} pages {}: first whole city {} ms after connecting; stream {:.0} bytes/s per page; web threads {:.1} % of a core",
        args.methods,
        args.pages,
        first_city_ms.load(Ordering::SeqCst),
        (bytes1 - bytes0) as f64 / elapsed_s / args.pages.max(1) as f64,
        100.0 * (cpu1 - cpu0) / elapsed_s,
    );
    if args.serve_for_s > 0.0 {
        println!("SERVING {}", web.url());
        std::thread::sleep(Duration::from_secs_f64(args.serve_for_s));
    }
    stop.store(true, Ordering::Relaxed);
    let _ = agent.join();
    drop(web);
    runtime.shutdown_background();
}
