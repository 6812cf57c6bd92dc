use std::time::Duration;

use http::HeaderValue;
use rypsok_core::ToolError;
use rypsok_core::response::EngineErrorClass;
use rypsok_core::tools::ToolName;
use rypsok_egress::AddressClass;

use super::serve::{names_loopback, wants_openmetrics};
use super::*;

fn sample() -> Metrics {
    let metrics = Metrics::new();
    metrics.engines(&[("wiki".to_owned(), EngineState::Closed)]);
    metrics.call(
        ToolName::WebFetch,
        &Err(ToolError::denied_egress(
            rypsok_core::error::Refused::AddressClass(AddressClass::Private),
        )),
        Duration::from_millis(3),
    );
    metrics.call(
        ToolName::WebFetch,
        &Err(ToolError::denied_robots_txt()),
        Duration::from_millis(3),
    );
    metrics.call(
        ToolName::WebSearch,
        &Err(ToolError::rate_limited(1000)),
        Duration::from_millis(1),
    );
    metrics
}

// Verifies: REQ-OBS-007 (a refused fetch is counted by the refusing part and address class, a robots.txt refusal and a rate-limited call by themselves)
#[test]
fn counts_refusals_by_their_closed_words() {
    let text = sample().encode(false);
    assert!(
        text.contains(
            "rypsok_egress_refusals_total{part=\"address_class\",address_class=\"private\"} 1"
        ),
        "{text}"
    );
    assert!(text.contains("rypsok_robots_refusals_total 1"), "{text}");
    assert!(
        text.contains("rypsok_rate_limit_refusals_total{tool=\"web_search\"} 1"),
        "{text}"
    );
    assert!(
        text.contains(
            "rypsok_tool_calls_total{tool=\"web_fetch\",outcome=\"denied\",reason=\"egress\"} 1"
        ),
        "{text}"
    );
    assert!(
        text.contains("rypsok_engine_state{engine=\"wiki\",state=\"closed\"} 1"),
        "{text}"
    );
}

// Verifies: REQ-OBS-007 (the Prometheus text names a counter's samples in its HELP and TYPE, and has no OpenMetrics-only lines)
#[test]
fn prometheus_text_names_counters_by_their_samples() {
    let metrics = sample();
    let prometheus = metrics.encode(false);
    assert!(prometheus.contains("# TYPE rypsok_robots_refusals_total counter\n"));
    assert!(prometheus.contains("# HELP rypsok_robots_refusals_total Fetches denied"));
    assert!(!prometheus.contains("# EOF"));
    assert!(!prometheus.contains("# UNIT"));
    let openmetrics = metrics.encode(true);
    assert!(openmetrics.contains("# TYPE rypsok_robots_refusals counter\n"));
    assert!(openmetrics.contains("# UNIT rypsok_tool_call_duration_seconds seconds\n"));
    assert!(openmetrics.ends_with("# EOF\n"));
}

// Verifies: REQ-OBS-007 (OpenMetrics only when the scraper's Accept asks for it with a weight above zero)
#[test]
fn negotiates_openmetrics_from_accept() {
    let prometheus_scraper = HeaderValue::from_static(
        "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
    );
    assert!(wants_openmetrics(Some(&prometheus_scraper)));
    assert!(wants_openmetrics(Some(&HeaderValue::from_static(
        "Application/OpenMetrics-Text"
    ))));
    assert!(!wants_openmetrics(Some(&HeaderValue::from_static(
        "application/openmetrics-text;q=0, text/plain"
    ))));
    assert!(!wants_openmetrics(Some(&HeaderValue::from_static(
        "text/plain"
    ))));
    assert!(!wants_openmetrics(None));
}

// Verifies: REQ-OBS-007 (engine answers, cooldowns and cache use are counted with the engine's configured id only)
#[test]
fn records_what_the_core_observes() {
    let metrics: &'static Metrics = Box::leak(Box::new(Metrics::new()));
    let recorder = Recorder::new(metrics);
    recorder.engine_answered("wiki", None, Some(Duration::from_millis(120)));
    recorder.engine_answered("wiki", Some(EngineErrorClass::Timeout), None);
    recorder.cooldown_entered("wiki");
    recorder.engine_state("wiki", EngineState::Open);
    recorder.cache_lookup(false);
    recorder.cache_usage(3, 4096);
    let text = metrics.encode(false);
    for line in [
        "rypsok_engine_requests_total{engine=\"wiki\",result=\"ok\"} 1",
        "rypsok_engine_requests_total{engine=\"wiki\",result=\"timeout\"} 1",
        "rypsok_engine_request_duration_seconds_count{engine=\"wiki\"} 1",
        "rypsok_engine_cooldowns_total{engine=\"wiki\"} 1",
        "rypsok_engine_state{engine=\"wiki\",state=\"open\"} 1",
        "rypsok_engine_state{engine=\"wiki\",state=\"closed\"} 0",
        "rypsok_cache_lookups_total{result=\"miss\"} 1",
        "rypsok_cache_entries 3",
        "rypsok_cache_size_bytes 4096",
    ] {
        assert!(text.contains(line), "{line} missing from\n{text}");
    }
}

