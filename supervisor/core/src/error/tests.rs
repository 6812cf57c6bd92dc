use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::*;
use crate::limits::ERROR_MESSAGE_MAX_CHARS;
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
    assert_serde_agrees(DetailKey::ALL, DetailKey::as_str);
}

// Verifies: REQ-ERR-004 (messages stay within LIM-I4)
#[test]
fn every_message_fits_the_error_bound() {
    let mut all = every_error();
    all.extend([
        ToolError::needs_scripts(),
        ToolError::too_large(u64::MAX),
        ToolError::no_text_layer(),
        ToolError::encrypted(),
        ToolError::url_too_long(usize::MAX),
        ToolError::start_char_beyond(u64::MAX),
        ToolError::http_status(u16::MAX, Some(u64::MAX)),
        ToolError::out_of_range("max_results", u64::MAX, u64::MAX),
    ]);
    for e in all {
        assert!(
            e.message().chars().count() <= ERROR_MESSAGE_MAX_CHARS,
            "{}",
            e.message()
        );
    }
}

/// The typed variant an error is, down to its reason: an exhaustive match,
/// so a new kind or reason does not build until it is named here.
fn variant(e: &ToolError) -> &'static str {
    match e {
        ToolError::InvalidRequest(_) => "InvalidRequest",
        ToolError::Denied(Denied::Egress(_)) => "Denied::Egress",
        ToolError::Denied(Denied::RobotsTxt) => "Denied::RobotsTxt",
        ToolError::Denied(Denied::Scheme(_)) => "Denied::Scheme",
        ToolError::Denied(Denied::StrictMode) => "Denied::StrictMode",
        ToolError::Denied(Denied::CredentialInUrl) => "Denied::CredentialInUrl",
        ToolError::Denied(Denied::SecretInQuery(_)) => "Denied::SecretInQuery",
        ToolError::Denied(Denied::SecretInUrl(_)) => "Denied::SecretInUrl",
        ToolError::Unavailable(Unavailable::NoEngine(_)) => "Unavailable::NoEngine",
        ToolError::Unavailable(Unavailable::AllFailed(_)) => "Unavailable::AllFailed",
        ToolError::Unavailable(Unavailable::RateLimited { .. }) => "Unavailable::RateLimited",
        ToolError::Unavailable(Unavailable::Network) => "Unavailable::Network",
        ToolError::Unavailable(Unavailable::Deadline(_)) => "Unavailable::Deadline",
        ToolError::Unavailable(Unavailable::HttpStatus { .. }) => "Unavailable::HttpStatus",
        ToolError::Unavailable(Unavailable::Busy(_)) => "Unavailable::Busy",
        ToolError::Redirected { .. } => "Redirected",
        ToolError::UnsupportedContent(Unsupported::MediaType(_)) => "Unsupported::MediaType",
        ToolError::UnsupportedContent(Unsupported::ExtractionFailed(_)) => {
            "Unsupported::ExtractionFailed"
        }
        ToolError::TooLarge { .. } => "TooLarge",
    }
}

// Verifies: REQ-ERR-002, REQ-SEC-016 (each kind and reason of §4 is said one way: one typed variant, one wire form)
#[test]
fn every_kind_and_reason_maps_to_its_wire_form_exactly_once() {
    let mut ways: BTreeMap<(&str, Option<String>), BTreeSet<&str>> = BTreeMap::new();
    for e in every_error() {
        let wire = e.to_wire();
        let kind = wire["error"]["kind"].as_str().unwrap().to_owned();
        let reason = wire["error"]["detail"]
            .get("reason")
            .map(|r| r.as_str().unwrap().to_owned());
        // The typed reading and the wire agree.
        assert_eq!(kind, e.kind().as_str(), "{e:?}");
        assert_eq!(reason.as_deref(), e.reason().map(Reason::as_str), "{e:?}");
        assert_eq!(wire["error"]["message"], json!(e.message()), "{e:?}");
        assert_eq!(wire["error"]["detail"], Value::Object(e.detail()), "{e:?}");
        ways.entry((e.kind().as_str(), reason))
            .or_default()
            .insert(variant(&e));
    }
    // The whole vocabulary of §4, each pair from one typed variant.
    let mut vocabulary: Vec<(&str, Option<String>)> = vec![
        ("invalid_request", None),
        ("redirected", None),
        ("too_large", None),
    ];
    let with = |kind: &'static str, words: Vec<&'static str>| {
        words.into_iter().map(move |w| (kind, Some(w.to_owned())))
    };
    vocabulary.extend(with("denied", DeniedReason::words()));
    vocabulary.extend(with("unavailable", UnavailableReason::words()));
    vocabulary.extend(with("unsupported_content", UnsupportedReason::words()));
    assert_eq!(
        ways.keys().cloned().collect::<BTreeSet<_>>(),
        vocabulary.into_iter().collect::<BTreeSet<_>>()
    );
    for (pair, variants) in &ways {
        assert_eq!(variants.len(), 1, "{pair:?} is said {variants:?} ways");
    }
    // And no two pairs share a variant.
    let variants: Vec<&str> = ways.values().flatten().copied().collect();
    assert_eq!(
        variants.len(),
        variants.iter().collect::<BTreeSet<_>>().len()
    );
}

