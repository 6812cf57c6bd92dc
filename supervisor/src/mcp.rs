//! The MCP adapter: the only code that knows the SDK (I9, REQ-ARCH-005).
//!
//! `list_tools` and `call_tool` are written by hand rather than with the
//! SDK's macros: the tool list depends on the configuration, and typed
//! parameters would turn a bad argument into a protocol error that can echo
//! the caller's input. The raw argument object goes to the core, which
//! validates it and answers `invalid_request` without echoing anything.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use rypsok_core::tools::{DESTRUCTIVE, IDEMPOTENT, INSTRUCTIONS, READ_ONLY, ToolDefinition};
use rypsok_core::{Services, ToolOutput};
use serde_json::Value;
use tracing::Instrument;

/// The MCP server of one process.
pub(crate) struct Adapter {
    services: Arc<Services>,
    tools: Vec<Tool>,
    structured_content: bool,
    /// rypsok's own call ids for logs: the JSON-RPC id is the client's text.
    next_call: AtomicU64,
    caller: &'static str,
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
    let tool = Tool::new(def.name, def.description, schema_object(def.input_schema))
        .with_annotations(annotations);
    if structured_content {
        tool.with_raw_output_schema(schema_object(def.output_schema))
    } else {
        tool
    }
}

impl Adapter {
    pub(crate) fn new(services: Arc<Services>, caller: &'static str) -> Self {
        // The configuration of a process is immutable, so the list is built once.
        let structured_content = services.config().service.structured_content;
        let tools = services
            .tool_definitions()
            .into_iter()
            .map(|def| to_tool(def, structured_content))
            .collect();
        Self {
            services,
            tools,
            structured_content,
            next_call: AtomicU64::new(1),
            caller,
        }
    }

    async fn dispatch(&self, name: &str, args: &JsonObject) -> Option<ToolOutput> {
        Some(match name {
            "web_search" => self.services.web_search(args).await,
            "web_fetch" => self.services.web_fetch(args).await,
            "engine_status" => self.services.engine_status(args).await,
            _ => return None,
        })
    }

    /// Renders an output: structured content plus the same JSON as text
    /// (REQ-MCP-011, REQ-ERR-003).
    fn render(&self, output: ToolOutput) -> CallToolResult {
        let (value, is_error) = match output {
            Ok(value) => (value, false),
            Err(error) => (error.to_json(), true),
        };
        let text = vec![ContentBlock::text(value.to_string())];
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

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self
            .tools
            .iter()
            .find(|t| t.name == request.name)
            .map(|t| t.name.clone())
        else {
            // The name is the caller's text: not echoed.
            return Err(ErrorData::invalid_params("unknown tool", None));
        };
        let call_id = self.next_call.fetch_add(1, Ordering::Relaxed);
        let span =
            tracing::info_span!("call", request_id = call_id, caller = self.caller, tool = %tool);
        let args = request.arguments.unwrap_or_default();
        let started = Instant::now();
        let work = async {
            tokio::select! {
                output = self.dispatch(&tool, &args) => Some(output),
                // notifications/cancelled: dropping the work cancels it in
                // every process (REQ-MCP-007).
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
        let Some(output) = output else {
            return Err(ErrorData::invalid_params("unknown tool", None));
        };
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        span.in_scope(|| match &output {
            Ok(value) => {
                let outcome = value
                    .get("outcome")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let count = value
                    .get("results")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                tracing::info!(
                    event = "call_done",
                    outcome,
                    count,
                    latency_ms,
                    "call answered"
                );
            }
            Err(error) => {
                let reason = error
                    .detail
                    .get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                tracing::info!(
                    event = "call_refused",
                    kind = error.kind.as_str(),
                    reason,
                    latency_ms,
                    "call answered with an error"
                );
            }
        });
        Ok(self.render(output).into())
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