/// The book's metric table, written from the registry: each family's
/// exposed name, type, labels and help, in registration order.
fn metric_table() -> String {
    // Every family needs a series to be shown: touch the ones `sample`
    // leaves empty.
    let all = Recorder(Box::leak(Box::new(sample())));
    all.engine_answered("wiki", None, Some(Duration::from_millis(1)));
    all.cache_lookup(true);
    all.cache_usage(0, 0);
    all.0.worker_killed(WorkerKind::Net, KillCause::Deadline);
    all.0.worker_started(WorkerKind::Net, &Confinement::NONE);
    all.0.http_refused("unauthorized");
    all.0.http_connection(0);
    all.0.http_sessions(0);
    all.0.redirects.inc_by(0);
    let _ = all.0.notices.get_or_create(&NoticeLabel {
        tool: "web_search",
        code: "from_cache",
    });
    let text = all.0.encode(false);
    let mut rows = vec![
        "| metric | type | labels | what it counts |".to_owned(),
        "|---|---|---|---|".to_owned(),
    ];
    let mut help = "";
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            help = rest.split_once(' ').map_or("", |(_, h)| h);
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            let sample_line = text
                .lines()
                .find(|l| !l.starts_with('#') && l.starts_with(name))
                .unwrap_or_default();
            let labels: Vec<String> = sample_line
                .split_once('{')
                .map(|(_, l)| l.split('}').next().unwrap_or_default())
                .unwrap_or_default()
                .split(',')
                .filter_map(|pair| pair.split_once('=').map(|(k, _)| k))
                .filter(|k| *k != "le")
                .map(|k| format!("`{k}`"))
                .collect();
            let labels = if labels.is_empty() {
                "none".to_owned()
            } else {
                labels.join(", ")
            };
            rows.push(format!("| `{name}` | {kind} | {labels} | {help} |"));
        }
    }
    rows.join("\n") + "\n"
}

// Verifies: REQ-OBS-007 (the book's metric list is the registry's: every metric, its type, labels and help; RYPSOK_BLESS=1 rewrites it)
#[test]
fn the_book_lists_every_metric_of_the_registry() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packaging/docs/src/monitoring.md");
    let page = std::fs::read_to_string(&path).unwrap_or_default();
    let (begin, end) = ("<!-- metrics: begin -->\n", "<!-- metrics: end -->");
    let table = metric_table();
    let start = page.find(begin).map(|i| i + begin.len());
    let stop = page.find(end);
    let written = match (start, stop) {
        (Some(start), Some(stop)) if start <= stop => &page[start..stop],
        _ => "",
    };
    if written != table
        && std::env::var_os("RYPSOK_BLESS").is_some()
        && let (Some(start), Some(stop)) = (start, stop)
    {
        let blessed = format!("{}{table}{}", &page[..start], &page[stop..]);
        std::fs::write(&path, blessed).unwrap_or_default();
        return;
    }
    assert_eq!(
        written,
        table,
        "the metric list in {} is not the registry's (RYPSOK_BLESS=1 rewrites it)",
        path.display()
    );
    // 21 families: every one the issue lists.
    assert_eq!(table.lines().count(), 2 + 21, "{table}");
}

// Verifies: REQ-SEC-018 (a listener without a token answers loopback names only: a rebound name is refused)
#[test]
fn a_tokenless_listener_answers_loopback_hosts_only() {
    let with_hosts = |hosts: &[&str]| {
        let mut headers = http::HeaderMap::new();
        for host in hosts {
            headers.append(http::header::HOST, HeaderValue::from_str(host).unwrap());
        }
        names_loopback(&headers)
    };
    for host in [
        "127.0.0.1:9464",
        "127.0.0.1",
        "127.1.2.3:80",
        "localhost:9464",
        "LOCALHOST",
        "[::1]:9464",
        "[::1]",
    ] {
        assert!(with_hosts(&[host]), "{host}");
    }
    for host in [
        "rebound.example:9464",
        "rebound.example",
        "localhost.rebound.example:9464",
        "127.0.0.1.rebound.example",
        "10.0.0.1:9464",
        "[::2]:9464",
        "127.0.0.1:9464:1",
        "[::1]9464",
        "127.0.0.1:",
        "",
    ] {
        assert!(!with_hosts(&[host]), "{host}");
    }
    assert!(!with_hosts(&[]), "no Host");
    assert!(
        !with_hosts(&["127.0.0.1:9464", "rebound.example"]),
        "two Hosts"
    );
}
