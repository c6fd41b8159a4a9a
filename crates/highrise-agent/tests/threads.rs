//! Many threads at once: 8 threads making nested calls; every thread's stream arrives
//! complete and balanced, with its own ThreadStart and ThreadEnd.
#![cfg(feature = "enable")]

mod support;

use highrise_testkit::server::wait_for_end;
use support::{ended_with_goodbye, start_server, wait_connected};

mod physics {
    #[derive(Debug, Default)]
    pub struct World {
        pub ticks: u64,
    }

    #[highrise_agent::profile]
    impl World {
        pub fn tick(&mut self, depth: u32) {
            self.ticks += 1;
            self.integrate(depth);
        }

        fn integrate(&mut self, depth: u32) {
            if depth > 0 {
                self.collide(depth - 1);
            }
        }

        fn collide(&mut self, depth: u32) {
            highrise_agent::scope!("broad_phase");
            if depth > 0 {
                self.integrate(depth - 1);
            }
        }
    }
}

const THREADS: usize = 8;
const TICKS: u64 = 10_000;

#[test]
fn eight_threads_of_nested_calls_arrive_balanced() {
    let server = start_server();
    let agent = highrise_agent::AgentBuilder::new("threads-test")
        .addr(server.local_addr().to_string())
        // Room for every event of a thread even if the sender never ran: nothing may drop.
        .ring_capacity_events(1 << 18)
        .log_to_stderr(false)
        .start()
        .expect("starts");
    wait_connected();

    let workers: Vec<_> = (0..THREADS)
        .map(|index| {
            std::thread::Builder::new()
                .name(format!("sim-{index}"))
                .spawn(move || {
                    let mut world = physics::World::default();
                    for tick in 0..TICKS {
                        // Depth varies per tick: recursion through integrate/collide.
                        world.tick((tick % 4) as u32 + index as u32 % 2);
                    }
                    world.ticks
                })
                .expect("spawns")
        })
        .collect();
    for worker in workers {
        assert_eq!(worker.join().expect("joins"), TICKS);
    }
    assert!(agent.flush(std::time::Duration::from_secs(10)));
    let stats = agent.stats();
    drop(agent);

    let report = wait_for_end(&server);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.stats.agent_events_dropped, 0);
    assert_eq!(stats.events_dropped, 0);
    let recorded = report.sink.as_ref().expect("opened").get().clone();
    let sims: Vec<u64> = recorded
        .thread_starts
        .iter()
        .filter(|(_, name)| name.starts_with("sim-"))
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(sims.len(), THREADS);
    for id in &sims {
        assert!(recorded.thread_ends.contains(id), "thread {id} never ended");
    }
    let finals = recorded.replay_strictly();
    for id in &sims {
        assert_eq!(finals.get(id), Some(&Vec::new()), "thread {id} unbalanced");
        let events = recorded.events_of(*id);
        // Per tick: tick + integrate, then (collide + broad_phase + integrate) per level.
        let index = recorded
            .thread_starts
            .iter()
            .find(|(t, _)| t == id)
            .map(|(_, name)| {
                name.trim_start_matches("sim-")
                    .parse::<u64>()
                    .expect("index")
            })
            .expect("named");
        let expected: u64 = (0..TICKS)
            .map(|tick| {
                let depth = tick % 4 + index % 2;
                // integrate at depth d calls collide(d-1) when d > 0, which calls
                // integrate(d-2) when d-1 > 0, ...
                let mut frames = 2; // tick, integrate
                let mut d = depth;
                while d > 0 {
                    frames += 2; // collide + broad_phase
                    d -= 1;
                    if d > 0 {
                        frames += 1; // integrate
                        d -= 1;
                    } else {
                        break;
                    }
                }
                frames * 2
            })
            .sum();
        assert_eq!(events.len() as u64, expected, "thread {id}");
    }
    assert_eq!(recorded.event_count() as u64, stats.events_sent);
}
