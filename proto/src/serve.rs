//! The request loop every worker runs once it has said hello: read frames,
//! hand each request to the worker's handler, write answers as they come,
//! honour cancellation. The loop ends when the supervisor closes the pipe.

use std::collections::HashMap;
use std::future::Future;

use serde::{Serialize, de::DeserializeOwned};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::frame::{FrameError, READ_BUFFER_BYTES, read_frame, write_frame};
use crate::message::{FromWorker, ToWorker};

/// How a worker runs its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// Each request runs as its own task; answers come back in any order
    /// (worker-net: many exchanges wait on the network at once).
    Concurrent,
    /// One request at a time, in order (worker-parse: pure computation; the
    /// supervisor runs a pool of these processes instead).
    Serial,
}

/// Serves requests until the supervisor closes the pipe (`Ok`) or sends a
/// frame that does not decode (`Err`: the worker must exit, it cannot trust
/// the stream any more).
pub async fn serve_requests<Req, Ans, R, W, H, Fut>(
    reader: R,
    mut writer: W,
    dispatch: Dispatch,
    handler: H,
) -> Result<(), FrameError>
where
    Req: DeserializeOwned + Send + 'static,
    Ans: Serialize + Send + Sync + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    H: Fn(Req) -> Fut,
    Fut: Future<Output = Ans> + Send + 'static,
{
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, reader);
    let (answers, mut outbox) = mpsc::unbounded_channel::<(u64, Ans)>();
    let writer_task = tokio::spawn(async move {
        while let Some((id, body)) = outbox.recv().await {
            write_frame(&mut writer, &FromWorker::Answer { id, body }).await?;
        }
        Ok::<(), FrameError>(())
    });
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<u64>();
    let mut running: HashMap<u64, AbortHandle> = HashMap::new();

    let result = loop {
        // Forget finished tasks before looking at the next frame, so that the
        // map holds only work that can still be cancelled.
        while let Ok(id) = done_rx.try_recv() {
            running.remove(&id);
        }
        let frame: ToWorker<Req> = match read_frame(&mut reader).await {
            Ok(frame) => frame,
            Err(FrameError::Closed) => break Ok(()),
            Err(e) => break Err(e),
        };
        // The writer ended (the pipe to the supervisor broke): answers can
        // no longer leave, so taking more work would only make calls wait
        // for their deadlines. End, and let the writer's error speak.
        if answers.is_closed() {
            break Ok(());
        }
        match frame {
            ToWorker::Request { id, body } => match dispatch {
                Dispatch::Serial => {
                    let answer = handler(body).await;
                    if answers.send((id, answer)).is_err() {
                        break Ok(());
                    }
                }
                Dispatch::Concurrent => {
                    let work = handler(body);
                    let answers = answers.clone();
                    let done = done_tx.clone();
                    let task = tokio::spawn(async move {
                        let answer = work.await;
                        // The supervisor may have gone; nothing to do then.
                        let _ = answers.send((id, answer));
                        let _ = done.send(id);
                    });
                    running.insert(id, task.abort_handle());
                }
            },
            ToWorker::Cancel { id } => {
                if let Some(task) = running.remove(&id) {
                    task.abort();
                }
            }
        }
    };
    for task in running.values() {
        task.abort();
    }
    drop(answers);
    // Answers already computed still go out before the worker ends.
    match writer_task.await {
        Ok(Err(e)) if result.is_ok() => Err(e),
        _ => result,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn answers_concurrent_requests_out_of_order_and_drops_cancelled_ones() {
        let (mut sup_w, worker_r) = tokio::io::duplex(1 << 16);
        let (worker_w, mut sup_r) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(serve_requests(
            worker_r,
            worker_w,
            Dispatch::Concurrent,
            |ms: u64| async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                ms
            },
        ));
        write_frame(
            &mut sup_w,
            &ToWorker::Request {
                id: 1,
                body: 200u64,
            },
        )
        .await
        .unwrap();
        write_frame(&mut sup_w, &ToWorker::Request { id: 2, body: 10u64 })
            .await
            .unwrap();
        write_frame(
            &mut sup_w,
            &ToWorker::Request {
                id: 3,
                body: 100u64,
            },
        )
        .await
        .unwrap();
        write_frame(&mut sup_w, &ToWorker::<u64>::Cancel { id: 3 })
            .await
            .unwrap();
        let first: FromWorker<u64> = read_frame(&mut sup_r).await.unwrap();
        let second: FromWorker<u64> = read_frame(&mut sup_r).await.unwrap();
        assert!(matches!(first, FromWorker::Answer { id: 2, body: 10 }));
        assert!(matches!(second, FromWorker::Answer { id: 1, body: 200 }));
        drop(sup_w);
        server.await.unwrap().unwrap();
        // The cancelled request never answered.
        let end: Result<FromWorker<u64>, _> = read_frame(&mut sup_r).await;
        assert!(matches!(end, Err(FrameError::Closed)));
    }
}
