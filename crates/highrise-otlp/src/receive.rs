//! The OTLP front doors. Each listener speaks HTTP/1.1 and HTTP/2 on the same port (hyper's
//! automatic protocol detection), so both ports take both transports:
//! - OTLP/gRPC: `POST /opentelemetry.proto.collector.trace.v1.TraceService/Export` and
//!   `…collector.profiles.v1development.ProfilesService/Export`, served by tonic's gRPC server
//!   with prost's codec (gzip-compressed messages taken too);
//! - OTLP/HTTP: `POST /v1/traces` and `/v1development/profiles`, with protobuf or JSON bodies,
//!   plain or gzip.
//!
//! A request is decoded into the lean messages of [`crate::wire`], checked span by span
//! ([`crate::spans::check_request`]) and handed to the bridge thread; invalid spans are reported
//! back as OTLP's partial success, a request that cannot be taken at all gets a clear error
//! status and changes nothing else. Each connection keeps its own [`NameCache`].

use std::future::{ready, Ready};
use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use crossbeam_channel::{Sender, TrySendError};
use http::{header, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming as HyperBody;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnectionBuilder;
use opentelemetry_proto::tonic::collector::profiles::v1development::{
    ExportProfilesPartialSuccess, ExportProfilesServiceRequest, ExportProfilesServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use tokio::net::TcpListener;
use tonic::body::Body;
use tonic::codec::CompressionEncoding;
use tonic_prost::ProstCodec;

use crate::bridge::{unix_now_ns, Incoming, Payload};
use crate::profiles::check_profiles;
use crate::spans::{check_request, NameCache};
use crate::stats::OtlpStats;
use crate::wire;

/// The gRPC method path of trace export.
pub const GRPC_EXPORT_PATH: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/// The OTLP/HTTP path of trace export.
pub const HTTP_TRACES_PATH: &str = "/v1/traces";
/// The gRPC method path of profiles export.
pub const GRPC_PROFILES_PATH: &str =
    "/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export";
/// The OTLP/HTTP path of profiles export.
pub const HTTP_PROFILES_PATH: &str = "/v1development/profiles";

/// Why a request was refused whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    #[error(
        "unauthorized: highrise takes OTLP from other machines only with its token; set the \
         exporter's headers to `authorization=Bearer TOKEN` (OTEL_EXPORTER_OTLP_HEADERS)"
    )]
    Unauthorized,
    #[error("malformed OTLP protobuf: {0}")]
    Malformed(String),
    #[error("malformed OTLP JSON: {0}")]
    MalformedJson(String),
    #[error("request larger than {0} bytes; lower the exporter's batch size")]
    TooLarge(usize),
    #[error("highrise is behind on this load; retry")]
    Busy,
    #[error("highrise is shutting down")]
    ShuttingDown,
}

