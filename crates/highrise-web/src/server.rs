//! The web server: the page, its WebSocket stream of city messages, and the page's few
//! read-only requests. Its own tokio runtime; a model thread folds the session reports into
//! [`Cities`] and broadcasts each tick's messages to every open page.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use highrise_aggregate::{AlertConfig, Snapshot};
use highrise_ingest::Updates;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::broadcast;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::WebSocketStream;

use crate::model::{Cities, Message};

/// How often the pages get what changed.
pub const TICK: Duration = Duration::from_millis(250);
/// Ended sessions the pages keep seeing.
const KEEP_ENDED: usize = 16;
/// Ticks a page may fall behind before it is sent the whole state again.
const BROADCAST_BACKLOG: usize = 64;

/// Where and how the web server listens.
#[derive(Debug, Clone)]
pub struct WebConfig {
    pub listen_addr: SocketAddr,
    /// Asked of every request (`?token=`) when set: the server listens beyond loopback.
    pub token: Option<String>,
    pub alerts: AlertConfig,
}

/// The web server could not start.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("cannot listen for pages on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the web server: {0}")]
    Runtime(std::io::Error),
}

struct Shared {
    cities: Mutex<Cities>,
    broadcast: broadcast::Sender<Arc<Message>>,
    token: Option<String>,
    pages_open: AtomicUsize,
    bytes_sent: std::sync::atomic::AtomicU64,
}

