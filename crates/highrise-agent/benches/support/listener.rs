//! The benches' viewer stand-in (shared by `scope.rs` and `alloc.rs`).

use std::io::{Read, Write};
use std::net::TcpListener;

use highrise_protocol::{encode_frame, ViewerMessage, PROTOCOL_VERSION};

/// A viewer stand-in that welcomes the agent and discards everything else.
pub fn discard_listener() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let addr = listener.local_addr().expect("addr").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buffer = vec![0u8; 1 << 16];
                // The Hello: answer once it has arrived (one read is enough on loopback).
                if stream.read(&mut buffer).unwrap_or(0) == 0 {
                    return;
                }
                let welcome = encode_frame(&ViewerMessage::Welcome {
                    protocol_version: PROTOCOL_VERSION,
                    session_id: 1,
                })
                .expect("encodes");
                let _ = stream.write_all(&welcome);
                while stream.read(&mut buffer).unwrap_or(0) > 0 {}
            });
        }
    });
    addr
}
