//! With the `enable` feature off (`cargo test -p highrise-agent --no-default-features`), the
//! same program compiles against the same API and nothing is recorded or sent.
#![cfg(not(feature = "enable"))]

use std::time::Duration;

mod game {
    pub struct Board;

    #[highrise_agent::profile]
    impl Board {
        pub fn step(&self) -> u32 {
            highrise_agent::scope!("inner");
            7
        }
    }

    #[highrise_agent::profile]
    pub fn free() -> u32 {
        1
    }
}

#[test]
fn the_disabled_agent_keeps_the_api_and_does_nothing() {
    use tracing_subscriber::prelude::*;
    let guard = highrise_agent::init("disabled");
    let built = highrise_agent::AgentBuilder::new("disabled")
        .addr("127.0.0.1:1")
        .start()
        .expect("a disabled agent always starts");
    let _subscriber = tracing_subscriber::registry()
        .with(highrise_agent::layer())
        .set_default();
    let _span = tracing::info_span!("span").entered();
    assert_eq!(game::Board.step() + game::free(), 8);
    highrise_agent::set_enabled(false);
    highrise_agent::set_enabled(true);
    assert!(!highrise_agent::flush(Duration::from_millis(10)));
    assert_eq!(guard.stats(), highrise_agent::AgentStats::default());
    assert!(!highrise_agent::stats().running);
    drop(built);
}
