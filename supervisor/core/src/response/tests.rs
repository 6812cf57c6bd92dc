//! Every kind of response and error, serialized, checked against the output
//! schema of its tool (REQ-MCP-005, REQ-MCP-011, REQ-ERR-002).
//!
//! The output schemas use six keywords (`type`, `enum`, `properties`,
//! `items`, `required`, `anyOf`), so a small checker below reads them, stricter than
//! JSON Schema in one way: an object may carry only the keys its schema
//! declares (unless it says `additionalProperties: true`), so a field the
//! schema does not publish fails. A general
//! validator crate would add a large dependency tree to every test build
//! for these six keywords.

use serde_json::{Value, json};

use super::*;
use crate::config::{Category, Config};
use crate::error::{Refused, every_error};
use crate::response::{DropReason, EngineErrorClass, NoticeCode, SkipReason};
use crate::tools::definitions;
use rypsok_egress::AddressClass;

/// Where `value` breaks `schema`, if anywhere.
fn violation(schema: &Value, value: &Value, at: &str) -> Option<String> {
    if let Some(choices) = schema.get("anyOf").and_then(Value::as_array)
        && choices
            .iter()
            .all(|choice| violation(choice, value, at).is_some())
    {
        return Some(format!("{at}: {value} fits none of anyOf"));
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return Some(format!("{at}: unreadable type")),
        };
        let fits = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "number" => value.is_number(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => false,
        });
        if !fits {
            return Some(format!("{at}: {value} is not {types:?}"));
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        return Some(format!("{at}: {value} is not in the enum"));
    }
    if let Some(object) = value.as_object() {
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(key) {
                return Some(format!("{at}: {key} is required"));
            }
        }
        let open = schema.get("additionalProperties") == Some(&Value::Bool(true));
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (key, item) in object {
                let Some(property) = properties.get(key) else {
                    if open {
                        continue;
                    }
                    return Some(format!("{at}: {key} is not in the schema"));
                };
                if let Some(v) = violation(property, item, &format!("{at}.{key}")) {
                    return Some(v);
                }
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            if let Some(v) = violation(items, item, &format!("{at}[{i}]")) {
                return Some(v);
            }
        }
    }
    None
}

fn output_schema(tool: &str) -> Value {
    definitions(&Config::defaults(), Category::ALL)
        .into_iter()
        .find(|t| t.name.as_str() == tool)
        .unwrap()
        .output_schema
}

fn assert_fits(tool: &str, value: &Value) {
    if let Some(v) = violation(&output_schema(tool), value, tool) {
        panic!("{v}\n{value:#}");
    }
}

/// One notice of every shape the pipelines build.
fn every_notice() -> Vec<Notice> {
    let mut notices = Vec::new();
    for &class in EngineErrorClass::ALL {
        notices.push(Notice::engine_failed("wikipedia", class));
    }
    for &reason in SkipReason::ALL {
        notices.push(Notice::engine_skipped("brave", reason));
    }
    for &reason in DropReason::ALL {
        notices.push(Notice::dropped(reason, 2));
    }
    for &code in NoticeCode::ALL {
        notices.push(Notice::counted(code, 1));
        notices.push(Notice::bare(code));
    }
    notices
}

fn result(date: Option<&str>, engines: Option<&[&str]>) -> SearchResult {
    SearchResult {
        title: "Title".to_owned(),
        url: "https://example.org/".to_owned(),
        snippet: "Snippet".to_owned(),
        date: date.map(str::to_owned),
        engines: engines.map(|ids| ids.iter().map(|&id| id.to_owned()).collect()),
    }
}

#[test]
fn every_search_response_fits_the_web_search_output_schema() {
    // Verifies: REQ-MCP-011, REQ-CTX-001
    for outcome in [Outcome::Ok, Outcome::Partial, Outcome::Empty] {
        let response = ToolResponse::Search(SearchResponse {
            outcome,
            notices: every_notice(),
            results: vec![
                result(None, None),
                result(Some("2026-09-01"), None),
                result(Some("2026-09-01"), Some(&["wikipedia", "brave"])),
            ],
        });
        assert_fits("web_search", &response.to_wire());
        assert_eq!(response.result_count(), 3);
    }
}

