//! The OTLP front doors. Each listener speaks HTTP/1.1 and HTTP/2 on the same port (hyper's
//! automatic protocol detection), so both ports take both transports:
//! - OTLP/gRPC: `POST /opentelemetry.proto.collector.trace.v1.TraceService/Export`, served by
//!   the generated tonic service;
//! - OTLP/HTTP with protobuf bodies: `POST /v1/traces`.
//!
//! A request is decoded, checked span by span ([`crate::spans::decode_request`]) and handed to
//! the bridge thread; invalid spans are reported back as OTLP's partial success, a request that
//! cannot be taken at all gets a clear error status and changes nothing else.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use crossbeam_channel::{Sender, TrySendError};
use http::{header, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming as HyperBody;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder as ConnectionBuilder;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message;
use tokio::net::TcpListener;
use tonic::body::Body;
use tower_service::Service;

use crate::bridge::{unix_now_ns, Incoming};
use crate::spans::decode_request;
use crate::stats::OtlpStats;

/// The gRPC method path of trace export.
pub const GRPC_EXPORT_PATH: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/// The OTLP/HTTP path of trace export.
pub const HTTP_TRACES_PATH: &str = "/v1/traces";

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
            Self::Malformed(_) => StatusCode::BAD_REQUEST,
            Self::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            // OTLP exporters retry on 503 (and gRPC UNAVAILABLE).
            Self::Busy | Self::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn grpc_status(&self) -> tonic::Status {
        let message = self.to_string();
        match self {
            Self::Unauthorized => tonic::Status::unauthenticated(message),
            Self::Malformed(_) => tonic::Status::invalid_argument(message),
            Self::TooLarge(_) => tonic::Status::resource_exhausted(message),
            Self::Busy | Self::ShuttingDown => tonic::Status::unavailable(message),
        }
    }
}

/// The peer a request came from, carried in the request's extensions to the gRPC service.
#[derive(Debug, Clone, Copy)]
struct Peer(SocketAddr);

/// What every connection of both listeners shares.
#[derive(Debug)]
pub(crate) struct Front {
    pub bridge: Sender<Incoming>,
    pub stats: Arc<OtlpStats>,
    pub token: Option<String>,
    pub max_request_bytes: usize,
}

impl Front {
    /// Decodes and hands over one export request; the response says what was rejected.
    fn take(
        &self,
        peer: SocketAddr,
        request: ExportTraceServiceRequest,
    ) -> Result<ExportTraceServiceResponse, Refusal> {
        let received_unix_ns = unix_now_ns();
        let mut decoded = decode_request(request);
        let spans = decoded.span_count() as u64;
        let rejected = decoded.rejected_spans;
        let first_error = decoded.first_error.take();
        if spans > 0 {
            let incoming = Incoming {
                peer,
                received_unix_ns,
                decoded,
            };
            match self.bridge.try_send(incoming) {
                Ok(()) => {}
                Err(TrySendError::Full(_)) => {
                    self.stats.count_refused_request();
                    return Err(Refusal::Busy);
                }
                Err(TrySendError::Disconnected(_)) => {
                    self.stats.count_refused_request();
                    return Err(Refusal::ShuttingDown);
                }
            }
        }
        self.stats.count_request(spans, rejected);
        Ok(ExportTraceServiceResponse {
            partial_success: (rejected > 0).then(|| ExportTracePartialSuccess {
                rejected_spans: i64::try_from(rejected).unwrap_or(i64::MAX),
                error_message: first_error.unwrap_or_default(),
            }),
        })
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

/// The gRPC service the generated server calls.
#[derive(Debug, Clone)]
struct GrpcTraces {
    front: Arc<Front>,
}

#[tonic::async_trait]
impl TraceService for GrpcTraces {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let peer = request
            .extensions()
            .get::<Peer>()
            .map_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)), |peer| peer.0);
        self.front
            .take(peer, request.into_inner())
            .map(tonic::Response::new)
            .map_err(|refusal| refusal.grpc_status())
    }
}

/// Accepts connections on `listener` until the runtime stops.
pub(crate) async fn serve(listener: TcpListener, front: Arc<Front>) {
    let grpc = TraceServiceServer::new(GrpcTraces {
        front: Arc::clone(&front),
    })
    .max_decoding_message_size(front.max_request_bytes);
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
        let grpc = grpc.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                route(request, peer, Arc::clone(&front), grpc.clone())
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
    mut request: Request<HyperBody>,
    peer: SocketAddr,
    front: Arc<Front>,
    mut grpc: TraceServiceServer<GrpcTraces>,
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
        if path != GRPC_EXPORT_PATH {
            return Ok(tonic::Status::unimplemented(format!(
                "{path}: highrise takes traces only ({GRPC_EXPORT_PATH})"
            ))
            .into_http());
        }
        request.extensions_mut().insert(Peer(peer));
        return match grpc.call(request).await {
            Ok(response) => Ok(response),
            Err(never) => match never {},
        };
    }
    Ok(http_request(request, peer, &front).await)
}

async fn http_request(
    request: Request<HyperBody>,
    peer: SocketAddr,
    front: &Front,
) -> Response<Body> {
    if request.uri().path() != HTTP_TRACES_PATH {
        return plain(
            StatusCode::NOT_FOUND,
            format!(
                "{}: highrise takes OTLP traces at {HTTP_TRACES_PATH} (metrics and logs are not taken)",
                request.uri().path()
            ),
        );
    }
    if request.method() != Method::POST {
        return plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "POST OTLP traces here".to_owned(),
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
    if !content_type.starts_with("application/x-protobuf") {
        front.stats.count_refused_request();
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "content type {content_type:?}: highrise takes OTLP/HTTP as protobuf \
                 (application/x-protobuf; OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf), not JSON"
            ),
        );
    }
    if let Some(encoding) = request
        .headers()
        .get(header::CONTENT_ENCODING)
        .and_then(|value| value.to_str().ok())
        .filter(|encoding| !encoding.eq_ignore_ascii_case("identity"))
    {
        front.stats.count_refused_request();
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "content encoding {encoding:?} is not taken; set the exporter's compression to \
                 none (OTEL_EXPORTER_OTLP_COMPRESSION=none)"
            ),
        );
    }
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
    let decoded = match ExportTraceServiceRequest::decode(body) {
        Ok(decoded) => decoded,
        Err(error) => {
            front.stats.count_refused_request();
            return refusal(&Refusal::Malformed(error.to_string()));
        }
    };
    match front.take(peer, decoded) {
        Ok(answer) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/x-protobuf")
            .body(Body::new(Full::new(Bytes::from(answer.encode_to_vec()))))
            .unwrap_or_default(),
        Err(why) => refusal(&why),
    }
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