impl Refusal {
    fn http_status(&self) -> StatusCode {
        match self {
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Malformed(_) | Self::MalformedJson(_) => StatusCode::BAD_REQUEST,
            Self::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            // OTLP exporters retry on 503 (and gRPC UNAVAILABLE).
            Self::Busy | Self::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn grpc_status(&self) -> tonic::Status {
        let message = self.to_string();
        match self {
            Self::Unauthorized => tonic::Status::unauthenticated(message),
            Self::Malformed(_) | Self::MalformedJson(_) => tonic::Status::invalid_argument(message),
            Self::TooLarge(_) => tonic::Status::resource_exhausted(message),
            Self::Busy | Self::ShuttingDown => tonic::Status::unavailable(message),
        }
    }
}

/// What every connection of both listeners shares.
#[derive(Debug)]
pub(crate) struct Front {
    pub bridge: Sender<Incoming>,
    pub stats: Arc<OtlpStats>,
    pub token: Option<String>,
    pub max_request_bytes: usize,
}

impl Front {
    /// Checks and hands over one export request; the response says what was rejected.
    fn take(
        &self,
        peer: SocketAddr,
        request: wire::ExportRequest,
        names: &Mutex<NameCache>,
    ) -> Result<ExportTraceServiceResponse, Refusal> {
        let received_unix_ns = unix_now_ns();
        let mut decoded = check_request(
            request,
            &mut names.lock().unwrap_or_else(PoisonError::into_inner),
        );
        let spans = decoded.span_count() as u64;
        let rejected = decoded.rejected_spans;
        let first_error = decoded.first_error.take();
        if spans > 0 {
            self.hand_over(Incoming {
                peer,
                received_unix_ns,
                payload: Payload::Spans(decoded),
            })?;
        }
        self.stats.count_request(spans, rejected);
        Ok(ExportTraceServiceResponse {
            partial_success: (rejected > 0).then(|| ExportTracePartialSuccess {
                rejected_spans: i64::try_from(rejected).unwrap_or(i64::MAX),
                error_message: first_error.unwrap_or_default(),
            }),
        })
    }

    /// Checks and hands over one profiles export request.
    fn take_profiles(
        &self,
        peer: SocketAddr,
        request: &ExportProfilesServiceRequest,
    ) -> Result<ExportProfilesServiceResponse, Refusal> {
        let received_unix_ns = unix_now_ns();
        let mut decoded = check_profiles(request);
        let samples = decoded.sample_count() as u64;
        let (rejected_profiles, rejected_samples) =
            (decoded.rejected_profiles, decoded.rejected_samples);
        let first_error = decoded.first_error.take();
        if samples > 0 {
            self.hand_over(Incoming {
                peer,
                received_unix_ns,
                payload: Payload::Profiles(decoded),
            })?;
        }
        self.stats.count_profiles_request(samples, rejected_samples);
        Ok(ExportProfilesServiceResponse {
            partial_success: (rejected_profiles > 0).then(|| ExportProfilesPartialSuccess {
                rejected_profiles: i64::try_from(rejected_profiles).unwrap_or(i64::MAX),
                error_message: first_error.unwrap_or_default(),
            }),
        })
    }

    fn hand_over(&self, incoming: Incoming) -> Result<(), Refusal> {
        match self.bridge.try_send(incoming) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => {
                self.stats.count_refused_request();
                Err(Refusal::Busy)
            }
            Err(TrySendError::Disconnected(_)) => {
                self.stats.count_refused_request();
                Err(Refusal::ShuttingDown)
            }
        }
    }

    fn authorized<B>(&self, peer: SocketAddr, request: &Request<B>) -> bool {
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim);
        highrise_ingest::peer_token_ok(self.token.as_deref(), peer, presented)
    }
}

/// Trace export over gRPC, for one connection: tonic's server decodes the lean request with
/// prost (zero-copy strings) and calls this.
struct GrpcExport {
    front: Arc<Front>,
    peer: SocketAddr,
    names: Arc<Mutex<NameCache>>,
}

impl tonic::server::UnaryService<wire::ExportRequest> for GrpcExport {
    type Response = ExportTraceServiceResponse;
    type Future = Ready<Result<tonic::Response<Self::Response>, tonic::Status>>;

    fn call(&mut self, request: tonic::Request<wire::ExportRequest>) -> Self::Future {
        ready(
            self.front
                .take(self.peer, request.into_inner(), &self.names)
                .map(tonic::Response::new)
                .map_err(|refusal| refusal.grpc_status()),
        )
    }
}

/// Profiles export over gRPC, for one connection.
struct GrpcProfiles {
    front: Arc<Front>,
    peer: SocketAddr,
}

impl tonic::server::UnaryService<ExportProfilesServiceRequest> for GrpcProfiles {
    type Response = ExportProfilesServiceResponse;
    type Future = Ready<Result<tonic::Response<Self::Response>, tonic::Status>>;

    fn call(&mut self, request: tonic::Request<ExportProfilesServiceRequest>) -> Self::Future {
        ready(
            self.front
                .take_profiles(self.peer, request.get_ref())
                .map(tonic::Response::new)
                .map_err(|refusal| refusal.grpc_status()),
        )
    }
}

