//! Worker log lines, relayed. A worker's stderr is a pipe to the supervisor,
//! not the supervisor's own stderr: a worker taken over by hostile input
//! could otherwise write lines that claim to be the supervisor's. Each line
//! is read with a bound, re-tagged with the worker's kind and process id
//! (whatever it claimed), and written out whole.

use std::io::Write as _;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt as _};

use rypsok_proto::WorkerKind;

/// Longest worker log line relayed; the rest of a longer line is dropped.
/// A worker's own lines are a few hundred bytes.
const MAX_LINE_BYTES: usize = 8 * 1024;

/// Relays a worker's stderr until it closes.
pub(super) async fn relay<R: AsyncRead + Unpin>(kind: WorkerKind, pid: u32, mut stderr: R) {
    let mut line: Vec<u8> = Vec::with_capacity(512);
    let mut overlong = false;
    let mut chunk = [0u8; 4096];
    loop {
        let n = match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for &byte in &chunk[..n] {
            if byte == b'\n' {
                emit(&retag(kind, pid, &line, overlong));
                line.clear();
                overlong = false;
            } else if line.len() < MAX_LINE_BYTES {
                line.push(byte);
            } else {
                overlong = true;
            }
        }
    }
    if !line.is_empty() {
        emit(&retag(kind, pid, &line, overlong));
    }
}

fn emit(line: &str) {
    // One write per line, so lines of several processes never interleave.
    let mut out = String::with_capacity(line.len() + 1);
    out.push_str(line);
    out.push('\n');
    let _ = std::io::stderr().lock().write_all(out.as_bytes());
}

/// The line as the supervisor writes it: the worker's JSON object with
/// `process` and `pid` set by the supervisor, or, for anything that is not
/// a JSON object (a panic message, a cut line), a `worker_output` event
/// carrying the text as an escaped string.
pub(super) fn retag(kind: WorkerKind, pid: u32, line: &[u8], cut: bool) -> String {
    let parsed = if cut {
        None
    } else {
        serde_json::from_slice::<Value>(line).ok()
    };
    let mut object = match parsed {
        Some(Value::Object(object)) => object,
        _ => {
            let mut object = Map::new();
            object.insert("level".to_owned(), Value::from("warn"));
            object.insert("event".to_owned(), Value::from("worker_output"));
            object.insert("cut".to_owned(), Value::from(cut));
            object.insert(
                "text".to_owned(),
                Value::from(String::from_utf8_lossy(line).into_owned()),
            );
            object
        }
    };
    object.insert("process".to_owned(), Value::from(kind.as_str()));
    object.insert("pid".to_owned(), Value::from(pid));
    Value::Object(object).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-SEC-014 (a worker cannot pass its lines off as the supervisor's)
    #[test]
    fn retags_a_line_that_claims_another_process() {
        let forged = br#"{"process":"supervisor","pid":1,"event":"started","level":"info"}"#;
        let out: Value =
            serde_json::from_str(&retag(WorkerKind::Parse, 4242, forged, false)).unwrap();
        assert_eq!(out["process"], "worker-parse");
        assert_eq!(out["pid"], 4242);
        assert_eq!(out["event"], "started");
    }

    // Verifies: REQ-OBS-005 (every relayed line is one JSON object, whatever the worker wrote)
    #[test]
    fn wraps_text_that_is_not_a_json_object() {
        for raw in [
            &b"thread 'main' panicked at ..."[..],
            b"[1,2]",
            b"{\"a\":",
            b"\xff\xfe",
        ] {
            let out: Value = serde_json::from_str(&retag(WorkerKind::Net, 7, raw, false)).unwrap();
            assert_eq!(out["event"], "worker_output");
            assert_eq!(out["process"], "worker-net");
        }
        let cut: Value =
            serde_json::from_str(&retag(WorkerKind::Net, 7, b"{\"a\":1}", true)).unwrap();
        assert_eq!(cut["cut"], true);
    }

    // Verifies: REQ-SEC-014 (a line is bounded, and a flood of one long line does not grow memory)
    #[tokio::test]
    async fn bounds_each_line() {
        let long = vec![b'x'; MAX_LINE_BYTES * 4];
        let (mut w, r) = tokio::io::duplex(1 << 16);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt as _;
            w.write_all(&long).await.unwrap();
            w.write_all(b"\n").await.unwrap();
        });
        // Reaches the end without holding more than the bound; the output
        // goes to this test's stderr.
        relay(WorkerKind::Parse, 1, r).await;
        writer.await.unwrap();
        let out: Value = serde_json::from_str(&retag(
            WorkerKind::Parse,
            1,
            &vec![b'x'; MAX_LINE_BYTES],
            true,
        ))
        .unwrap();
        assert_eq!(out["text"].as_str().map(str::len), Some(MAX_LINE_BYTES));
    }
}