/// A running web server. Dropping it stops it.
pub struct WebServer {
    local_addr: SocketAddr,
    token: Option<String>,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    model: Option<std::thread::JoinHandle<()>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl WebServer {
    /// Starts serving the sessions whose reports arrive on `updates` (a subscription of its
    /// own: `IngestServer::subscribe`).
    pub fn start(
        config: WebConfig,
        updates: Updates<Arc<Snapshot>>,
    ) -> Result<WebServer, WebError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("highrise-web")
            .enable_all()
            .build()
            .map_err(WebError::Runtime)?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(config.listen_addr))
            .map_err(|source| WebError::Bind {
                addr: config.listen_addr,
                source,
            })?;
        let local_addr = listener.local_addr().map_err(WebError::Runtime)?;
        let (broadcast, _) = broadcast::channel(BROADCAST_BACKLOG);
        let shared = Arc::new(Shared {
            cities: Mutex::new(Cities::new(config.alerts)),
            broadcast,
            token: config.token.clone(),
            pages_open: AtomicUsize::new(0),
            bytes_sent: Default::default(),
        });
        runtime.spawn(accept(listener, Arc::clone(&shared)));
        let stop = Arc::new(AtomicBool::new(false));
        let model = std::thread::Builder::new()
            .name("highrise-web-model".into())
            .spawn({
                let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
                move || fold_reports(&updates, &shared, &stop)
            })
            .map_err(WebError::Runtime)?;
        Ok(WebServer {
            local_addr,
            token: config.token,
            shared,
            stop,
            model: Some(model),
            runtime: Some(runtime),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The link to open: the address, and the token where one is asked.
    pub fn url(&self) -> String {
        let host = match self.local_addr.ip() {
            ip if ip.is_unspecified() => "localhost".to_string(),
            std::net::IpAddr::V6(ip) => format!("[{ip}]"),
            ip => ip.to_string(),
        };
        let mut url = format!("http://{host}:{}/", self.local_addr.port());
        if let Some(token) = &self.token {
            url.push_str("?token=");
            url.push_str(token);
        }
        url
    }

    /// Pages open now.
    pub fn pages_open(&self) -> usize {
        self.shared.pages_open.load(Ordering::Relaxed)
    }

    /// Bytes sent to pages over their streams so far.
    pub fn stream_bytes_sent(&self) -> u64 {
        self.shared.bytes_sent.load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for WebServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebServer")
            .field("local_addr", &self.local_addr)
            .finish()
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(model) = self.model.take() {
            let _ = model.join();
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The model thread: reports in, a tick's messages out to every page.
fn fold_reports(updates: &Updates<Arc<Snapshot>>, shared: &Shared, stop: &AtomicBool) {
    let mut next_tick = Instant::now() + TICK;
    while !stop.load(Ordering::SeqCst) {
        let wait = next_tick.saturating_duration_since(Instant::now());
        match updates.recv_timeout(wait.min(Duration::from_millis(100))) {
            // Then on to the tick: reports arriving back to back must not hold it off.
            Ok(report) => {
                let mut cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
                // A report highrise fails on is dropped, never the server.
                if let Err(message) = highrise_guard::catch(|| cities.accept(report)) {
                    tracing::error!("the web view failed on a report (a bug): {message}");
                }
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
        }
        if Instant::now() < next_tick {
            continue;
        }
        next_tick = Instant::now() + TICK;
        let mut cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
        cities.forget_ended(KEEP_ENDED);
        match highrise_guard::catch(|| cities.tick()) {
            Ok(messages) => {
                for message in messages {
                    // No page open: nobody to tell (a page that joins gets the whole state).
                    let _ = shared.broadcast.send(Arc::new(message));
                }
            }
            Err(message) => tracing::error!("the web view failed on a tick (a bug): {message}"),
        }
    }
}

async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "web accept failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request| route(request, Arc::clone(&shared)));
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            if let Err(error) = connection.await {
                tracing::debug!(%peer, %error, "web connection ended with an error");
            }
        });
    }
}

type Body = Full<Bytes>;

fn respond(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

fn error(status: StatusCode, text: &str) -> Response<Body> {
    respond(
        status,
        "text/plain; charset=utf-8",
        format!("highrise: {text}\n"),
    )
}

fn json(value: &serde_json::Value) -> Response<Body> {
    respond(StatusCode::OK, "application/json", value.to_string())
}

fn query(request: &Request<Incoming>) -> HashMap<String, String> {
    request
        .uri()
        .query()
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .collect()
}

async fn route(
    request: Request<Incoming>,
    shared: Arc<Shared>,
) -> Result<Response<Body>, Infallible> {
    if request.method() != Method::GET {
        return Ok(error(
            StatusCode::METHOD_NOT_ALLOWED,
            "the page is read-only: only GET is served",
        ));
    }
    if request.uri().path() == "/favicon.ico" {
        return Ok(respond(
            StatusCode::NO_CONTENT,
            "image/x-icon",
            Bytes::new(),
        ));
    }
    let query = query(&request);
    if let Some(token) = &shared.token {
        if query.get("token") != Some(token) {
            return Ok(error(
                StatusCode::FORBIDDEN,
                "this highrise asks for its token: open the link it printed (…/?token=…)",
            ));
        }
    }
    let number = |key: &str| query.get(key).and_then(|value| value.parse::<u64>().ok());
    Ok(match request.uri().path() {
        "/" | "/index.html" => respond(
            StatusCode::OK,
            "text/html; charset=utf-8",
            Bytes::from_static(crate::page::live_html().as_bytes()),
        ),
        "/stream" => upgrade(request, shared),
        "/api/sessions" => {
            let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
            json(&serde_json::json!({
                "sessions": cities.session_ids(),
                "pages_open": shared.pages_open.load(Ordering::Relaxed),
                "stream_bytes_sent": shared.bytes_sent.load(Ordering::Relaxed),
            }))
        }
        "/api/facts" => match (number("session"), number("building")) {
            (Some(session), Some(building)) => {
                let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
                match cities.facts(session, building as u32) {
                    Some(lines) => json(&serde_json::json!({ "lines": lines })),
                    None => error(StatusCode::NOT_FOUND, "no such session or building"),
                }
            }
            _ => error(StatusCode::BAD_REQUEST, "facts need ?session=N&building=N"),
        },
        "/api/history" => {
            let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
            match number("session").and_then(|session| cities.history_range_s(session)) {
                Some((oldest_s, newest_s)) => {
                    json(&serde_json::json!({ "oldest_s": oldest_s, "newest_s": newest_s }))
                }
                None => error(StatusCode::NOT_FOUND, "no history of that session (yet)"),
            }
        }
        "/api/at" => {
            let time_s = query.get("t").and_then(|value| value.parse::<f64>().ok());
            match (number("session"), time_s.filter(|t| t.is_finite())) {
                (Some(session), Some(time_s)) => {
                    let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
                    match cities.heights_at(session, time_s) {
                        Some(message) => {
                            respond(StatusCode::OK, "application/octet-stream", message)
                        }
                        None => error(StatusCode::NOT_FOUND, "no such session or moment"),
                    }
                }
                _ => error(
                    StatusCode::BAD_REQUEST,
                    "a moment needs ?session=N&t=SECONDS",
                ),
            }
        }
        "/api/diff" => match (number("a"), number("b")) {
            (Some(a), Some(b)) => {
                let known = number("plan").unwrap_or(0) as u32;
                let mut cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
                match cities.diff(a, b, known) {
                    // The plan (when the page lacks it) and the diff, back to back.
                    Some((plan, diff)) => {
                        let mut body = plan.unwrap_or_default();
                        body.extend_from_slice(&diff);
                        respond(StatusCode::OK, "application/octet-stream", body)
                    }
                    None => error(StatusCode::NOT_FOUND, "no such sessions to compare"),
                }
            }
            _ => error(
                StatusCode::BAD_REQUEST,
                "a diff needs ?a=N&b=N (two sessions)",
            ),
        },
        "/api/top" => match number("session") {
            Some(session) => {
                let count = number("count").unwrap_or(10).min(100) as usize;
                let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
                let top: Vec<_> = cities
                    .top(session, count)
                    .into_iter()
                    .map(|(building, name, elevation)| {
                        serde_json::json!({ "building": building, "name": name, "elevation": elevation })
                    })
                    .collect();
                json(&serde_json::json!({ "top": top }))
            }
            None => error(StatusCode::BAD_REQUEST, "top needs ?session=N"),
        },
        _ => error(StatusCode::NOT_FOUND, "no such page"),
    })
}

/// Answers a WebSocket handshake and streams the cities on the upgraded connection.
fn upgrade(mut request: Request<Incoming>, shared: Arc<Shared>) -> Response<Body> {
    let key = request.headers().get(header::SEC_WEBSOCKET_KEY).cloned();
    let is_upgrade = request
        .headers()
        .get(header::UPGRADE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.eq_ignore_ascii_case("websocket"));
    let Some(key) = key.filter(|_| is_upgrade) else {
        return error(
            StatusCode::BAD_REQUEST,
            "the stream is a WebSocket (the page opens it)",
        );
    };
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    let upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        match upgrade.await {
            Ok(upgraded) => {
                let socket =
                    WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None)
                        .await;
                shared.pages_open.fetch_add(1, Ordering::Relaxed);
                stream_to_page(socket, &shared).await;
                shared.pages_open.fetch_sub(1, Ordering::Relaxed);
            }
            Err(error) => tracing::debug!(%error, "a page's stream did not upgrade"),
        }
    });
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(value) = HeaderValue::from_str(&accept) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, value);
    }
    response
}

