//! Both versions run as real processes (the Rust agent over TCP) against the real ingest
//! listener, which records each session to a `.hrec` file; the headless report then compares
//! the two recordings: it names the moved types and the method whose cost changed.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use highrise_ingest::{IngestConfig, IngestServer, NullSink, RecordingState};

fn record(variant: &str, dir: &Path) -> PathBuf {
    let path = dir.join(format!("{variant}.hrec"));
    let server = IngestServer::start(
        IngestConfig {
            listen_addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            record_sessions_to: Some(path.clone()),
            ..IngestConfig::default()
        },
        NullSink::factory,
    )
    .expect("listener starts");
    let status = Command::new(env!("CARGO_BIN_EXE_bookstore"))
        .args([
            "--variant",
            variant,
            "--duration-s",
            "2.5",
            "--workers",
            "2",
        ])
        .env("HIGHRISE_ADDR", server.local_addr().to_string())
        .status()
        .expect("bookstore runs");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let report = server
            .updates()
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a report");
        if report.is_ended() {
            assert!(report.errors.is_empty(), "{:?}", report.errors);
            let recording = report.stats.recording.expect("recorded");
            assert_eq!(recording.state, RecordingState::Finished);
            assert_eq!(recording.path, path);
            return path;
        }
    }
}

#[test]
fn the_report_names_the_moved_types_and_the_regressed_method() {
    let dir = tempfile::tempdir().expect("tempdir");
    let before = record("before", dir.path());
    let after = record("after", dir.path());
    let a = highrise_report::summarize(&before).expect("summarizes before");
    let b = highrise_report::summarize(&after).expect("summarizes after");
    assert_eq!(a.version_label, "before");
    assert_eq!(b.version_label, "after");
    assert_eq!(a.end, "goodbye");
    assert!(a.samples >= 15, "{}", a.samples);
    assert!(a.max_threads >= 2, "{}", a.max_threads);
    let quote_a = a
        .method("bookstore.before.pricing.PriceEngine.quote")
        .expect("quote in before");
    assert!(quote_a.calls > 0);

    let comparison = highrise_report::compare(&a, &b);
    let structure = &comparison.structure;
    let moved: Vec<(&str, &str, &str)> = structure
        .classes_moved
        .iter()
        .map(|m| {
            (
                m.class.as_str(),
                m.from_package.as_str(),
                m.to_package.as_str(),
            )
        })
        .collect();
    for expected in [
        (
            "Catalog",
            "bookstore.before.catalog",
            "bookstore.after.catalog.search",
        ),
        (
            "Cart",
            "bookstore.before.cart",
            "bookstore.after.checkout.cart",
        ),
        (
            "PriceEngine",
            "bookstore.before.pricing",
            "bookstore.after.checkout.pricing",
        ),
    ] {
        assert!(moved.contains(&expected), "{expected:?} not in {moved:?}");
    }
    assert!(structure
        .packages_removed
        .contains(&"bookstore.before.pricing".to_string()));
    assert!(structure
        .packages_added
        .contains(&"bookstore.after.checkout.pricing".to_string()));
    assert!(
        structure.classes_added.is_empty(),
        "{:?}",
        structure.classes_added
    );
    assert!(
        structure.methods_added.is_empty(),
        "{:?}",
        structure.methods_added
    );

    // The method whose cost changed: quote (6× the work), the largest growth of all.
    let grown = comparison
        .methods
        .iter()
        .filter(|d| d.delta_mean_pct > 0.0)
        .max_by(|x, y| x.delta_mean_pct.total_cmp(&y.delta_mean_pct))
        .expect("something grew");
    assert_eq!(
        grown.name,
        "bookstore.after.checkout.pricing.PriceEngine.quote"
    );
    assert_eq!(grown.change, "moved");
    assert!(grown.mean_b_pct > 2.0 * grown.mean_a_pct, "{grown:?}");
    let regressions = comparison.regressions(grown.delta_mean_pct / 2.0);
    assert_eq!(
        regressions.first().map(|d| d.name.as_str()),
        Some(grown.name.as_str())
    );
    assert!(comparison
        .regressions(grown.delta_mean_pct + 1.0)
        .is_empty());

    let table = highrise_report::render_comparison(&comparison);
    assert!(
        table.contains(
            "class moved: PriceEngine  bookstore.before.pricing → bookstore.after.checkout.pricing"
        ),
        "{table}"
    );
}