#[test]
fn every_fetch_response_fits_the_web_fetch_output_schema() {
    // Verifies: REQ-MCP-011, REQ-FETCH-005
    for next_start_char in [None, Some(3000)] {
        let response = ToolResponse::Fetch(FetchResponse {
            outcome: Outcome::Ok,
            notices: every_notice(),
            url: "https://example.org/".to_owned(),
            title: String::new(),
            content: "# Title\n\nText.".to_owned(),
            truncated: next_start_char.is_some(),
            next_start_char,
        });
        let wire = response.to_wire();
        assert_fits("web_fetch", &wire);
        assert_eq!(
            wire.get("next_start_char").is_some(),
            next_start_char.is_some()
        );
    }
}

#[test]
fn every_status_response_fits_the_engine_status_output_schema() {
    // Verifies: REQ-MCP-011, REQ-STATUS-002
    let mut engines: Vec<EngineReport> = EngineState::ALL
        .iter()
        .filter(|&&state| state != EngineState::Disabled)
        .map(|&state| EngineReport {
            id: "wikipedia".to_owned(),
            state,
            latency_ms: Some(120),
            reason: None,
            allowance: Some(Allowance::Keyless),
        })
        .collect();
    engines.extend(DisabledReason::ALL.iter().map(|&reason| EngineReport {
        id: "brave".to_owned(),
        state: EngineState::Disabled,
        latency_ms: None,
        reason: Some(reason),
        allowance: None,
    }));
    let response = ToolResponse::Status(StatusResponse {
        outcome: Outcome::Ok,
        notices: Vec::new(),
        engines,
    });
    let wire = response.to_wire();
    assert_fits("engine_status", &wire);
    // `latency_ms` is present as null, as the schema requires.
    assert_eq!(wire["engines"][3]["latency_ms"], Value::Null);
    assert_eq!(wire["engines"][3]["state"], json!("disabled"));
    assert_eq!(wire["engines"][0]["allowance"], json!("keyless"));
    assert!(wire["engines"][3].get("allowance").is_none());
}

#[test]
fn every_error_fits_every_tools_output_schema() {
    // Verifies: REQ-ERR-002, REQ-ERR-003
    for error in every_error() {
        let wire = error.to_wire();
        for tool in ["web_search", "web_fetch", "engine_status"] {
            assert_fits(tool, &wire);
        }
        assert_eq!(wire["error"]["kind"], json!(error.kind().as_str()));
        assert_eq!(
            wire["error"]["detail"]
                .get("reason")
                .and_then(Value::as_str),
            error.reason().map(|reason| reason.as_str())
        );
    }
}

#[test]
fn an_egress_denial_says_which_part_of_the_policy_refused() {
    // Verifies: REQ-SEC-016, REQ-ERR-002 (a closed detail, no address)
    let loopback =
        ToolError::denied_egress(Refused::AddressClass(AddressClass::Loopback)).to_wire();
    assert_eq!(loopback["error"]["kind"], json!("denied"));
    assert_eq!(
        loopback["error"]["detail"],
        json!({"reason": "egress", "refused": "address_class", "address_class": "loopback"})
    );
    let port = ToolError::denied_egress(Refused::Port).to_wire();
    assert_eq!(
        port["error"]["detail"],
        json!({"reason": "egress", "refused": "port"})
    );
    assert_ne!(port["error"]["message"], loopback["error"]["message"]);
    let strict = ToolError::denied_strict_mode().to_wire();
    assert_eq!(
        strict["error"]["detail"],
        json!({"reason": "strict_mode", "refused": "not_allowed_strict"})
    );
    // The fetch schema publishes the words: another word does not fit.
    let made_up = json!({"error": {"kind": "denied", "message": "m",
        "detail": {"reason": "egress", "refused": "firewall"}}});
    assert!(violation(&output_schema("web_fetch"), &made_up, "web_fetch").is_some());
}

#[test]
fn the_checker_refuses_what_the_schemas_do_not_publish() {
    // Verifies: REQ-MCP-011 (the check above can fail)
    let schema = output_schema("engine_status");
    let bad = [
        json!({"outcome": "partial", "notices": [], "engines": []}),
        json!({"outcome": "ok", "notices": [], "engines": [{"id": "x", "state": "closed"}]}),
        json!({"outcome": "ok", "notices": [], "engines": [], "endpoint": "https://x/"}),
        json!({"outcome": "ok", "notices": [{"reason": "timeout"}], "engines": []}),
        json!({"outcome": "ok", "notices": [], "engines": [{"id": "x", "state": "closed", "latency_ms": "1"}]}),
    ];
    for value in bad {
        assert!(
            violation(&schema, &value, "engine_status").is_some(),
            "{value}"
        );
    }
}
