//! A line filter between stdin/stdout and the SDK's stdio transport
//! (REQ-MCP-002, REQ-MCP-004).
//!
//! The pinned SDK (rmcp 3.11.0) drops a line that is not JSON without an
//! answer (its `AsyncRwTransport` ignores syntax errors on purpose), so a
//! host that sent one waits for its own timeout. JSON-RPC asks for the
//! parse error -32700 with a null id. The SDK offers no hook for it, so
//! each line is judged here first: JSON goes on to the SDK unchanged; a
//! line that is not (not UTF-8, broken syntax, nesting past the parser's
//! limit) is answered here with -32700 and id null, with a fixed message
//! that never echoes the line. A lone UTF-16 surrogate escape (`\ud800`)
//! is the one repair: it is replaced by U+FFFD (`\ufffd`) and the message
//! goes on, since the rest of the line is a well-formed request.
//!
//! Answers from the SDK and from the filter share stdout one whole line at
//! a time.

use std::borrow::Cow;

use rmcp::transport::stdio_pipes;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Buffer between the filter and the SDK, each way.
const PIPE_BYTES: usize = 64 * 1024;

/// The answer to a line that is not a JSON-RPC message.
const PARSE_ERROR: &[u8] = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON"}}"#;

/// The answer to a line over the bound: Invalid Request with id null, since
/// the id may lie in the part never read (JSON-RPC 2.0 §5).
const TOO_LARGE: &[u8] = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the message is too large"}}"#;

/// An answer the filter writes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    ParseError,
    TooLarge,
}

impl Answer {
    const fn line(self) -> &'static [u8] {
        match self {
            Self::ParseError => PARSE_ERROR,
            Self::TooLarge => TOO_LARGE,
        }
    }
}

/// The reader and writer to hand to the SDK's transport in place of stdin
/// and stdout. A line longer than `max_line` bytes is answered with
/// Invalid Request and its rest skipped, never held (REQ-MCP-004).
pub(crate) fn filtered_stdio(max_line: usize) -> (impl AsyncRead + Unpin, impl AsyncWrite + Unpin) {
    let (stdin, stdout) = stdio_pipes();
    let (sdk_in, feed) = tokio::io::duplex(PIPE_BYTES);
    let (sdk_out, from_sdk) = tokio::io::duplex(PIPE_BYTES);
    let (errors_tx, errors_rx) = mpsc::unbounded_channel();
    tokio::spawn(read_lines(stdin, feed, errors_tx, max_line));
    tokio::spawn(write_lines(from_sdk, errors_rx, stdout));
    (sdk_in, sdk_out)
}

/// Reads stdin line by line: JSON lines go to the SDK, the rest are
/// answered. Ends at end of input, which the SDK then sees too.
async fn read_lines<R, W>(
    stdin: R,
    mut feed: W,
    errors: mpsc::UnboundedSender<Answer>,
    max_line: usize,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(stdin);
    let mut line = Vec::new();
    loop {
        line.clear();
        let limit = u64::try_from(max_line)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        match (&mut reader).take(limit).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if !line.ends_with(b"\n") && line.len() > max_line {
            // Over the bound: the rest of the line passes through the
            // reader's buffer and is dropped, never held; the client is
            // told, or it would wait for an answer that never comes.
            tracing::warn!(
                event = "stdin_line_too_long",
                max = max_line,
                "an input line over the bound was answered as too large"
            );
            if errors.send(Answer::TooLarge).is_err() || skip_line(&mut reader).await.is_err() {
                break;
            }
            continue;
        }
        match judge(&line) {
            Verdict::Pass(text) => {
                let mut out = text.into_owned();
                if !out.ends_with(b"\n") {
                    out.push(b'\n');
                }
                if feed.write_all(&out).await.is_err() {
                    break;
                }
            }
            Verdict::Skip => {}
            Verdict::ParseError => {
                tracing::info!(
                    event = "stdin_parse_error",
                    "a line that is not JSON was answered with a parse error"
                );
                if errors.send(Answer::ParseError).is_err() {
                    break;
                }
            }
        }
    }
    let _ = feed.shutdown().await;
}

/// Reads to the end of the current line, keeping nothing.
async fn skip_line<R: AsyncBufReadExt + Unpin>(reader: &mut R) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            reader.consume(i + 1);
            return Ok(());
        }
        let n = buf.len();
        reader.consume(n);
    }
}

