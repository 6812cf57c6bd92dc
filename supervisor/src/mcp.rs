//! The MCP adapter: the only code that knows the SDK (I9, REQ-ARCH-005).
//!
//! `list_tools` and `call_tool` are written by hand rather than with the
//! SDK's macros: the tool list depends on the configuration, and typed
//! parameters would turn a bad argument into a protocol error that can echo
//! the caller's input. The raw argument object goes to the core, which
//! validates it and answers `invalid_request` without echoing anything.
//!
//! [`McpHttp`] is the SDK's Streamable HTTP service behind rypsok's own
//! gate (`http.rs`): the SDK answers the statuses the contract names it
//! for (400, 403, 406, 413 streamed, 415), the gate the rest.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use http_body_util::combinators::BoxBody;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rypsok_core::config::{HttpConfig, TextFormat};
use rypsok_core::error::{ErrorKind, Reason};
use rypsok_core::response::markdown;
use rypsok_core::tools::{
    DESTRUCTIVE, IDEMPOTENT, INSTRUCTIONS, READ_ONLY, ToolDefinition, ToolName,
};
use rypsok_core::{Caller, Services, ToolOutput};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// Refused calls by tool, error kind and reason.
type RefusalCounts = BTreeMap<(ToolName, ErrorKind, Option<Reason>), u64>;

/// The MCP server of one process. Cheap to clone: the HTTP service makes
/// one per session or stateless request.
#[derive(Clone)]
pub(crate) struct Adapter {
    services: Arc<Services>,
    tools: Arc<[Tool]>,
    structured_content: bool,
    /// What the text block holds (`[service] text_format`).
    text_format: TextFormat,
    /// rypsok's own call ids for logs: the JSON-RPC id is the client's text.
    next_call: Arc<AtomicU64>,
    /// The caller of a call that does not name one (stdio: the process).
    caller: Caller,
    /// Refused calls of this process, counted per tool, error kind and
    /// reason (REQ-OBS-007); every key is rypsok's own vocabulary.
    refused: Arc<Mutex<RefusalCounts>>,
    /// The revisions served (REQ-MCP-006).
    revisions: &'static [ProtocolVersion],
}

/// The protocol revisions served: every one the SDK knows, or, with the
/// handshake-based ones switched off, those from 2026-07-28 on. The SDK
/// then answers an `initialize`, or a request naming an earlier revision
/// in its metadata, with its unsupported-version error listing these.
fn revisions(handshake_revisions: bool) -> &'static [ProtocolVersion] {
    let known = ProtocolVersion::KNOWN_VERSIONS;
    if handshake_revisions {
        return known;
    }
    // The SDK lists its revisions oldest first.
    let first_without = known
        .iter()
        .position(|v| !v.has_initialize())
        .unwrap_or(known.len());
    &known[first_without..]
}

fn schema_object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The protocol's tool from the core's definition. Without structured
/// content the output schema is left out: a client must reject a result
/// that lacks the structured content its tool declared.
fn to_tool(def: ToolDefinition, structured_content: bool) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(READ_ONLY)
        .destructive(DESTRUCTIVE)
        .idempotent(IDEMPOTENT)
        .open_world(def.open_world);
    let tool = Tool::new(
        def.name.as_str(),
        def.description,
        schema_object(def.input_schema),
    )
    .with_annotations(annotations);
    if structured_content {
        tool.with_raw_output_schema(schema_object(def.output_schema))
    } else {
        tool
    }
}

impl Adapter {
    pub(crate) fn new(services: Arc<Services>, caller: Caller) -> Self {
        // The configuration of a process is immutable, so the list is built once.
        let structured_content = services.config().service.structured_content;
        let text_format = services.config().service.text_format;
        let revisions = revisions(services.config().service.handshake_revisions);
        let tools = services
            .tool_definitions()
            .into_iter()
            .map(|def| to_tool(def, structured_content))
            .collect();
        Self {
            services,
            tools,
            structured_content,
            text_format,
            next_call: Arc::new(AtomicU64::new(1)),
            caller,
            refused: Arc::default(),
            revisions,
        }
    }

    /// Counts one refused call and answers how many of its tool, kind and
    /// reason this process has refused so far.
    fn count_refusal(&self, tool: ToolName, kind: ErrorKind, reason: Option<Reason>) -> u64 {
        let mut counts = self
            .refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = counts.entry((tool, kind, reason)).or_default();
        *count += 1;
        *count
    }

    async fn dispatch(&self, caller: &Caller, tool: ToolName, args: &JsonObject) -> ToolOutput {
        match tool {
            ToolName::WebSearch => self.services.web_search_as(caller, args).await,
            ToolName::WebFetch => self.services.web_fetch_as(caller, args).await,
            ToolName::EngineStatus => self.services.engine_status_as(caller, args).await,
        }
    }

    /// The served tool of that name: one of the core's tools that this
    /// configuration lists.
    fn served(&self, name: &str) -> Option<ToolName> {
        let tool = ToolName::parse(name)?;
        self.tools
            .iter()
            .any(|t| t.name == tool.as_str())
            .then_some(tool)
    }

    /// The caller of this call: the one the HTTP gate attached to the
    /// request, or the adapter's own (stdio).
    fn caller_of(&self, context: &RequestContext<RoleServer>) -> Caller {
        context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .unwrap_or_else(|| self.caller.clone())
    }

