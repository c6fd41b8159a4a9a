//! The agent against the viewer's real ingest listener: what the program's code looks like
//! (modules, an `impl`, free functions, a scope, threads) comes out as the expected method
//! definitions and balanced, correctly nested events, with heartbeats and a Goodbye.
#![cfg(feature = "enable")]

mod support;

use std::time::Duration;

use highrise_protocol::EventKind;
use highrise_testkit::server::wait_for_end;
use support::{ended_with_goodbye, start_server, wait_connected};

mod game {
    pub mod board {
        #[derive(Debug, Default)]
        pub struct Board {
            pub rows: Vec<u32>,
        }

        #[highrise_agent::profile]
        impl Board {
            pub fn new() -> Self {
                Self { rows: vec![0; 20] }
            }

            pub fn step(&mut self) -> u32 {
                if self.collides() {
                    return 0;
                }
                self.helper();
                self.original();
                clear_lines(&mut self.rows)
            }

            fn collides(&self) -> bool {
                self.rows.len() > 1000
            }

            #[profile(skip)]
            fn helper(&self) {}

            #[profile(name = "renamed")]
            fn original(&self) {}
        }

        #[highrise_agent::profile]
        impl std::fmt::Display for Board {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{} rows", self.rows.len())
            }
        }

        #[highrise_agent::profile]
        pub fn clear_lines(rows: &mut [u32]) -> u32 {
            highrise_agent::scope!("count_full");
            let full = rows.iter().filter(|&&row| row == 0x3ff).count() as u32;
            if full == 0 {
                return 0;
            }
            full
        }

        #[highrise_agent::profile(class = "Parser")]
        pub fn parse(text: &str) -> Result<u32, std::num::ParseIntError> {
            let value: u32 = text.parse()?;
            Ok(value * 2)
        }
    }
}

use game::board::{parse, Board};

#[test]
fn a_program_round_trips_through_a_real_listener() {
    let server = start_server();
    let agent = highrise_agent::AgentBuilder::new("roundtrip-test")
        .version_label("v-test")
        .addr(server.local_addr().to_string())
        .heartbeat_interval(Duration::from_millis(50))
        .log_to_stderr(false)
        .start()
        .expect("starts");
    wait_connected();

    let mut board = Board::new();
    for _ in 0..100 {
        assert_eq!(board.step(), 0);
    }
    assert_eq!(board.to_string(), "20 rows");
    {
        highrise_agent::phase!("parsing");
        assert_eq!(parse("21"), Ok(42));
    }
    assert!(parse("x").is_err());
    std::thread::Builder::new()
        .name("worker-1".into())
        .spawn(|| {
            let mut board = Board::new();
            for _ in 0..10 {
                board.step();
            }
        })
        .expect("spawns")
        .join()
        .expect("joins");
    // Idle long enough for heartbeats.
    std::thread::sleep(Duration::from_millis(300));
    let stats = agent.stats();
    drop(agent);

    let report = wait_for_end(&server);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let recorded = report.sink.as_ref().expect("opened").get().clone();

    let hello = recorded.hello.as_ref().expect("hello");
    assert_eq!(hello.program, "roundtrip-test");
    assert_eq!(hello.version_label, "v-test");
    assert!(hello.agent.starts_with("highrise-agent-rust "));
    assert_eq!(hello.clock_unit_ns, 1);
    assert_eq!(hello.pid, std::process::id());

    // Definitions: package = module path, class = impl type (or module), method = fn name.
    let package = "roundtrip.game.board";
    let id = |class: &str, method: &str| {
        recorded
            .method(package, class, method)
            .unwrap_or_else(|| panic!("{class}.{method} not defined: {:#?}", recorded.definitions))
    };
    let step = id("Board", "step");
    let collides = id("Board", "collides");
    let renamed = id("Board", "renamed");
    let clear_lines = id("board", "clear_lines");
    let count_full = id("board", "count_full");
    let new = id("Board", "new");
    let fmt = id("Board", "fmt");
    let parse_id = id("Parser", "parse");
    // A phase mark is a method of its own, `highrise.phase.NAME`.
    let parsing = recorded
        .method("highrise", "phase", "parsing")
        .expect("the phase is defined");
    assert!(recorded.method(package, "Board", "helper").is_none());
    assert!(recorded.method(package, "Board", "original").is_none());
    let fmt_def = recorded
        .definitions
        .iter()
        .find(|d| d.id == fmt)
        .expect("fmt");
    assert_eq!(fmt_def.signature.as_deref(), Some("impl std::fmt::Display"));
    let step_def = recorded
        .definitions
        .iter()
        .find(|d| d.id == step)
        .expect("step");
    assert!(step_def
        .file
        .as_deref()
        .is_some_and(|f| f.ends_with("roundtrip.rs")));
    assert!(step_def.line.is_some());
    // Ids are dense from 0 and each defined once.
    let mut ids: Vec<u32> = recorded.definitions.iter().map(|d| d.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>());

    // Threads: main and worker-1 started; worker-1 ended.
    let main_thread = recorded
        .thread_starts
        .iter()
        .find(|(_, name)| name == "main" || name.starts_with("a_program"))
        .map(|(id, _)| *id)
        .expect("the test thread started");
    let worker = recorded
        .thread_starts
        .iter()
        .find(|(_, name)| name == "worker-1")
        .map(|(id, _)| *id)
        .expect("worker-1 started");
    assert!(recorded.thread_ends.contains(&worker));

    // Balanced, nested as in the code.
    let finals = recorded.replay_strictly();
    assert!(finals.values().all(Vec::is_empty), "{finals:?}");
    let main_events = recorded.events_of(main_thread);
    let sequence: Vec<(u32, EventKind)> =
        main_events.iter().map(|e| (e.method_id, e.kind)).collect();
    use EventKind::{Enter, Exit};
    assert_eq!(&sequence[..2], &[(new, Enter), (new, Exit)]);
    let one_step = [
        (step, Enter),
        (collides, Enter),
        (collides, Exit),
        (renamed, Enter),
        (renamed, Exit),
        (clear_lines, Enter),
        (count_full, Enter),
        (count_full, Exit),
        (clear_lines, Exit),
        (step, Exit),
    ];
    for round in 0..100 {
        let start = 2 + round * one_step.len();
        assert_eq!(
            &sequence[start..start + one_step.len()],
            &one_step,
            "step {round}"
        );
    }
    // The phase's frame encloses what ran in its block.
    let in_phase = [
        (parsing, Enter),
        (parse_id, Enter),
        (parse_id, Exit),
        (parsing, Exit),
    ];
    assert!(
        sequence.windows(4).any(|window| window == in_phase),
        "{sequence:?}"
    );
    let worker_events = recorded.events_of(worker);
    assert_eq!(worker_events.len(), 2 + 10 * one_step.len());
    assert_eq!(
        recorded.event_count() as u64,
        stats.events_sent,
        "every event sent arrived"
    );
    assert_eq!(stats.events_dropped, 0);
    assert_eq!(report.stats.agent_events_dropped, 0);
    assert!(recorded.heartbeats >= 1, "no heartbeat while idle");
}