/// Accepts connections on `listener` until the runtime stops.
pub(crate) async fn serve(listener: TcpListener, front: Arc<Front>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!(%error, "OTLP accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let front = Arc::clone(&front);
        let names = Arc::new(Mutex::new(NameCache::default()));
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                route(request, peer, Arc::clone(&front), Arc::clone(&names))
            });
            let connection = ConnectionBuilder::new(TokioExecutor::new());
            if let Err(error) = connection
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!(%peer, %error, "OTLP connection ended with an error");
            }
        });
    }
}

async fn route(
    request: Request<HyperBody>,
    peer: SocketAddr,
    front: Arc<Front>,
    names: Arc<Mutex<NameCache>>,
) -> Result<Response<Body>, std::convert::Infallible> {
    let path = request.uri().path();
    let is_grpc = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/grpc"));
    if is_grpc {
        if !front.authorized(peer, &request) {
            front.stats.count_refused_request();
            return Ok(Refusal::Unauthorized.grpc_status().into_http());
        }
        let max_request_bytes = front.max_request_bytes;
        if path == GRPC_PROFILES_PATH {
            let export = GrpcProfiles { front, peer };
            let mut grpc = tonic::server::Grpc::new(ProstCodec::<
                ExportProfilesServiceResponse,
                ExportProfilesServiceRequest,
            >::default())
            .accept_compressed(CompressionEncoding::Gzip)
            .apply_max_message_size_config(Some(max_request_bytes), None);
            return Ok(grpc.unary(export, request).await);
        }
        if path != GRPC_EXPORT_PATH {
            return Ok(tonic::Status::unimplemented(format!(
                "{path}: highrise takes traces ({GRPC_EXPORT_PATH}) and profiles \
                 ({GRPC_PROFILES_PATH}) only"
            ))
            .into_http());
        }
        let export = GrpcExport { front, peer, names };
        let mut grpc = tonic::server::Grpc::new(ProstCodec::<
            ExportTraceServiceResponse,
            wire::ExportRequest,
        >::default())
        // The Collector's OTLP exporter compresses with gzip unless told otherwise.
        .accept_compressed(CompressionEncoding::Gzip)
        .apply_max_message_size_config(Some(max_request_bytes), None);
        return Ok(grpc.unary(export, request).await);
    }
    Ok(http_request(request, peer, &front, &names).await)
}

/// The body formats of OTLP/HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyFormat {
    Protobuf,
    Json,
}

