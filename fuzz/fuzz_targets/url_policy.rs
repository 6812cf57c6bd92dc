//! The fetch URL policy (REQ-SEC-023, REQ-FETCH-001, REQ-SEC-006,
//! REQ-PRIV-002): a URL string to a verdict, under the default
//! configuration and under one with http allowed and strict mode on. The
//! input is tried as given and behind `https://`. Invariants: the verdict
//! is deterministic; an admitted URL is https (http only where allowed),
//! a literal address in it is global on a LIM-F8 port, and the URL as
//! admitted (its normalized spelling) is admitted again to the same host
//! (the secret check cannot be evaded by a spelling the parser rewrites);
//! a refusal's message is static text and numbers (no character the URL
//! could bring) and neither it nor its detail echoes a credential in it.
//! A URL refused for a credential stays refused for it with the
//! credential's first character percent-encoded, unless the encoding made
//! the URL too long, and stays refused with it encoded twice.
#![no_main]

use std::net::IpAddr;
use std::sync::LazyLock;

mod common;
use common::encode_at;

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::{load_config, url_policy};
use rypsok_core::{Config, ErrorKind};
use rypsok_egress::classify;
use rypsok_proto::limits::{DEFAULT_PORTS, URL_MAX_CHARS};

static CONFIGS: LazyLock<[Config; 2]> = LazyLock::new(|| {
    let loose = "[egress]\nallow_http = true\n[fetch]\nstrict_mode = true\n";
    [
        Config::defaults(),
        load_config(loose).expect("a valid configuration"),
    ]
});

fn check(config: &Config, text: &str) {
    let verdict = url_policy(config, text);
    match (&verdict, url_policy(config, text)) {
        (Ok(a), Ok(b)) => assert_eq!(a, &b),
        (Err(a), Err(b)) => assert_eq!((a.kind(), a.message()), (b.kind(), b.message())),
        _ => panic!("the verdict changed on re-evaluation: {text:?}"),
    }
    match verdict {
        Ok(admitted) => {
            let url = url::Url::parse(&admitted.url).expect("an admitted URL parses");
            assert!(
                url.scheme() == "https" || (url.scheme() == "http" && config.egress.allow_http),
                "{text:?}"
            );
            let port = url.port_or_known_default().unwrap_or(443);
            if let Ok(addr) = admitted.host.parse::<IpAddr>() {
                assert!(classify(addr).is_global(), "{text:?} reached {addr}");
                assert!(DEFAULT_PORTS.contains(&port), "{text:?}");
            }
            // Percent-encoding can lengthen a URL past LIM-F9, which bounds
            // what the caller writes: such a spelling is not judged again.
            if admitted.url.chars().count() > URL_MAX_CHARS {
                return;
            }
            match url_policy(config, &admitted.url) {
                Ok(again) => {
                    assert_eq!(again.host, admitted.host, "{text:?}");
                    assert_eq!(again.url, admitted.url, "{text:?}");
                    assert!(!again.upgraded);
                }
                Err(e) => panic!(
                    "{text:?} admitted as {} refused: {}",
                    admitted.url,
                    e.message()
                ),
            }
        }
        Err(e) => {
            let position = e
                .detail()
                .get("position")
                .and_then(serde_json::Value::as_u64);
            if e.detail().get("reason").and_then(serde_json::Value::as_str) == Some("secret_in_url")
                && e.detail().get("kind").and_then(serde_json::Value::as_str)
                    != Some("url_password")
                && !text.contains(['%', '+'])
                && let Some(at) = position.and_then(|p| usize::try_from(p).ok())
            {
                let encoded = encode_at(text, at);
                // Once: refused for the credential (or too long). Twice: still
                // refused (a host encoded twice no longer parses).
                match url_policy(config, &encoded) {
                    Err(again) if again.detail().get("reason") == e.detail().get("reason") => {}
                    Err(again) if again.detail().get("max").is_some() => {}
                    other => panic!("{text:?} refused, {encoded:?} not: {:?}", other.err()),
                }
                let twice = encoded.replace('%', "%25");
                assert!(
                    url_policy(config, &twice).is_err(),
                    "{text:?} refused, {twice:?} admitted"
                );
            }
            assert!(
                matches!(e.kind(), ErrorKind::InvalidRequest | ErrorKind::Denied),
                "{:?}",
                e.kind()
            );
            common::assert_static(&e.message());
            let detail = serde_json::to_string(&e.detail()).unwrap_or_default();
            assert!(detail.is_ascii(), "{detail}");
            for secret in common::credentials(text) {
                assert!(
                    !e.message().contains(&secret) && !detail.contains(&secret),
                    "{detail}"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for config in CONFIGS.iter() {
        check(config, text);
        if !text.contains("://") {
            check(config, &format!("https://{text}"));
        }
    }
});
