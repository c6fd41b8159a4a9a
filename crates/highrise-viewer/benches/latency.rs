//! Event → height change latency: an agent on a real socket enters a method; how long until the
//! frame whose systems start raising that method's building? The viewer side is the real ingest
//! server, aggregator and the viewer's intake and city systems, in a headless app paced at
//! 60 frames per second (rendering excluded: on a GPU it adds one frame of presentation).
//!
//! Run: `cargo bench -p highrise-viewer --bench latency` (prints p50/p99 over 200 trials).

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use bevy::prelude::*;
use highrise_aggregate_sink::AggregateSink;
use highrise_ingest::{IngestConfig, IngestServer};
use highrise_protocol::{
    write_frame, AgentMessage, EventKind, Hello, MethodDef, PackedEventWriter, MAGIC,
    PROTOCOL_VERSION,
};
use highrise_viewer::viewer::city::{headless_city_app, Cities, STUB_HEIGHT_WU};
use highrise_viewer::viewer::sessions::{Ingest, Sessions, SessionsPlugin};

const TRIALS: u32 = 200;
const FRAME: Duration = Duration::from_nanos(16_666_667);

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo test --benches` asks benches to list themselves
    }
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            publish_interval: Duration::from_millis(16),
            ..IngestConfig::default()
        },
        AggregateSink::factory,
    )
    .expect("listener");
    let addr = server.local_addr();
    let mut app = headless_city_app(None);
    app.insert_resource(Ingest(server))
        .add_plugins(SessionsPlugin);

    let clock_zero = Instant::now();
    let now_ns = || clock_zero.elapsed().as_nanos() as u64;
    let mut agent = TcpStream::connect(addr).expect("connect");
    agent.set_nodelay(true).expect("nodelay");
    let mut out = Vec::new();
    write_frame(
        &mut out,
        &AgentMessage::Hello(Hello {
            magic: MAGIC,
            protocol_version: PROTOCOL_VERSION,
            agent: "latency-bench".into(),
            program: "latency".into(),
            version_label: String::new(),
            pid: std::process::id(),
            clock_unit_ns: 1,
            clock_zero_unix_ns: 0,
        }),
    )
    .expect("encode");
    let definitions = (0..TRIALS)
        .map(|id| MethodDef {
            id,
            package: "bench".into(),
            class: "Latency".into(),
            method: format!("m{id:03}"),
            signature: None,
            file: None,
            line: None,
        })
        .collect();
    write_frame(&mut out, &AgentMessage::DefineMethods(definitions)).expect("encode");
    agent.write_all(&out).expect("send");

    // Let the city appear.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        app.update();
        std::thread::sleep(FRAME);
    }

    let mut latencies_ms = Vec::new();
    for trial in 0..TRIALS {
        // Each trial: thread `trial` enters method `trial` and stays there; heartbeats carry
        // the clock forward as a live agent's would.
        let sent_at = Instant::now();
        let mut writer = PackedEventWriter::new(u64::from(trial), now_ns());
        writer.push(now_ns(), trial, EventKind::Enter);
        out.clear();
        write_frame(&mut out, &AgentMessage::Events(writer.finish())).expect("encode");
        agent.write_all(&out).expect("send");
        let mut next_frame = Instant::now();
        let mut next_heartbeat = Instant::now();
        loop {
            if Instant::now() >= next_heartbeat {
                out.clear();
                write_frame(
                    &mut out,
                    &AgentMessage::Heartbeat {
                        timestamp: now_ns(),
                    },
                )
                .expect("encode");
                agent.write_all(&out).expect("send");
                next_heartbeat += Duration::from_millis(5);
            }
            if Instant::now() >= next_frame {
                app.update();
                next_frame += FRAME;
                let sessions = app.world().resource::<Sessions>();
                let cities = app.world().resource::<Cities>();
                let raised = sessions
                    .by_id
                    .keys()
                    .filter_map(|&session_id| cities.session(session_id))
                    .any(|city| {
                        city.layout
                            .as_ref()
                            .and_then(|layout| layout.building_of(trial))
                            .is_some_and(|index| city.heights_wu[index as usize] > STUB_HEIGHT_WU)
                    });
                if raised {
                    latencies_ms.push(sent_at.elapsed().as_secs_f64() * 1e3);
                    break;
                }
                assert!(
                    sent_at.elapsed() < Duration::from_secs(5),
                    "trial {trial} never showed"
                );
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
    latencies_ms.sort_by(f64::total_cmp);
    let at = |q: f64| latencies_ms[((latencies_ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "event → height change over {TRIALS} trials at 60 fps: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