async fn http_request(
    request: Request<HyperBody>,
    peer: SocketAddr,
    front: &Front,
    names: &Mutex<NameCache>,
) -> Response<Body> {
    let profiles = match request.uri().path() {
        HTTP_TRACES_PATH => false,
        HTTP_PROFILES_PATH => true,
        path => {
            return plain(
                StatusCode::NOT_FOUND,
                format!(
                    "{path}: highrise takes OTLP traces at {HTTP_TRACES_PATH} and profiles at \
                     {HTTP_PROFILES_PATH} (metrics and logs are not taken)"
                ),
            )
        }
    };
    if request.method() != Method::POST {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "POST OTLP traces or profiles here".to_owned(),
        );
    }
    if !front.authorized(peer, &request) {
        front.stats.count_refused_request();
        return refusal(&Refusal::Unauthorized);
    }
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let format = if content_type.starts_with("application/x-protobuf") {
        BodyFormat::Protobuf
    } else if content_type.starts_with("application/json") {
        BodyFormat::Json
    } else {
        front.stats.count_refused_request();
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "content type {content_type:?}: highrise takes OTLP/HTTP as protobuf \
                 (application/x-protobuf) or JSON (application/json)"
            ),
        );
    };
    let gzip = match request
        .headers()
        .get(header::CONTENT_ENCODING)
        .and_then(|value| value.to_str().ok())
    {
        None => false,
        Some(encoding) if encoding.eq_ignore_ascii_case("identity") => false,
        Some(encoding) if encoding.eq_ignore_ascii_case("gzip") => true,
        Some(encoding) => {
            front.stats.count_refused_request();
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "content encoding {encoding:?} is not taken; set the exporter's compression \
                     to gzip or none (OTEL_EXPORTER_OTLP_COMPRESSION)"
                ),
            );
        }
    };
    let body = match Limited::new(request.into_body(), front.max_request_bytes)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            front.stats.count_refused_request();
            if error.downcast_ref::<LengthLimitError>().is_some() {
                return refusal(&Refusal::TooLarge(front.max_request_bytes));
            }
            return plain(
                StatusCode::BAD_REQUEST,
                format!("reading the body: {error}"),
            );
        }
    };
    let body = if gzip {
        match gunzip(&body, front.max_request_bytes) {
            Ok(body) => body,
            Err(why) => {
                front.stats.count_refused_request();
                return refusal(&why);
            }
        }
    } else {
        body
    };
    if profiles {
        let request = match format {
            BodyFormat::Protobuf => ExportProfilesServiceRequest::decode(body)
                .map_err(|error| Refusal::Malformed(error.to_string())),
            BodyFormat::Json => crate::profiles_json::from_json(&body)
                .map_err(|error| Refusal::MalformedJson(error.to_string())),
        };
        let taken = request.and_then(|request| front.take_profiles(peer, &request));
        return answer(format, taken, front);
    }
    // JSON goes through the generated messages (serde), then as protobuf like the rest.
    let protobuf = match format {
        BodyFormat::Protobuf => Ok(body),
        BodyFormat::Json => serde_json::from_slice::<ExportTraceServiceRequest>(&body)
            .map(|request| Bytes::from(request.encode_to_vec()))
            .map_err(|error| Refusal::MalformedJson(error.to_string())),
    };
    let taken = protobuf.and_then(|body| {
        wire::ExportRequest::decode(body)
            .map_err(|error| Refusal::Malformed(error.to_string()))
            .and_then(|request| front.take(peer, request, names))
    });
    answer(format, taken, front)
}

/// The reply to an export request: its response in the request's format, or why it was refused.
fn answer<M: Message + serde::Serialize>(
    format: BodyFormat,
    taken: Result<M, Refusal>,
    front: &Front,
) -> Response<Body> {
    match taken {
        Ok(answer) => {
            let (content_type, bytes) = match format {
                BodyFormat::Protobuf => ("application/x-protobuf", answer.encode_to_vec()),
                BodyFormat::Json => (
                    "application/json",
                    serde_json::to_vec(&answer).unwrap_or_else(|_| b"{}".to_vec()),
                ),
            };
            Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, content_type)
                .body(Body::new(Full::new(Bytes::from(bytes))))
                .unwrap_or_default()
        }
        Err(why) => {
            if matches!(why, Refusal::Malformed(_) | Refusal::MalformedJson(_)) {
                front.stats.count_refused_request();
            }
            refusal(&why)
        }
    }
}

/// A gzip body, inflated up to `max_bytes`.
fn gunzip(body: &[u8], max_bytes: usize) -> Result<Bytes, Refusal> {
    let mut inflated = Vec::new();
    let limit = u64::try_from(max_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    // Every member: a body may be several gzip members one after another.
    flate2::read::MultiGzDecoder::new(body)
        .take(limit)
        .read_to_end(&mut inflated)
        .map_err(|error| Refusal::Malformed(format!("gzip body: {error}")))?;
    if inflated.len() > max_bytes {
        return Err(Refusal::TooLarge(max_bytes));
    }
    Ok(Bytes::from(inflated))
}

fn refusal(why: &Refusal) -> Response<Body> {
    let mut response = plain(why.http_status(), why.to_string());
    if matches!(why, Refusal::Busy) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, http::HeaderValue::from_static("1"));
    }
    response
}

fn plain(status: StatusCode, text: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .body(Body::new(Full::new(Bytes::from(text))))
        .unwrap_or_default()
}
