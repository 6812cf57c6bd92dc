//! rypsok-worker-net: the only process that opens sockets.
//!
//! It performs one kind of work, an HTTP exchange under a profile, a
//! deadline and a byte bound ([`rypsok_proto::ExchangeRequest`]). It resolves
//! names itself, judges every address it is about to connect to and the peer
//! it connected to (I3), never follows redirects and ignores environment
//! proxies (design §8, REQ-SEC-007, REQ-SEC-010, REQ-SEC-011, REQ-SEC-017).
//! The supervisor starts it by re-executing the rypsok binary; [`serve`] is
//! its whole life.
#![forbid(unsafe_code)]

mod connector;
mod exchange;
mod resolve;

use rypsok_proto::{
    Dispatch, FrameError, FromWorker, NetInit, NetRequest, NetResponse, WorkerHello, WorkerKind,
    read_frame, serve_requests, write_frame,
};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::exchange::{NetContext, exchange};

/// Reads the init frame, says hello, then serves exchanges until the
/// supervisor closes the pipe.
pub async fn serve<R, W>(mut reader: R, mut writer: W) -> Result<(), FrameError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let init: NetInit = read_frame(&mut reader).await?;
    let ctx = std::sync::Arc::new(NetContext::new(init.egress));
    let hello = WorkerHello {
        kind: WorkerKind::Net,
        pid: std::process::id(),
    };
    write_frame(&mut writer, &FromWorker::<NetResponse>::Hello(hello)).await?;
    tracing::info!(event = "worker_ready", "worker-net ready");
    serve_requests(
        reader,
        writer,
        Dispatch::Concurrent,
        move |req: NetRequest| {
            let ctx = std::sync::Arc::clone(&ctx);
            async move {
                match req {
                    NetRequest::Exchange(x) => NetResponse::Exchange(exchange(&ctx, x).await),
                }
            }
        },
    )
    .await
}