    /// Renders an output: structured content plus, as text, the same JSON
    /// or, when the operator chose Markdown, the same response rendered for
    /// reading (REQ-MCP-011, REQ-ERR-003).
    fn render(&self, output: &ToolOutput) -> CallToolResult {
        let (value, is_error) = match output {
            Ok(response) => (response.to_wire(), false),
            Err(error) => (error.to_wire(), true),
        };
        let text = match self.text_format {
            TextFormat::Json => value.to_string(),
            TextFormat::Markdown => markdown::render(output),
        };
        let text = vec![ContentBlock::text(text)];
        let mut result = if is_error {
            CallToolResult::error(text)
        } else {
            CallToolResult::success(text)
        };
        if self.structured_content {
            result.structured_content = Some(value);
        }
        result
    }
}

impl ServerHandler for Adapter {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rypsok", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(self.revisions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    /// Lets the SDK check `Mcp-Name` and `Mcp-Param-*` headers against the
    /// served tools (2026-07-28).
    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.served(&request.name) else {
            // The name is the caller's text: not echoed.
            return Err(ErrorData::invalid_params("unknown tool", None));
        };
        let call_id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let caller = self.caller_of(&context);
        let span = tracing::info_span!(
            "call",
            request_id = call_id,
            caller = caller.as_str(),
            tool = %tool.as_str()
        );
        let args = request.arguments.unwrap_or_default();
        let started = Instant::now();
        let work = async {
            tokio::select! {
                output = self.dispatch(&caller, tool, &args) => Some(output),
                // notifications/cancelled, or on HTTP a closed response
                // stream: dropping the work cancels it in every process
                // (REQ-MCP-007).
                () = context.ct.cancelled() => None,
            }
        }
        .instrument(span.clone());
        let Some(output) = work.await else {
            span.in_scope(|| {
                tracing::info!(event = "call_cancelled", "call cancelled by the client")
            });
            return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None));
        };
        let elapsed = started.elapsed();
        if let Some(metrics) = crate::metrics::get() {
            metrics.call(tool, &output, elapsed);
        }
        let latency_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        span.in_scope(|| match &output {
            Ok(response) => {
                let outcome = response.outcome().as_str();
                let count = response.result_count();
                let from_cache = response.from_cache_count();
                tracing::info!(
                    event = "call_done",
                    outcome,
                    count,
                    from_cache,
                    latency_ms,
                    "call answered"
                );
            }
            Err(error) => {
                let refused_count = self.count_refusal(tool, error.kind(), error.reason());
                tracing::info!(
                    event = "call_refused",
                    kind = error.kind().as_str(),
                    reason = error.reason().map_or("", |reason| reason.as_str()),
                    refused_count,
                    latency_ms,
                    "call answered with an error"
                );
            }
        });
        Ok(self.render(&output).into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A tools/call whose params do not parse (arguments not an object)
        // lands here; say what is wrong without echoing it.
        if request.method == "tools/call" {
            return Err(ErrorData::invalid_params(
                "tools/call takes a name and an arguments object",
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "method not found",
            None,
        ))
    }
}

/// A response of the HTTP service.
pub(crate) type HttpResponse = http::Response<BoxBody<Bytes, Infallible>>;

/// The SDK's Streamable HTTP service on `/mcp`: the 2026-07-28 revision
/// statelessly, the handshake-based revisions in sessions unless the
/// operator switched them off (REQ-MCP-006).
pub(crate) struct McpHttp {
    service: StreamableHttpService<Adapter, LocalSessionManager>,
    sessions: Arc<LocalSessionManager>,
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttp").finish_non_exhaustive()
    }
}

impl McpHttp {
    /// `stop` ends every session and open stream when cancelled.
    pub(crate) fn new(
        services: Arc<Services>,
        http: &HttpConfig,
        max_body_bytes: usize,
        stop: CancellationToken,
    ) -> Self {
        let handshake_revisions = services.config().service.handshake_revisions;
        let adapter = Adapter::new(services, Caller::remote("loopback"));
        let sessions = Arc::new(LocalSessionManager::default());
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        hosts.extend(http.allowed_hosts.iter().cloned());
        // Origin validation is on whatever the configuration lists: a
        // browser's request carries an Origin, and only a page of this
        // machine's loopback names or a listed origin passes, so a foreign
        // page cannot reach the listener by DNS rebinding (REQ-SEC-018). A
        // request without Origin (not a browser) passes.
        let mut origins: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
            .into_iter()
            .flat_map(|host| [format!("http://{host}:*"), format!("https://{host}:*")])
            .collect();
        origins.extend(http.allowed_origins.iter().cloned());
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            .with_max_request_body_bytes(max_body_bytes)
            .with_cancellation_token(stop)
            // Without the handshake revisions no session is opened, and a
            // request must name its revision in its header and metadata: the
            // SDK refuses one that does not before it reaches a handler.
            .with_legacy_session_mode(handshake_revisions)
            .with_stateless_protocol_metadata_required(!handshake_revisions);
        let service =
            StreamableHttpService::new(move || Ok(adapter.clone()), Arc::clone(&sessions), config);
        Self { service, sessions }
    }

    /// Answers one request whose body the gate has already read.
    pub(crate) async fn handle(&self, request: http::Request<Full<Bytes>>) -> HttpResponse {
        self.service.handle(request).await
    }

    /// The ids of the sessions of the handshake-based revisions now open
    /// (LIM-H6).
    pub(crate) async fn open_sessions(&self) -> Vec<String> {
        self.sessions
            .sessions
            .read()
            .await
            .keys()
            .map(|id| id.to_string())
            .collect()
    }

    /// Closes one session; its client's next request gets 404. Whether it
    /// was open.
    pub(crate) async fn close_session(&self, id: &str) -> bool {
        use rmcp::transport::streamable_http_server::session::SessionManager as _;
        let id: Arc<str> = Arc::from(id);
        self.sessions.close_session(&id).await.is_ok()
    }
}

#[cfg(test)]
mod tests;
