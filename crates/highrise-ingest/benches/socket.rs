//! End-to-end ingest throughput over a real loopback socket: a client thread writes pre-encoded
//! frames (realistic nested stream, 8 threads, 4096-event batches) as fast as it can; the real
//! listener reads, decodes, validates and feeds the sink. Reported: events per second from the
//! first byte to the final report, for a sink that keeps nothing (read + decode + validation)
//! and for the aggregator (the product's path); then the aggregator with and without the
//! session recorded (compressed `.hrec`, as `highrise record` writes it), interleaved, with
//! the recording's bytes per event.
//!
//! Run: `cargo bench -p highrise-ingest --bench socket` (prints the median of 5 runs each).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, NullSink, SessionSink};
use highrise_protocol::{write_frame, AgentMessage, Hello};
use highrise_testkit::messages::{hello, method};
use highrise_testkit::server::{start, test_config};
use highrise_testkit::synthetic::{realistic_batches, StreamShape};

const SHAPE: StreamShape = StreamShape::REALISTIC;

fn stream() -> (Vec<u8>, u64) {
    let batches = realistic_batches(&SHAPE, 8_000_000, 11);
    let events = batches.iter().map(|b| u64::from(b.event_count)).sum();
    let mut bytes = Vec::new();
    write_frame(
        &mut bytes,
        &AgentMessage::Hello(Hello {
            pid: 1,
            ..hello("socket-bench", "bench")
        }),
    )
    .expect("encode");
    let definitions = (0..SHAPE.methods)
        .map(|id| {
            let (package, class) = (format!("p{}", id % 17), format!("C{}", id % 301));
            method(id, &package, &class, &format!("m{id}"))
        })
        .collect();
    write_frame(&mut bytes, &AgentMessage::DefineMethods(definitions)).expect("encode");
    for batch in batches {
        write_frame(&mut bytes, &AgentMessage::Events(batch)).expect("encode");
    }
    write_frame(
        &mut bytes,
        &AgentMessage::Goodbye {
            timestamp: u64::MAX / 2,
        },
    )
    .expect("encode");
    (bytes, events)
}

fn run_once<S: SessionSink>(make_sink: fn(&Hello) -> S, bytes: &[u8], events: u64) -> f64 {
    run_recorded(make_sink, bytes, events, None)
}

fn run_recorded<S: SessionSink>(
    make_sink: fn(&Hello) -> S,
    bytes: &[u8],
    events: u64,
    record_to: Option<std::path::PathBuf>,
) -> f64 {
    let server = start(
        IngestConfig {
            publish_interval: Duration::from_millis(50),
            record_sessions_to: record_to,
            ..test_config()
        },
        make_sink,
    );
    let addr = server.local_addr();
    let start = Instant::now();
    let sender = {
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            let mut stream = TcpStream::connect(addr).expect("connect");
            stream.write_all(&bytes).expect("send");
            // Read the viewer's answer before closing, as SPEC.md asks: closing with unread
            // bytes makes the kernel reset the connection and lose our last frames.
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut answer = Vec::new();
            let _ = stream.read_to_end(&mut answer);
        })
    };
    loop {
        let report = server
            .updates()
            .recv_timeout(Duration::from_secs(120))
            .expect("report");
        if report.is_ended() {
            assert_eq!(report.stats.events, events, "{:?}", report.errors);
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            break;
        }
    }
    let elapsed_s = start.elapsed().as_secs_f64();
    sender.join().expect("sender");
    events as f64 / elapsed_s
}

/// User + system CPU seconds of this process so far (Linux `/proc/self/stat`; 0 elsewhere).
fn process_cpu_s() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) end with ')'.
    let Some(after) = stat.rsplit_once(')').map(|(_, rest)| rest) else {
        return 0.0;
    };
    let fields: Vec<&str> = after.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (bytes, events) = stream();
    println!(
        "stream: {events} events, {} bytes ({:.2} bytes/event)",
        bytes.len(),
        bytes.len() as f64 / events as f64
    );
    let null: Vec<f64> = (0..5)
        .map(|_| run_once(NullSink::factory, &bytes, events))
        .collect();
    println!(
        "socket → decode → validate (NullSink): median {:.1} M events/s",
        median(null) / 1e6
    );
    let aggregate: Vec<f64> = (0..5)
        .map(|_| run_once(AggregateSink::factory, &bytes, events))
        .collect();
    println!(
        "socket → decode → validate → aggregate: median {:.1} M events/s",
        median(aggregate) / 1e6
    );
    // Recording overhead: the same aggregate path with and without a recording of the whole
    // session (to a file in the temp dir, compressed as by default), runs interleaved.
    let file = std::env::temp_dir().join(format!("highrise-bench-{}.hrec", std::process::id()));
    let (mut plain, mut recorded) = (Vec::new(), Vec::new());
    let (mut plain_cpu, mut recorded_cpu) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let cpu = process_cpu_s();
        plain.push(run_once(AggregateSink::factory, &bytes, events));
        plain_cpu.push((process_cpu_s() - cpu) * 1e9 / events as f64);
        let cpu = process_cpu_s();
        recorded.push(run_recorded(
            AggregateSink::factory,
            &bytes,
            events,
            Some(file.clone()),
        ));
        recorded_cpu.push((process_cpu_s() - cpu) * 1e9 / events as f64);
    }
    let recording_bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
    let _ = std::fs::remove_file(&file);
    let (plain, recorded) = (median(plain), median(recorded));
    println!(
        "aggregate, interleaved: median {:.1} M events/s without recording, {:.1} M events/s recording (ratio {:.2}); recording {} bytes = {:.3} bytes/event (frames {:.3})",
        plain / 1e6,
        recorded / 1e6,
        recorded / plain,
        recording_bytes,
        recording_bytes as f64 / events as f64,
        bytes.len() as f64 / events as f64
    );
    // CPU of the whole process (sender, reader, worker, recording thread) per event: what
    // recording costs whether or not a core was free for it.
    println!(
        "aggregate, interleaved: median process CPU {:.1} ns/event without recording, {:.1} ns/event recording",
        median(plain_cpu),
        median(recorded_cpu)
    );
}