// Verifies: REQ-ERR-002, REQ-ERR-004 (the wire form of each reason, byte for byte: static text plus numbers)
#[test]
fn renders_each_reason_on_the_wire_as_the_contract_says() {
    let rows = [
        (
            ToolError::denied_scheme(),
            "the URL scheme is not allowed: use https (http only where the operator allows it)",
            json!({"reason": "scheme"}),
        ),
        (
            ToolError::denied_upgrade_failed(),
            "the http URL was retried over https and that request failed; plain http is not allowed",
            json!({"reason": "scheme"}),
        ),
        (
            ToolError::denied_strict_mode(),
            "strict mode: only URLs web_search returned in this process or the operator allowed can be fetched",
            json!({"reason": "strict_mode", "refused": "not_allowed_strict"}),
        ),
        (
            ToolError::denied_egress(Refused::AddressClass(AddressClass::Loopback)),
            "the egress policy refuses this address: it is internal or special-purpose (see address_class)",
            json!({"reason": "egress", "refused": "address_class", "address_class": "loopback"}),
        ),
        (
            ToolError::denied_egress(Refused::UrlForm),
            "a URL this fetch leads to (a redirect target) cannot be requested",
            json!({"reason": "egress", "refused": "url_form"}),
        ),
        (
            ToolError::denied_robots_txt(),
            "the site's robots.txt does not allow rypsok to read this page",
            json!({"reason": "robots_txt"}),
        ),
        (
            ToolError::denied_credential_in_url(),
            "the URL names a user; remove the credentials from the URL",
            json!({"reason": "credential_in_url"}),
        ),
        (
            ToolError::secret_in_query(SecretKind::GithubToken, 9),
            "the query looks like it carries a credential; remove it and search again",
            json!({"reason": "secret_in_query", "kind": "github_token", "position": 9}),
        ),
        (
            ToolError::secret_in_url(SecretKind::UrlPassword, 8),
            "the URL looks like it carries a password or a credential; remove it",
            json!({"reason": "secret_in_url", "kind": "url_password", "position": 8}),
        ),
        (
            ToolError::search_deadline(),
            "no engine answered before the deadline; retry later",
            json!({"reason": "deadline"}),
        ),
        (
            ToolError::fetch_deadline(),
            "the page was not retrieved before the deadline; retry later",
            json!({"reason": "deadline"}),
        ),
        (
            ToolError::rate_limited(1500),
            "the tool's rate limit was reached; retry later",
            json!({"reason": "rate_limited", "retry_after_ms": 1500}),
        ),
        (
            ToolError::network(),
            "the site could not be reached",
            json!({"reason": "network"}),
        ),
        (
            ToolError::busy(),
            "too many calls are in flight; retry later",
            json!({"reason": "busy"}),
        ),
        (
            ToolError::no_engine(NoEngineFor::Arguments),
            "no enabled engine can serve this search (its category, time_range, language or query length)",
            json!({"reason": "no_engine"}),
        ),
        (
            ToolError::all_failed(vec![
                EngineCause {
                    engine: "duckduckgo".to_owned(),
                    cause: FailureCause::Resolve,
                },
                EngineCause {
                    engine: "brave".to_owned(),
                    cause: FailureCause::Auth,
                },
            ]),
            "every engine failed; the detail names why for each",
            json!({"reason": "all_failed", "engines": {"duckduckgo": "resolve", "brave": "auth"}}),
        ),
        (
            ToolError::http_status(503, Some(2000)),
            "the site answered with status 503; retry later",
            json!({"reason": "http_status", "status": 503, "retry_after_ms": 2000}),
        ),
        (
            ToolError::redirected("https://b.example/".to_owned()),
            "the page redirects to another host; fetch the location to follow it",
            json!({"location": "https://b.example/"}),
        ),
        (
            ToolError::unsupported_media_type("image/png".to_owned()),
            "the page's media type cannot be read; only HTML, XHTML, plain text, Markdown and PDF are",
            json!({"reason": "media_type", "media_type": "image/png"}),
        ),
        (
            ToolError::extraction_failed(),
            "no main content could be extracted from the page",
            json!({"reason": "extraction_failed"}),
        ),
        (
            ToolError::no_text_layer(),
            "the PDF has no text layer (its pages are images, as a scan's are); rypsok does not recognise text in images",
            json!({"reason": "extraction_failed"}),
        ),
        (
            ToolError::encrypted(),
            "the PDF is encrypted and needs a password; it cannot be read",
            json!({"reason": "extraction_failed"}),
        ),
        (
            ToolError::too_large(5_000_000),
            "the page is larger than the limit of 5000000 bytes",
            json!({"limit_bytes": 5_000_000}),
        ),
        (
            ToolError::start_char_beyond(10),
            "start_char must be below the content length of 10 characters",
            json!({"parameter": "start_char", "min": 0, "max": 9}),
        ),
    ];
    for (error, message, detail) in rows {
        assert_eq!(
            error.to_wire(),
            json!({"error": {"kind": error.kind().as_str(), "message": message, "detail": detail}}),
            "{error:?}"
        );
    }
}

// Verifies: REQ-ERR-002, REQ-SEC-016 (the detail keys are one vocabulary, and only external data is marked external)
#[test]
fn only_a_location_and_a_media_type_are_external() {
    for e in every_error() {
        for field in e.fields() {
            let external = matches!(field.value, DetailValue::External(_));
            assert_eq!(
                external,
                matches!(field.key, DetailKey::Location | DetailKey::MediaType),
                "{e:?}"
            );
        }
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
