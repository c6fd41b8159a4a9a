//! The benchmarks' city: the layout benchmark's 200k methods, reports and snapshots shaped as
//! the ingest server sends them (shared by `frame` and `gpu_frame`).

use std::sync::Arc;

use highrise_aggregate::{MethodStats, Snapshot};
use highrise_ingest::{SessionReport, SessionStats, SessionStatus};
use highrise_layout::synthetic::{synthetic_methods, SyntheticShape};
use highrise_protocol::MethodDef;
use highrise_viewer::viewer::sessions::Report;

/// A live session's report carrying `snapshot`.
pub fn report(definitions: &Arc<[MethodDef]>, snapshot: Arc<Snapshot>) -> Report {
    SessionReport {
        session_id: 1,
        peer: "127.0.0.1:9".parse().expect("addr"),
        info: Some(highrise_ingest::SessionInfo {
            agent: "bench".into(),
            program: "big".into(),
            version_label: String::new(),
            pid: 1,
            clock_unit_ns: 1,
            clock_zero_unix_ns: 0,
            measure: highrise_protocol::Measure::EXACT,
            notices: Vec::new(),
        }),
        status: SessionStatus::Connected,
        stats: SessionStats::default(),
        errors: Vec::new(),
        definition_chunks: vec![Arc::clone(definitions)],
        class_chunks: Vec::new(),
        relation_chunks: Vec::new(),
        threads: Arc::new(Vec::new()),
        sink: Some(snapshot),
    }
}

/// The layout benchmark's program: 200k methods in 10k classes in 1k packages.
pub fn definitions_200k() -> Arc<[MethodDef]> {
    synthetic_methods(&SyntheticShape::BENCH_200K)
        .into_iter()
        .map(|spec| MethodDef {
            id: spec.id,
            package: spec.package,
            class: spec.class,
            method: spec.method,
            signature: spec.signature,
            file: None,
            line: None,
        })
        .collect()
}

/// A snapshot where a rotating 5 % of the methods are busy (a different 5 % for each `frame`).
pub fn snapshot(methods: usize, frame: u64) -> Arc<Snapshot> {
    let stats = (0..methods)
        .map(|id| {
            if (id as u64 + frame * 7) % 20 == 0 {
                MethodStats {
                    elevation: ((id % 97) as f32) / 97.0,
                    inclusive_elevation: 0.5,
                    summed_elevation: 0.5,
                    thread_count: 1 + (id % 4) as u32,
                    parked_threads: 0,
                    calls: 10,
                    approximate: false,
                }
            } else {
                MethodStats::default()
            }
        })
        .collect();
    Arc::new(Snapshot {
        now_ns: frame + 1,
        window_ns: 3_000_000_000,
        bucket_ns: 1,
        methods: stats,
        ..Snapshot::default()
    })
}
