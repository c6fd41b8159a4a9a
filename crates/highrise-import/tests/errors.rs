//! What opening a damaged or cut profile says.

/// A JFR recording cut short (a recording still being written) says so, and how far it got.
#[test]
fn an_incomplete_jfr_recording_says_it_is_incomplete() {
    let dir = std::env::temp_dir().join(format!("highrise-cut-jfr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("cut.jfr");
    let mut bytes = b"FLR\0\x00\x02\x00\x01".to_vec();
    bytes.extend_from_slice(&1000i64.to_be_bytes());
    bytes.resize(200, 0);
    std::fs::write(&path, &bytes).expect("temp dir");
    let said = match highrise_import::open(&path) {
        Ok(_) => panic!("opened a cut JFR file"),
        Err(error) => error.to_string(),
    };
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        said.contains("the JFR recording is incomplete")
            && said.contains("should hold 1000 bytes and the file ends 200 bytes into it"),
        "{said}"
    );
}