/// Copies the SDK's lines and the filter's answers to stdout, a whole line
/// at a time, until the SDK closes its side.
async fn write_lines<R, W>(from_sdk: R, mut errors: mpsc::UnboundedReceiver<Answer>, mut stdout: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from_sdk);
    let mut line = Vec::new();
    let mut errors_open = true;
    loop {
        tokio::select! {
            read = reader.read_until(b'\n', &mut line) => {
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                            break;
                        }
                        line.clear();
                    }
                }
            }
            error = errors.recv(), if errors_open => match error {
                Some(answer) => {
                    let mut out = answer.line().to_vec();
                    out.push(b'\n');
                    if stdout.write_all(&out).await.is_err() || stdout.flush().await.is_err() {
                        break;
                    }
                }
                None => errors_open = false,
            },
        }
    }
    let _ = stdout.flush().await;
}

/// What becomes of one input line.
#[derive(Debug, PartialEq, Eq)]
enum Verdict<'a> {
    /// JSON: to the SDK, repaired where a lone surrogate was.
    Pass(Cow<'a, [u8]>),
    /// Blank: the SDK skips it too.
    Skip,
    /// Not JSON: answered with -32700.
    ParseError,
}

/// Judges one line as the SDK would read it (a byte order mark and a
/// trailing CR ignored).
fn judge(line: &[u8]) -> Verdict<'_> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    if parses(body) {
        return Verdict::Pass(Cow::Borrowed(line));
    }
    match repair_lone_surrogates(body) {
        Some(repaired) if parses(&repaired) => Verdict::Pass(Cow::Owned(repaired)),
        _ => Verdict::ParseError,
    }
}

/// Whether the SDK's parser can read `body` as JSON. A `Value`, not
/// `IgnoredAny`: only building values applies serde_json's nesting limit,
/// as the SDK's typed parse does.
fn parses(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok()
}

/// `body` with every `\uXXXX` escape of a surrogate that is not half of a
/// pair written `\ufffd`; `None` when there is none. Backslashes occur in
/// JSON only inside strings, so escapes are read pairwise from the start.
fn repair_lone_surrogates(body: &[u8]) -> Option<Vec<u8>> {
    let unit = |at: usize| -> Option<u16> {
        if body.get(at..at + 2)? != b"\\u" {
            return None;
        }
        let hex = std::str::from_utf8(body.get(at + 2..at + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut out = Vec::with_capacity(body.len());
    let mut repaired = false;
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) => {
                if unit(i + 6).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) {
                    out.extend_from_slice(&body[i..i + 12]);
                    i += 12;
                } else {
                    out.extend_from_slice(b"\\ufffd");
                    repaired = true;
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                out.extend_from_slice(b"\\ufffd");
                repaired = true;
                i += 6;
            }
            _ => {
                // Any other escape: its two characters as they are.
                out.extend_from_slice(&body[i..(i + 2).min(body.len())]);
                i += 2;
            }
        }
    }
    repaired.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-MCP-004 (lines that are not JSON are told apart from JSON; a lone surrogate is repaired)
    #[test]
    fn judges_each_line() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(judge(ok), Verdict::Pass(Cow::Borrowed(&ok[..])));
        assert_eq!(judge(b"  \r\n"), Verdict::Skip);
        assert_eq!(judge(b"not json\n"), Verdict::ParseError);
        assert_eq!(judge(b"{\"a\":\"\xff\"}\n"), Verdict::ParseError);
        assert_eq!(judge(b"{\"id\":9,\n"), Verdict::ParseError);
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(judge(deep.as_bytes()), Verdict::ParseError);
        assert_eq!(
            judge(br#"{"a":"x\ud800y","b":"\udc00"}"#),
            Verdict::Pass(Cow::Owned(br#"{"a":"x\ufffdy","b":"\ufffd"}"#.to_vec()))
        );
        // A pair stays; an escaped backslash before `u` is no escape.
        let pair = br#"{"a":"\ud83d\ude00","b":"\\ud800"}"#;
        assert_eq!(judge(pair), Verdict::Pass(Cow::Borrowed(&pair[..])));
    }

    // Verifies: REQ-MCP-004 (a line over the bound is answered as too large as soon as the bound is passed, and the next line still reaches the SDK)
    #[tokio::test]
    async fn answers_a_line_over_the_bound_and_goes_on() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        let (feed, mut sdk) = tokio::io::duplex(PIPE_BYTES);
        let (tx, mut rx) = mpsc::unbounded_channel();
        read_lines(&input[..], feed, tx, 64).await;
        assert_eq!(rx.recv().await, Some(Answer::TooLarge));
        assert_eq!(rx.recv().await, None);
        let mut passed = Vec::new();
        let _ = sdk.read_to_end(&mut passed).await;
        assert_eq!(
            passed,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        );
    }
}
