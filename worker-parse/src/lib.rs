//! rypsok-worker-parse: the process that reads every hostile byte.
//!
//! It receives bytes and returns structured data: engine answers become
//! [`rypsok_proto::EngineParse`] (hits or a failure class); fetched
//! documents become Markdown ([`page`] for HTML and text, [`pdf`] for PDF). It has no network
//! and no file access; a crash, a hang or a memory blow-up kills only this
//! process, and the supervisor replaces it (ARCHITECTURE.md, REQ-ENG-005,
//! REQ-PAGE-008). The supervisor runs a pool of these, each serving one
//! request at a time; [`serve`] is a worker's whole life.
#![forbid(unsafe_code)]

mod engine;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod page;
pub mod pdf;
pub mod robots;

use rypsok_proto::{
    Confinement, Dispatch, FrameError, FromWorker, PageParse, ParseRequest, ParseResponse,
    WorkerHello, WorkerKind, serve_requests, write_frame,
};
use tokio::io::{AsyncRead, AsyncWrite};

/// Confines the process with `confine` (the caller owns the kernel calls),
/// says hello with what it achieved, then parses requests one at a time
/// until the supervisor closes the pipe. Nothing is read before the
/// confinement is in place.
pub async fn serve<R, W, C>(reader: R, mut writer: W, confine: C) -> Result<(), FrameError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
    C: FnOnce() -> Confinement,
{
    let hello = WorkerHello {
        kind: WorkerKind::Parse,
        pid: std::process::id(),
        confinement: confine(),
    };
    write_frame(&mut writer, &FromWorker::<ParseResponse>::Hello(hello)).await?;
    tracing::info!(event = "worker_ready", "worker-parse ready");
    serve_requests(reader, writer, Dispatch::Serial, |req: ParseRequest| {
        #[cfg(feature = "probe")]
        let req = match probe(req) {
            Ok(answer) => return std::future::ready(answer),
            Err(req) => req,
        };
        std::future::ready(parse(req))
    })
    .await
}

/// Runs the probe an engine answer asks for (test builds only), or hands
/// the request back untouched.
#[cfg(feature = "probe")]
fn probe(req: ParseRequest) -> Result<ParseResponse, ParseRequest> {
    let (ParseRequest::EngineAnswer { body, .. }
    | ParseRequest::Page { body, .. }
    | ParseRequest::Robots { body }) = &req;
    let Some(probe) = rypsok_proto::probe::Probe::in_body(body) else {
        return Err(req);
    };
    probe.attempt_logged();
    Ok(ParseResponse::Engine(rypsok_proto::EngineParse::Failure(
        rypsok_proto::EngineFailure::ParseFailure,
    )))
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
            engine,
            &engine::Answer {
                base_url: &base_url,
                status,
                headers: &headers,
                body: &body,
            },
        )),
        ParseRequest::Page {
            body,
            content_type,
            url: _,
        } if pdf::is_pdf(content_type.as_deref(), &body) => {
            ParseResponse::Page(match pdf::read_pdf(&body) {
                pdf::PdfResult::Text {
                    title,
                    markdown,
                    partial,
                } => PageParse::Page {
                    title,
                    markdown,
                    partial,
                    structured: false,
                },
                pdf::PdfResult::Unreadable(why) => PageParse::Unreadable(why),
                pdf::PdfResult::Failed => PageParse::NoContent,
            })
        }
        ParseRequest::Page {
            body,
            content_type,
            url,
        } => {
            let input = page::PageInput {
                body: &body,
                content_type: content_type.as_deref(),
                url: &url,
            };
            ParseResponse::Page(match page::read_page(&input) {
                page::PageResult::Page(p) => PageParse::Page {
                    title: p.title,
                    markdown: p.markdown,
                    partial: p.partial,
                    structured: p.from_structured_data,
                },
                page::PageResult::Unsupported { media_type } => {
                    PageParse::Unsupported { media_type }
                }
                page::PageResult::NoContent => PageParse::NoContent,
                page::PageResult::NeedsScripts => PageParse::NeedsScripts,
            })
        }
        ParseRequest::Robots { body } => ParseResponse::Robots(robots::parse_robots(&body)),
    }
}
