//! rypsok-worker-parse: the process that reads every hostile byte.
//!
//! It receives bytes and returns structured data: engine answers become
//! [`rypsok_proto::EngineParse`] (hits or a failure class). It has no network
//! and no file access; a crash, a hang or a memory blow-up kills only this
//! process, and the supervisor replaces it (ARCHITECTURE.md, REQ-ENG-005,
//! REQ-PAGE-008). The supervisor runs a pool of these, each serving one
//! request at a time; [`serve`] is a worker's whole life.
#![forbid(unsafe_code)]

mod engine;

use rypsok_proto::{
    Dispatch, FrameError, FromWorker, ParseRequest, ParseResponse, WorkerHello, WorkerKind,
    serve_requests, write_frame,
};
use tokio::io::{AsyncRead, AsyncWrite};

/// Says hello, then parses requests one at a time until the supervisor
/// closes the pipe.
pub async fn serve<R, W>(reader: R, mut writer: W) -> Result<(), FrameError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let hello = WorkerHello {
        kind: WorkerKind::Parse,
        pid: std::process::id(),
    };
    write_frame(&mut writer, &FromWorker::<ParseResponse>::Hello(hello)).await?;
    tracing::info!(event = "worker_ready", "worker-parse ready");
    serve_requests(reader, writer, Dispatch::Serial, |req: ParseRequest| {
        let answer = parse(req);
        async move { answer }
    })
    .await
}

/// Parses one request. Pure: bytes in, data out.
pub fn parse(req: ParseRequest) -> ParseResponse {
    match req {
        ParseRequest::EngineAnswer {
            engine,
            base_url,
            status,
            headers,
            body,
        } => ParseResponse::Engine(engine::parse_engine_answer(
            engine, &base_url, status, &headers, &body,
        )),
    }
}