fn ws_message(message: &Message) -> WsMessage {
    match message {
        Message::Text(text) => WsMessage::text(text.clone()),
        Message::Binary(bytes) => WsMessage::binary(bytes.clone()),
    }
}

/// One page's stream: the whole state, then every tick's messages; a page that falls too far
/// behind gets the whole state again. What the page sends is read only to see it close.
async fn stream_to_page<S>(mut socket: WebSocketStream<S>, shared: &Shared)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        let (mut receiver, state) = {
            let cities = shared.cities.lock().unwrap_or_else(|e| e.into_inner());
            (shared.broadcast.subscribe(), cities.full_state())
        };
        for message in &state {
            if send(&mut socket, message, shared).await.is_err() {
                return;
            }
        }
        loop {
            tokio::select! {
                received = receiver.recv() => match received {
                    Ok(message) => {
                        if send(&mut socket, &message, shared).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                incoming = socket.next() => match incoming {
                    Some(Ok(WsMessage::Close(_))) | Some(Err(_)) | None => return,
                    Some(Ok(_)) => {}
                },
            }
        }
    }
}

async fn send<S>(
    socket: &mut WebSocketStream<S>,
    message: &Message,
    shared: &Shared,
) -> Result<(), tokio_tungstenite::tungstenite::Error>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let length = match message {
        Message::Text(text) => text.len(),
        Message::Binary(bytes) => bytes.len(),
    };
    shared
        .bytes_sent
        .fetch_add(length as u64, Ordering::Relaxed);
    socket.send(ws_message(message)).await
}
