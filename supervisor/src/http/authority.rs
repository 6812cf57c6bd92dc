//! Whether a request names one authority the Host allowlist can judge
//! (REQ-SEC-018): the SDK checks the first `Host` and the first `Origin`
//! only, so a request that carries two of either, an empty `Host`, a
//! `Host` whose port is not a number (`127.0.0.1:8080.evil.example` reads
//! as host `127.0.0.1` to a lax parser), or a target or HTTP/2
//! `:authority` that differs from its `Host` is refused before it reaches
//! the SDK. No browser sends these; the DNS-rebinding defence must not
//! depend on that.

use http::{Request, header};

/// Whether the request's authority is ambiguous: it is then refused as the
/// SDK refuses a foreign Host or Origin.
pub(super) fn is_ambiguous<B>(request: &Request<B>) -> bool {
    let headers = request.headers();
    if headers.get_all(header::ORIGIN).iter().count() > 1 {
        return true;
    }
    let mut hosts = headers.get_all(header::HOST).iter();
    let Some(host) = hosts.next() else {
        // No Host: the SDK judges the target's authority (HTTP/2's
        // `:authority`) or answers 400.
        return false;
    };
    if hosts.next().is_some() {
        return true;
    }
    let Ok(host) = host.to_str() else {
        return true;
    };
    if !is_host_and_port(host) {
        return true;
    }
    // An absolute-form target (RFC 9112 §3.2.2) or HTTP/2's `:authority`
    // names the authority the client means: it must be the Host judged.
    request
        .uri()
        .authority()
        .is_some_and(|target| !target.as_str().eq_ignore_ascii_case(host))
}

/// `host[:port]` with a host of name or address characters and a port of
/// one to five digits; an IPv6 address in brackets.
fn is_host_and_port(text: &str) -> bool {
    let (host, port, bracketed) = if let Some(rest) = text.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return false;
        };
        match after {
            "" => (inside, None, true),
            _ => match after.strip_prefix(':') {
                Some(port) => (inside, Some(port), true),
                None => return false,
            },
        }
    } else {
        match text.split_once(':') {
            Some((host, port)) => (host, Some(port), false),
            None => (text, None, false),
        }
    };
    let host_ok = !host.is_empty()
        && host.bytes().all(|b| {
            if bracketed {
                b.is_ascii_hexdigit() || b == b':' || b == b'.'
            } else {
                b.is_ascii_alphanumeric() || b == b'-' || b == b'.'
            }
        });
    let port_ok = port.is_none_or(|p| {
        (1..=5).contains(&p.len())
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u16>().is_ok()
    });
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(target: &str, headers: &[(&str, &str)]) -> Request<()> {
        let mut builder = Request::builder().uri(target);
        for (k, v) in headers {
            builder = builder.header(*k, *v);
        }
        builder.body(()).unwrap_or_default()
    }

    // Verifies: REQ-SEC-018 (two Origins, a port that is not a number, an empty Host, two Hosts, a target naming another authority: each ambiguous; ordinary loopback requests are not)
    #[test]
    fn tells_ambiguous_authorities() {
        let host = [("host", "127.0.0.1:8080")];
        assert!(!is_ambiguous(&request("/mcp", &host)));
        assert!(!is_ambiguous(&request("/mcp", &[("host", "[::1]:8080")])));
        assert!(!is_ambiguous(&request("/mcp", &[("host", "localhost")])));
        assert!(!is_ambiguous(&request("/mcp", &[])));
        assert!(!is_ambiguous(&request("http://127.0.0.1:8080/mcp", &host)));
        assert!(is_ambiguous(&request(
            "/mcp",
            &[
                ("host", "127.0.0.1:8080"),
                ("origin", "http://127.0.0.1:8080"),
                ("origin", "http://evil.example")
            ]
        )));
        for bad in [
            "127.0.0.1:8080.evil.example",
            "",
            "127.0.0.1:",
            "[::1",
            "a b",
            "127.0.0.1:99999",
        ] {
            assert!(is_ambiguous(&request("/mcp", &[("host", bad)])), "{bad}");
        }
        assert!(is_ambiguous(&request(
            "/mcp",
            &[("host", "127.0.0.1:8080"), ("host", "127.0.0.1:8080")]
        )));
        assert!(is_ambiguous(&request("http://evil.example/mcp", &host)));
    }
}
