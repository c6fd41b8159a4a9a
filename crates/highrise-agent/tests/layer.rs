//! The tracing path: a program instrumented only with `tracing` spans, with
//! `highrise_agent::layer()` in its subscriber, shows up with packages, classes and methods
//! taken from the spans, balanced per thread.
#![cfg(feature = "enable")]

mod support;

use highrise_testkit::server::wait_for_end;
use support::{ended_with_goodbye, start_server, wait_connected};
use tracing_subscriber::prelude::*;

mod parser {
    #[tracing::instrument]
    pub fn parse(text: &str) -> usize {
        text.split_whitespace().map(tokenize).sum()
    }

    #[tracing::instrument]
    fn tokenize(word: &str) -> usize {
        word.len()
    }

    pub struct Optimizer;

    impl Optimizer {
        #[tracing::instrument(name = "Optimizer::fold", skip(self))]
        pub fn fold(&self, value: usize) -> usize {
            let _inner = tracing::info_span!("inner_pass").entered();
            tracing::info!(value, "events (log lines) are not recorded");
            value / 2
        }
    }
}

#[test]
fn tracing_spans_become_methods() {
    let server = start_server();
    let agent = highrise_agent::AgentBuilder::new("layer-test")
        .addr(server.local_addr().to_string())
        .log_to_stderr(false)
        .start()
        .expect("starts");
    tracing_subscriber::registry()
        .with(highrise_agent::layer())
        .init();
    wait_connected();

    let handles: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(|| {
                let mut total = 0;
                for _ in 0..50 {
                    total += parser::Optimizer.fold(parser::parse("a bb ccc"));
                }
                total
            })
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.join().expect("joins"), 50 * 3);
    }
    drop(agent);

    let report = wait_for_end(&server);
    assert!(ended_with_goodbye(&report), "{:?}", report.status);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let recorded = report.sink.as_ref().expect("opened").get().clone();
    let parse = recorded
        .method("layer.parser", "parser", "parse")
        .expect("parse defined");
    let tokenize = recorded
        .method("layer.parser", "parser", "tokenize")
        .expect("tokenize defined");
    let fold = recorded
        .method("layer.parser", "Optimizer", "fold")
        .expect("fold defined with its class");
    let inner = recorded
        .method("layer.parser", "parser", "inner_pass")
        .expect("inner_pass defined");
    assert_eq!(recorded.definitions.len(), 4, "{:#?}", recorded.definitions);
    let finals = recorded.replay_strictly();
    assert!(finals.values().all(Vec::is_empty), "{finals:?}");
    let all: Vec<_> = recorded.threads.values().flatten().collect();
    let count = |id: u32| {
        all.iter()
            .filter(|item| matches!(item, support::Item::Event(e) if e.method_id == id))
            .count()
    };
    assert_eq!(count(parse), 3 * 50 * 2);
    assert_eq!(count(tokenize), 3 * 50 * 3 * 2);
    assert_eq!(count(fold), 3 * 50 * 2);
    assert_eq!(count(inner), 3 * 50 * 2);
}
