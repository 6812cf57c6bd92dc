#![allow(clippy::unwrap_used)]

use serde_json::json;

use super::*;
use crate::response::{
    DisabledReason, DropReason, EngineErrorClass, EngineState, NoticeCode, Outcome, SkipReason,
};

use crate::vocabulary::assert_serde_agrees;

// Verifies: REQ-SEC-016 (each vocabulary is spelled once: serde and as_str agree)
#[test]
fn vocabularies_spell_every_word_the_same_way_twice() {
    assert_serde_agrees(ErrorKind::ALL, ErrorKind::as_str);
    assert_serde_agrees(UnavailableReason::ALL, UnavailableReason::as_str);
    assert_serde_agrees(Outcome::ALL, Outcome::as_str);
    assert_serde_agrees(NoticeCode::ALL, NoticeCode::as_str);
    assert_serde_agrees(EngineErrorClass::ALL, EngineErrorClass::as_str);
    assert_serde_agrees(SkipReason::ALL, SkipReason::as_str);
    assert_serde_agrees(DropReason::ALL, DropReason::as_str);
    assert_serde_agrees(DeniedReason::ALL, DeniedReason::as_str);
    assert_serde_agrees(UnsupportedReason::ALL, UnsupportedReason::as_str);
    assert_serde_agrees(EngineState::ALL, EngineState::as_str);
    assert_serde_agrees(DisabledReason::ALL, DisabledReason::as_str);
    assert_serde_agrees(EgressRefused::ALL, EgressRefused::as_str);
}

// Verifies: REQ-ERR-004 (messages stay within LIM-I4)
#[test]
fn every_message_fits_the_error_bound() {
    let mut all = vec![
        ToolError::out_of_range("max_results", 1, 20),
        ToolError::bad_length("query", 1, 400),
        ToolError::wrong_type("max_results", "an integer"),
        ToolError::missing("query"),
        ToolError::not_allowed("category", &["general"]),
        ToolError::unknown_parameter(&["query"]),
        ToolError::unknown_parameter(&[]),
    ];
    all.extend(
        UnavailableReason::ALL
            .iter()
            .map(|&r| ToolError::unavailable(r, Some(1000))),
    );
    all.extend(
        DeniedReason::ALL
            .iter()
            .map(|&r| ToolError::denied_secret(r, "kind", 1)),
    );
    all.extend(
        EgressRefused::ALL
            .iter()
            .map(|&by| ToolError::denied_egress(Refused::by(by))),
    );
    all.extend([
        ToolError::denied_strict_mode(),
        ToolError::denied_upgrade_failed(),
        ToolError::http_status(404, None),
        ToolError::http_status(503, Some(3_600_000)),
        ToolError::fetch_deadline(),
        ToolError::redirected(String::new()),
        ToolError::unsupported_media_type(String::new()),
        ToolError::extraction_failed(),
        ToolError::needs_scripts(),
        ToolError::too_large(u64::MAX),
        ToolError::url_too_long(usize::MAX),
        ToolError::invalid_url(),
        ToolError::start_char_beyond(u64::MAX),
    ]);
    for e in all {
        assert!(
            e.message().chars().count() <= ERROR_MESSAGE_MAX_CHARS,
            "{}",
            e.message()
        );
    }
}

// Verifies: REQ-PAGE-006, REQ-FETCH-011 (a page that needs scripts is unsupported_content,
// extraction_failed, with a message that says so)
#[test]
fn a_page_needing_scripts_is_extraction_failed_with_its_own_message() {
    let e = ToolError::needs_scripts();
    let wire = e.to_wire();
    assert_eq!(wire["error"]["kind"], "unsupported_content");
    assert_eq!(
        wire["error"]["detail"],
        json!({"reason": "extraction_failed"})
    );
    assert!(e.message().contains("needs scripts to show its text"));
    assert_ne!(e.message(), ToolError::extraction_failed().message());
}

// Verifies: REQ-ERR-002 (the wire shape of §4)
#[test]
fn renders_the_error_object_of_the_contract() {
    let e = ToolError::out_of_range("max_results", 1, 20);
    assert_eq!(
        e.to_wire(),
        json!({"error": {"kind": "invalid_request", "message": "max_results must be between 1 and 20",
            "detail": {"parameter": "max_results", "min": 1, "max": 20}}})
    );
}

// Verifies: REQ-FETCH-011 (retry later with retry_after_ms for 408, 425, 429, 5xx; other 4xx: retrying will not help)
#[test]
fn http_status_says_whether_retrying_helps() {
    for status in [408, 425, 429, 500, 503] {
        let e = ToolError::http_status(status, Some(5000));
        assert!(e.message().ends_with("retry later"), "{}", e.message());
        assert_eq!(e.detail()["retry_after_ms"], json!(5000));
        assert_eq!(e.detail()["status"], json!(status));
        assert_eq!(e.detail()["reason"], json!("http_status"));
    }
    for status in [400, 403, 404, 410] {
        let e = ToolError::http_status(status, Some(5000));
        assert!(e.message().contains("will not help"), "{}", e.message());
        assert!(e.detail().get("retry_after_ms").is_none());
    }
}
