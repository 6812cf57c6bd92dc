//! rypsok-worker-net: the only process that opens sockets.
//!
//! It performs one kind of work, an HTTP exchange under a profile, a
//! deadline and a byte bound ([`rypsok_proto::ExchangeRequest`]). It resolves
//! names itself, judges every address it is about to connect to and the peer
//! it connected to (I3), never follows redirects (a 3xx comes back with its
//! `Location`), ignores environment proxies, and decodes the content codings
//! it offers while the body streams, counting the byte bound after decoding
//! (design §8, REQ-SEC-007, REQ-SEC-010, REQ-SEC-011, REQ-SEC-017). Engine
//! traffic goes through the operator's `[egress] proxy` when one is
//! configured (`exchange`, REQ-RES-008). Connections whose answer was read
//! to its end are kept for the next exchange with the same origin and
//! profile, and for nothing else (`pool`).
//! The supervisor starts it by re-executing the rypsok binary; [`serve`] is
//! its whole life.
#![forbid(unsafe_code)]

mod body;
mod connector;
mod exchange;
mod pool;
mod resolve;
#[cfg(test)]
mod test_support;

use rypsok_egress::EgressPolicy;
use rypsok_proto::{
    Confinement, Dispatch, FrameError, FromWorker, NetInit, NetRequest, NetResponse, WorkerHello,
    WorkerKind, read_frame, serve_requests, write_frame,
};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::exchange::{NetContext, exchange};

/// Reads the init frame and everything the resolver needs from the file
/// system, confines the process with `confine` (given the egress policy,
/// so that the kernel can restrict ports; the caller owns the kernel
/// calls), says hello with what it achieved, then serves exchanges until
/// the supervisor closes the pipe. No request is read before the
/// confinement is in place.
pub async fn serve<R, W, C>(mut reader: R, mut writer: W, confine: C) -> Result<(), FrameError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    C: FnOnce(&EgressPolicy) -> Confinement,
{
    let init: NetInit = read_frame(&mut reader).await?;
    let confinement_input = exchange::confinement_policy(&init);
    // Reads /etc/resolv.conf: the last file this process opens.
    let ctx = std::sync::Arc::new(NetContext::new(init));
    let hello = WorkerHello {
        kind: WorkerKind::Net,
        pid: std::process::id(),
        confinement: confine(&confinement_input),
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
                    NetRequest::Exchange(x) => {
                        #[cfg(feature = "probe")]
                        if let Some(failure) = probe(&x.url) {
                            return NetResponse::Exchange(Err(failure));
                        }
                        NetResponse::Exchange(exchange(&ctx, x).await)
                    }
                }
            }
        },
    )
    .await
}

/// Runs the probe a URL asks for (test builds only).
#[cfg(feature = "probe")]
fn probe(url: &str) -> Option<rypsok_proto::NetFailure> {
    rypsok_proto::probe::Probe::in_url(url)?.attempt_logged();
    Some(rypsok_proto::NetFailure::Protocol)
}
