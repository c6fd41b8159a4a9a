//! What the headless tests share: method definitions and reports as ingest sends them, the
//! headless app (city and compare systems, optionally the camera and labels), a real ingest
//! server and agent, and what the GPU is handed for a city.

use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use highrise_aggregate::{MethodStats, Snapshot};
use highrise_ingest::{SessionReport, SessionStats, SessionStatus};
use highrise_protocol::MethodDef;
use highrise_viewer::viewer::city::{headless_city_app, CityBuildings, CityKey};
use highrise_viewer::viewer::instancing::{BuildingInstance, BuildingInstances};
use highrise_viewer::viewer::sessions::{accept_report, Report, Sessions};

pub fn def(id: u32, package: &str, class: &str, method: &str) -> MethodDef {
    MethodDef {
        id,
        package: package.into(),
        class: class.into(),
        method: method.into(),
        signature: None,
        file: None,
        line: None,
    }
}

pub fn report(definitions: Vec<MethodDef>, methods: Vec<MethodStats>, now_ns: u64) -> Report {
    SessionReport {
        session_id: 1,
        peer: "127.0.0.1:9".parse().expect("addr"),
        info: Some(highrise_ingest::SessionInfo {
            agent: "test".into(),
            program: "tetris".into(),
            version_label: "v1".into(),
            pid: 7,
            clock_unit_ns: 1,
            clock_zero_unix_ns: 0,
            measure: highrise_protocol::Measure::EXACT,
            notices: Vec::new(),
        }),
        status: SessionStatus::Connected,
        stats: SessionStats::default(),
        errors: Vec::new(),
        definition_chunks: vec![definitions.into()],
        class_chunks: Vec::new(),
        relation_chunks: Vec::new(),
        threads: Arc::new(Vec::new()),
        sink: Some(Arc::new(Snapshot {
            now_ns,
            window_ns: 3_000_000_000,
            bucket_ns: 1,
            methods,
            ..Snapshot::default()
        })),
    }
}

pub fn stats(elevation: f32, thread_count: u32, calls: u32) -> MethodStats {
    MethodStats {
        elevation,
        inclusive_elevation: elevation,
        summed_elevation: elevation * thread_count as f32,
        thread_count,
        parked_threads: if elevation >= 0.95 { thread_count } else { 0 },
        calls,
        approximate: false,
    }
}

/// Folds a report into the app's sessions, as the intake system does.
pub fn accept(app: &mut App, report: Report) {
    accept_report(&mut app.world_mut().resource_mut::<Sessions>(), report);
}

/// Enough frames for reports to be folded in, laid out and animated to their targets.
pub fn settle(app: &mut App) {
    for _ in 0..40 {
        app.update();
    }
}

pub fn app() -> App {
    headless_city_app(Some(Duration::from_millis(100)))
}

/// What the GPU is handed for session 1's city: one instance per building, in layout order
/// (and one drawing entity per city).
pub fn buildings(app: &mut App) -> Vec<BuildingInstance> {
    let mut query = app
        .world_mut()
        .query::<(&CityBuildings, &BuildingInstances)>();
    let drawn: Vec<_> = query
        .iter(app.world())
        .filter(|(of, _)| of.city == CityKey::Session(1))
        .map(|(_, draw)| draw.current().to_vec())
        .collect();
    assert!(drawn.len() <= 1, "one drawing entity per city");
    drawn.into_iter().next().unwrap_or_default()
}

pub fn tetris() -> Vec<MethodDef> {
    vec![
        def(0, "main.game", "Game", "run"),
        def(1, "main.game", "Board", "rotate"),
        def(2, "main.ui", "Renderer", "draw"),
    ]
}

/// `report` for another session, with its own id and version label.
pub fn session_report(
    session_id: u64,
    label: &str,
    definitions: Vec<MethodDef>,
    methods: Vec<MethodStats>,
) -> Report {
    let mut report = report(definitions, methods, 1);
    report.session_id = session_id;
    if let Some(info) = report.info.as_mut() {
        info.version_label = label.into();
    }
    report
}

/// A real ingest server with the aggregator, publishing every 10 ms.
pub fn live_ingest() -> highrise_viewer::viewer::sessions::Ingest {
    let server = highrise_ingest::IngestServer::start(
        highrise_ingest::IngestConfig {
            listen_addr: "127.0.0.1:0".parse().expect("addr"),
            publish_interval: Duration::from_millis(10),
            ..highrise_ingest::IngestConfig::default()
        },
        highrise_aggregate_sink::AggregateSink::factory,
    )
    .expect("server");
    highrise_viewer::viewer::sessions::Ingest(server)
}

/// A program's agent over a real socket, already introduced (Hello as `tetris` `v1`).
pub struct TestAgent(pub std::net::TcpStream);

impl TestAgent {
    pub fn connect(addr: std::net::SocketAddr) -> Self {
        let mut agent = Self(std::net::TcpStream::connect(addr).expect("connect"));
        agent.send(highrise_protocol::AgentMessage::Hello(
            highrise_protocol::Hello {
                magic: highrise_protocol::MAGIC,
                protocol_version: highrise_protocol::PROTOCOL_VERSION,
                agent: "test".into(),
                program: "tetris".into(),
                version_label: "v1".into(),
                pid: 42,
                clock_unit_ns: 1,
                clock_zero_unix_ns: 0,
            },
        ));
        agent
    }

    pub fn send(&mut self, message: highrise_protocol::AgentMessage) {
        use std::io::Write;
        highrise_protocol::write_frame(&mut self.0, &message).expect("send");
        self.0.flush().expect("flush");
    }
}

/// A headless app with the camera (framing only) and the scene labels.
pub fn app_with_camera_and_labels() -> App {
    use highrise_viewer::viewer::camera::CameraPlugin;
    use highrise_viewer::viewer::labels::LabelsPlugin;
    let mut app = app();
    app.add_plugins(bevy::input::InputPlugin)
        .add_plugins((CameraPlugin { interactive: false }, LabelsPlugin));
    app
}

/// Each of `packages` with `classes` classes of `methods` methods (`methodK`), ids in that
/// order; `class_name(package index, class index)` names the classes.
pub fn grid(
    packages: &[String],
    classes: usize,
    methods: usize,
    class_name: impl Fn(usize, usize) -> String,
) -> Vec<MethodDef> {
    let mut defs = Vec::new();
    for (index, package) in packages.iter().enumerate() {
        for class in 0..classes {
            for method in 0..methods {
                let id = defs.len() as u32;
                defs.push(def(
                    id,
                    package,
                    &class_name(index, class),
                    &format!("method{method}"),
                ));
            }
        }
    }
    defs
}

/// Six packages of a few classes each, `main.gameN.ClassNxM.methodK`.
pub fn six_packages() -> Vec<MethodDef> {
    let packages: Vec<String> = (0..6).map(|p| format!("main.game{p}")).collect();
    grid(&packages, 3, 4, |p, c| format!("Class{p}x{c}"))
}

/// Puts the camera at `eye` looking at `target` and lets the smoother arrive.
pub fn place_camera(app: &mut App, eye: Vec3, target: Vec3) {
    use highrise_viewer::viewer::camera::{CameraState, MainCamera};
    use smooth_bevy_cameras::LookTransform;
    app.world_mut().resource_mut::<CameraState>().user_moved = true;
    for _ in 0..60 {
        let mut query = app
            .world_mut()
            .query_filtered::<&mut LookTransform, With<MainCamera>>();
        let mut look = query.single_mut(app.world_mut()).expect("one camera");
        look.eye = eye;
        look.target = target;
        app.update();
    }
}
