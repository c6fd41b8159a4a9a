//! The web server against a real agent session and real clients: plain HTTP requests over a
//! socket (the token, bad requests) and a WebSocket client (tungstenite's) reading the stream.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use highrise_aggregate::AlertConfig;
use highrise_aggregate_sink::AggregateSink;
use highrise_protocol::{AgentMessage, EventKind};
use highrise_testkit::messages::{batch, hello, method};
use highrise_testkit::server::{start, test_config, Client};
use highrise_web::wire::{HEIGHTS, IDLE, PLAN};
use highrise_web::{WebConfig, WebServer};
use tokio_tungstenite::tungstenite::Message;

const TOKEN: &str = "web-test-token";

/// One HTTP/1.1 request; the status code and body.
fn request(addr: SocketAddr, method: &str, target: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    write!(stream, "{method} {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").expect("writes");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("reads");
    let status = response[9..12].parse().expect("a status");
    let body = response.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, body.to_string())
}

fn program_session(server: &highrise_ingest::IngestServer<AggregateSink>) -> Client {
    let mut agent = Client::connect(server);
    agent.handshake(hello("test-agent", "shop"));
    agent.send_all(&[
        AgentMessage::DefineMethods(vec![
            method(0, "shop", "Cart", "add"),
            method(1, "shop", "Cart", "total"),
            method(2, "shop.db", "Query", "run"),
        ]),
        AgentMessage::ThreadStart {
            thread_id: 1,
            name: "main".into(),
            timestamp: 1,
        },
    ]);
    // Query.run on top of the stack most of a second; Cart.add briefly.
    let mut events = Vec::new();
    for step in 0..100u64 {
        let t = 1_000 + step * 10_000_000;
        events.extend([
            (t, 0, EventKind::Enter),
            (t + 1_000_000, 2, EventKind::Enter),
            (t + 9_000_000, 2, EventKind::Exit),
            (t + 9_500_000, 0, EventKind::Exit),
        ]);
    }
    agent.send(&batch(1, &events));
    agent.send(&AgentMessage::Heartbeat {
        timestamp: 1_100_000_000,
    });
    agent
}

#[test]
fn pages_get_the_city_and_bad_requests_a_clear_error() {
    let ingest = start(test_config(), AggregateSink::factory);
    let web = WebServer::start(
        WebConfig {
            listen_addr: "127.0.0.1:0".parse().unwrap(),
            token: Some(TOKEN.into()),
            alerts: AlertConfig::default(),
        },
        ingest.subscribe(),
    )
    .expect("starts");
    let addr = web.local_addr();
    assert!(
        web.url().ends_with(&format!("/?token={TOKEN}")),
        "{}",
        web.url()
    );

    // The token is asked of every request; only GET is served.
    let (status, body) = request(addr, "GET", "/");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("token"), "{body}");
    let (status, body) = request(addr, "GET", &format!("/?token={TOKEN}"));
    assert_eq!(status, 200);
    assert!(
        body.contains("<canvas id=\"city\">") && body.contains("highrise"),
        "the page"
    );
    assert_eq!(request(addr, "POST", &format!("/?token={TOKEN}")).0, 405);
    assert_eq!(
        request(addr, "GET", &format!("/nowhere?token={TOKEN}")).0,
        404
    );
    assert_eq!(
        request(addr, "GET", &format!("/api/facts?token={TOKEN}&session=x")).0,
        400
    );
    assert_eq!(
        request(addr, "GET", &format!("/stream?token={TOKEN}")).0,
        400
    );

    let agent = program_session(&ingest);

    // A WebSocket client reads the stream: the look, the session, its plan, its towers.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (plan, heights, texts) = runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let url = format!("ws://{addr}/stream?token={TOKEN}");
        let (mut socket, _) = tokio_tungstenite::client_async(url, stream)
            .await
            .expect("upgrades");
        let (mut plan, mut heights, mut texts) = (None, None, Vec::new());
        let deadline = Instant::now() + Duration::from_secs(20);
        while heights.is_none() && Instant::now() < deadline {
            let next = tokio::time::timeout(Duration::from_secs(5), socket.next()).await;
            match next {
                Ok(Some(Ok(Message::Binary(bytes)))) if bytes[0] == PLAN => {
                    plan = Some(bytes.to_vec())
                }
                Ok(Some(Ok(Message::Binary(bytes)))) if bytes[0] == HEIGHTS && plan.is_some() => {
                    let count = u32::from_le_bytes(bytes[20..24].try_into().unwrap());
                    if count == 3 && bytes[24..].chunks(8).any(|c| c[6] != IDLE) {
                        heights = Some(bytes.to_vec());
                    }
                }
                Ok(Some(Ok(Message::Text(text)))) => texts.push(text.to_string()),
                Ok(Some(Ok(_))) => {}
                other => panic!("the stream ended: {other:?}"),
            }
        }
        (plan.expect("a plan"), heights.expect("towers"), texts)
    });
    assert!(texts
        .iter()
        .any(|t| t.contains("\"type\":\"hello\"") && t.contains("\"heat\"")));
    assert!(texts.iter().any(|t| t.contains("\"title\":\"shop\"")));
    assert_eq!(
        u32::from_le_bytes(plan[20..24].try_into().unwrap()),
        3,
        "three buildings"
    );
    let names = String::from_utf8_lossy(&plan);
    assert!(
        names.contains("shop.db.Query.run"),
        "the plan names its buildings"
    );
    // Query.run stands highest: its elevation is 0.8 s on top of the stack in the 3 s window.
    let towers: Vec<(u32, f32)> = heights[24..]
        .chunks(8)
        .map(|c| {
            let building = u32::from_le_bytes(c[0..4].try_into().unwrap());
            (
                building,
                f32::from(u16::from_le_bytes([c[4], c[5]])) / 65535.0,
            )
        })
        .collect();
    let (hottest, elevation) = towers
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert!((0.25..0.29).contains(&elevation), "{towers:?}");

    // Hover facts: the desktop tooltip's lines for that building.
    let (status, body) = request(
        addr,
        "GET",
        &format!("/api/facts?token={TOKEN}&session=1&building={hottest}"),
    );
    assert_eq!(status, 200, "{body}");
    let facts: serde_json::Value = serde_json::from_str(&body).unwrap();
    let lines: Vec<&str> = facts["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(lines[0], "shop.db.Query.run");
    assert_eq!(lines[1], "elevation 26.7 %", "{lines:?}");
    assert_eq!(
        request(
            addr,
            "GET",
            &format!("/api/facts?token={TOKEN}&session=1&building=99")
        )
        .0,
        404
    );
    agent.close();
}
