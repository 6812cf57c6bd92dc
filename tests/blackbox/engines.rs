//! The science, news and code engines (issue: official engines beyond
//! Wikipedia) on loopback fakes that serve their fixtures (provenance:
//! worker-parse/testdata/<engine>/PROVENANCE.md): several engines of one
//! category merge, a failing or rate-limited engine leaves a partial answer
//! with its notice, a provider's backoff rests the engine, and arXiv's pace
//! skips it when the next slot is past what the deadline allows.

use serde_json::{Value, json};

use crate::support::{FakeHttp, Reply, Server, structured, workspace_file};

fn fixture(relative: &str) -> Vec<u8> {
    std::fs::read(workspace_file(&format!("worker-parse/testdata/{relative}"))).expect("fixture")
}

/// One engine of `kind` named `id` on the fake at `port`.
fn engine(id: &str, kind: &str, port: u16, path: &str) -> String {
    format!(
        "[engines.{id}]\ntype = \"{kind}\"\nendpoint = \"http://127.0.0.1:{port}{path}\"\ntimeout_ms = 1200\n"
    )
}

fn config(ports: &[u16], engines: &[String]) -> String {
    let allow: Vec<String> = ports.iter().map(|p| format!("\"127.0.0.1:{p}\"")).collect();
    format!(
        "[service]\ncontact = \"ops@example.org\"\n[search]\ndeadline_ms = 2500\ngrace_ms = 200\n\
         [egress]\nallow = [{}]\n{}",
        allow.join(", "),
        engines.concat()
    )
}

fn urls(body: &Value) -> Vec<&str> {
    body["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["url"].as_str())
        .collect()
}

fn notices(body: &Value) -> &Vec<Value> {
    body["notices"].as_array().expect("notices")
}

// Verifies: REQ-ENG-007, REQ-RANK-004, REQ-ENG-012 (science: Crossref, OpenAlex and arXiv merged; DOI links first-hand)
#[test]
fn a_science_search_merges_crossref_openalex_and_arxiv() {
    let crossref = FakeHttp::start(Reply::json(&fixture(
        "crossref/works_query_ecology_rows2.json",
    )));
    let openalex = FakeHttp::start(Reply::json(&fixture(
        "openalex/works_search_machine_learning_public_health_trimmed.json",
    )));
    let arxiv = FakeHttp::start(
        Reply::json(&fixture("arxiv/query_all_science_2019_first3.xml"))
            .with_status(200, "application/atom+xml; charset=UTF-8"),
    );
    let text = config(
        &[crossref.port(), openalex.port(), arxiv.port()],
        &[
            engine("crossref", "crossref", crossref.port(), "/works"),
            engine("openalex", "openalex", openalex.port(), "/works"),
            engine("arxiv", "arxiv", arxiv.port(), "/api/query"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let result = server.call(
        "web_search",
        json!({"query": "ecology", "category": "science", "max_results": 20}),
    );
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    let urls = urls(body);
    assert_eq!(urls.len(), 7, "{result}");
    for expected in [
        "https://doi.org/10.1093/obo/9780199830060-0238",
        "https://doi.org/10.4081/gh.2014.294",
        "http://arxiv.org/abs/1501.05039v1",
    ] {
        assert!(urls.contains(&expected), "{expected} missing: {result}");
    }
    let openalex_hit = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["url"] == json!("https://doi.org/10.4081/gh.2014.294"))
        .unwrap();
    assert_eq!(openalex_hit["date"], json!("2014-12-01"));
    assert!(
        openalex_hit["snippet"]
            .as_str()
            .unwrap()
            .starts_with("Existing climate classification"),
        "{openalex_hit}"
    );
    // Each provider was asked once, with the contact as its mailto where
    // it takes one.
    let seen = crossref.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].target.contains("query=ecology"),
        "{}",
        seen[0].target
    );
    assert!(
        seen[0].target.contains("mailto=ops%40example.org"),
        "{}",
        seen[0].target
    );
    assert!(
        arxiv.seen()[0]
            .target
            .contains("search_query=all%3Aecology")
    );
}

// Verifies: REQ-AGG-004, REQ-ENG-006, REQ-ENG-009 (news: GDELT's plain-text rate limit beside Hacker News)
#[test]
fn a_news_search_is_partial_when_gdelt_is_rate_limited() {
    let hackernews = FakeHttp::start(Reply::json(&fixture(
        "hackernews/written_search_rust_stories.json",
    )));
    let gdelt = FakeHttp::start(
        Reply::json(&fixture("gdelt/written_rate_limit.txt"))
            .with_status(200, "text/plain; charset=utf-8"),
    );
    let text = config(
        &[hackernews.port(), gdelt.port()],
        &[
            engine(
                "hackernews",
                "hackernews",
                hackernews.port(),
                "/api/v1/search",
            ),
            engine("gdelt", "gdelt", gdelt.port(), "/api/v2/doc/doc"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let result = server.call("web_search", json!({"query": "rust", "category": "news"}));
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("partial"), "{result}");
    assert!(
        notices(body).contains(
            &json!({"code": "engine_unavailable", "engine": "gdelt", "reason": "rate_limited"})
        ),
        "{result}"
    );
    assert_eq!(
        urls(body),
        [
            "http://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
            "https://news.ycombinator.com/item?id=39000001"
        ]
    );
    // The rate-limited engine rests: the next call skips it.
    let again = server.call("web_search", json!({"query": "rust", "category": "news"}));
    assert!(
        notices(structured(&again))
            .contains(&json!({"code": "engine_skipped", "engine": "gdelt", "reason": "cooldown"})),
        "{again}"
    );
    assert_eq!(gdelt.seen().len(), 1);
}

// Verifies: REQ-ENG-007, REQ-ENG-010 (GDELT is not sent what it refuses: short words left out, a query of short words alone skipped)
#[test]
fn gdelt_is_not_sent_the_query_shapes_it_refuses() {
    let hackernews = FakeHttp::start(Reply::json(&fixture(
        "hackernews/written_search_rust_stories.json",
    )));
    let gdelt = FakeHttp::start(Reply::json(&fixture("gdelt/written_artlist_climate.json")));
    let text = config(
        &[hackernews.port(), gdelt.port()],
        &[
            engine("hn", "hackernews", hackernews.port(), "/api/v1/search"),
            engine("gdelt", "gdelt", gdelt.port(), "/api/v2/doc/doc"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let result = server.call("web_search", json!({"query": "AI", "category": "news"}));
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    assert!(
        notices(body).contains(
            &json!({"code": "engine_skipped", "engine": "gdelt", "reason": "query_too_short"})
        ),
        "{result}"
    );
    assert!(gdelt.seen().is_empty(), "nothing sent to be refused");
    let result = server.call(
        "web_search",
        json!({"query": "AI (climate OR summit)", "category": "news"}),
    );
    assert_eq!(structured(&result)["outcome"], json!("ok"), "{result}");
    let seen = gdelt.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].target.contains("query=climate+summit&"),
        "{}",
        seen[0].target
    );
}

// Verifies: REQ-AGG-004, REQ-CMP-002, REQ-CMP-003 (code: GitHub failing, Stack Exchange's backoff kept, its results attributed)
#[test]
fn a_code_search_keeps_stack_exchanges_backoff_beside_a_failing_github() {
    let stackexchange = FakeHttp::start(Reply::json(&fixture(
        "stackexchange/written_search_advanced_borrow_checker.json",
    )));
    let github = FakeHttp::start(
        Reply::json(br#"{"message":"Server Error"}"#).with_status(500, "application/json"),
    );
    let text = config(
        &[stackexchange.port(), github.port()],
        &[
            engine(
                "stackexchange",
                "stackexchange",
                stackexchange.port(),
                "/2.3/search/advanced",
            ),
            engine("github", "github", github.port(), "/search/repositories"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let result = server.call(
        "web_search",
        json!({"query": "borrow checker", "category": "code"}),
    );
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("partial"), "{result}");
    assert!(
        notices(body).contains(
            &json!({"code": "engine_unavailable", "engine": "github", "reason": "request_failure"})
        ),
        "{result}"
    );
    let first = &body["results"][0];
    assert_eq!(
        first["url"],
        json!(
            "https://stackoverflow.com/questions/30200000/why-does-the-borrow-checker-reject-this-loop"
        )
    );
    assert_eq!(
        first["snippet"],
        json!("Score 112 · 3 answers, one accepted · rust, borrow-checker")
    );
    // CC BY-SA: results name their engine.
    assert_eq!(first["engines"], json!(["stackexchange"]));
    // The answer asked for ten seconds' pause: the next call does not ask
    // Stack Exchange again (GitHub alone is asked, and fails again, so the
    // call has nothing to return).
    let again = server.call(
        "web_search",
        json!({"query": "borrow checker", "category": "code"}),
    );
    assert!(!again.to_string().contains("stackoverflow.com"), "{again}");
    assert_eq!(stackexchange.seen().len(), 1);
    assert_eq!(github.seen().len(), 2);
}

// Verifies: REQ-RES-002, REQ-CMP-002 (GitHub's spent window, x-ratelimit-remaining 0, rests it until x-ratelimit-reset)
#[test]
fn github_rests_until_its_rate_window_resets_when_an_answer_spends_it() {
    let stackexchange = FakeHttp::start(Reply::json(&fixture(
        "stackexchange/written_search_advanced_no_items.json",
    )));
    // The last request of the window: the reset is a minute after the
    // answer's own Date (both on GitHub's clock).
    let github = FakeHttp::start(
        Reply::json(&fixture("github/written_search_repositories_tetris.json"))
            .with_header("date", "Tue, 14 Nov 2023 22:13:20 GMT")
            .with_header("x-ratelimit-limit", "10")
            .with_header("x-ratelimit-remaining", "0")
            .with_header("x-ratelimit-reset", "1700000060"),
    );
    let text = config(
        &[stackexchange.port(), github.port()],
        &[
            engine(
                "stackexchange",
                "stackexchange",
                stackexchange.port(),
                "/2.3/search/advanced",
            ),
            engine("github", "github", github.port(), "/search/repositories"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let query = json!({"query": "tetris", "category": "code"});
    let first = server.call("web_search", query.clone());
    let body = structured(&first);
    assert_eq!(body["outcome"], json!("ok"), "{first}");
    assert!(
        urls(body).contains(&"https://github.com/dtrupenn/Tetris"),
        "{first}"
    );
    let second = server.call("web_search", query);
    let body = structured(&second);
    assert!(
        notices(body).contains(
            &json!({"code": "engine_skipped", "engine": "github", "reason": "rate_limited"})
        ),
        "{second}"
    );
    assert_eq!(
        github.seen().len(),
        1,
        "GitHub was asked inside its spent window"
    );
    assert_eq!(stackexchange.seen().len(), 2);
}

// Verifies: REQ-CMP-002, REQ-ENG-007, REQ-SEARCH-005 (arXiv's pace: the next slot past the deadline skips it)
#[test]
fn arxiv_is_skipped_when_its_pace_leaves_no_room_before_the_deadline() {
    let crossref = FakeHttp::start(Reply::json(&fixture(
        "crossref/works_query_ecology_rows2.json",
    )));
    let arxiv = FakeHttp::start(
        Reply::json(&fixture("arxiv/query_all_science_2019_first3.xml"))
            .with_status(200, "application/atom+xml"),
    );
    let text = config(
        &[crossref.port(), arxiv.port()],
        &[
            engine("crossref", "crossref", crossref.port(), "/works"),
            engine("arxiv", "arxiv", arxiv.port(), "/api/query"),
        ],
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let first = server.call(
        "web_search",
        json!({"query": "science", "category": "science"}),
    );
    assert_eq!(structured(&first)["outcome"], json!("ok"), "{first}");
    // At once again: arXiv's next slot is three seconds after the first,
    // past this call's 2.5 s deadline less the time a request needs.
    let second = server.call(
        "web_search",
        json!({"query": "science", "category": "science"}),
    );
    let body = structured(&second);
    assert_eq!(body["outcome"], json!("ok"), "{second}");
    assert!(
        notices(body).contains(
            &json!({"code": "engine_skipped", "engine": "arxiv", "reason": "rate_limited"})
        ),
        "{second}"
    );
    assert_eq!(arxiv.seen().len(), 1);
    assert_eq!(crossref.seen().len(), 2);
}

// Verifies: REQ-STATUS-001 (every configured engine, a disabled SearXNG among them)
#[test]
fn engine_status_lists_every_configured_engine() {
    let hackernews = FakeHttp::start(Reply::json(&fixture(
        "hackernews/written_search_no_hits.json",
    )));
    let mut text = config(
        &[hackernews.port()],
        &[engine(
            "hackernews",
            "hackernews",
            hackernews.port(),
            "/api/v1/search",
        )],
    );
    text.push_str(
        &format!(
            "[engines.mine]\ntype = \"searxng\"\nendpoint = \"http://127.0.0.1:{}/search\"\nenabled = false\n\
             [engines.papers]\ntype = \"openalex\"\nenabled = false\n",
            hackernews.port()
        ),
    );
    let mut server = Server::start(Some(&text));
    server.initialize();
    let status = server.call("engine_status", json!({}));
    assert_eq!(
        structured(&status)["engines"],
        json!([
            {"id": "hackernews", "state": "closed", "latency_ms": null},
            {"id": "mine", "state": "disabled", "latency_ms": null, "reason": "disabled"},
            {"id": "papers", "state": "disabled", "latency_ms": null, "reason": "disabled"}
        ])
    );
}

/// Runs `rypsok check --online` on `config`: exit code, stdout.
#[allow(clippy::disallowed_methods)] // the binary under test, as cli.rs starts it
fn check_online(config: &str) -> (Option<i32>, String) {
    let dir = crate::support::TempDir::new("online");
    let path = dir.write("rypsok.toml", config);
    let out = std::process::Command::new(crate::support::binary())
        .args(["check", "--online", "--config"])
        .arg(&path)
        .env_clear()
        .output()
        .expect("run check --online");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

// Verifies: REQ-TEST-003 (check --online probes every enabled engine through the real workers and names each failure class)
#[test]
fn check_online_probes_every_enabled_engine_and_names_each_failure() {
    let crossref = FakeHttp::start(Reply::json(&fixture(
        "crossref/works_query_ecology_rows2.json",
    )));
    let openalex = FakeHttp::start(
        Reply::json(&fixture("openalex/written_403_rate_limit_exceeded.json"))
            .with_status(403, "application/json"),
    );
    let hackernews = FakeHttp::start(Reply::json(b"busy").with_status(500, "text/plain"));
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let text = config(
        &[crossref.port(), openalex.port(), hackernews.port(), closed],
        &[
            engine("crossref", "crossref", crossref.port(), "/works"),
            engine("openalex", "openalex", openalex.port(), "/works"),
            engine("hn", "hackernews", hackernews.port(), "/api/v1/search"),
            engine("gone", "gdelt", closed, "/api/v2/doc/doc"),
            "[engines.arxiv]\ntype = \"arxiv\"\nenabled = false\n".to_owned(),
        ],
    );
    let (code, stdout) = check_online(&text);
    assert_eq!(code, Some(1), "{stdout}");
    for line in [
        "configuration valid",
        "  crossref (crossref): answered with 2 results",
        "  openalex (openalex): failed: rate limit",
        "  openalex (openalex): keyless: about ten searches a day",
        "  hn (hackernews): failed: HTTP 500",
        "  gone (gdelt): failed: connect",
        "  arxiv (arxiv): not probed: disabled",
        "3 enabled engine(s) failed",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(line)),
            "{line:?} missing:\n{stdout}"
        );
    }
    // Nothing but the probe query was sent, once per engine.
    let seen = crossref.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].target.contains("rust+programming+language")
            || seen[0].target.contains("rust%20programming%20language"),
        "{}",
        seen[0].target
    );

    // Every enabled engine answering: exit 0.
    let text = config(
        &[crossref.port()],
        &[engine("crossref", "crossref", crossref.port(), "/works")],
    );
    let (code, stdout) = check_online(&text);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("every enabled engine answered"), "{stdout}");
}

// Verifies: REQ-SEC-017, REQ-SEC-006 (an engine endpoint written as an address needs no allow rule and is reached by its engine alone: web_fetch to it stays denied, and check names it)
#[test]
fn an_endpoint_written_as_an_address_is_reached_by_its_engine_alone() {
    let fake = FakeHttp::start(Reply::json(&fixture(
        "wikipedia/en_search_counter_strike_2021.json",
    )));
    let port = fake.port();
    let config = format!(
        "[service]\ncontact = \"ops@example.org\"\n[search]\ndeadline_ms = 2500\ngrace_ms = 200\n\
         [egress]\nallow_http = true\n{}",
        engine("wiki", "wikipedia", port, "/w/api.php")
    );

    let dir = crate::support::TempDir::new("endpoint");
    // Black-box tests start the binary as an operator would.
    #[allow(clippy::disallowed_methods)]
    let check = std::process::Command::new(crate::support::binary())
        .arg("check")
        .arg("--config")
        .arg(dir.write("rypsok.toml", &config))
        .env_remove("RYPSOK_CONFIG")
        .output()
        .expect("run check");
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        stdout.contains(&format!(
            "engine wiki: endpoint 127.0.0.1:{port} admitted for this engine only"
        )),
        "{stdout}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );

    let mut server = Server::start(Some(&config));
    server.initialize();
    let search = server.call("web_search", json!({"query": "counter strike"}));
    assert_eq!(structured(&search)["outcome"], json!("ok"), "{search}");
    let seen = fake.seen().len();
    assert_eq!(seen, 1);
    let fetch = server.call(
        "web_fetch",
        json!({"url": format!("http://127.0.0.1:{port}/w/api.php?search=x")}),
    );
    let error = &structured(&fetch)["error"];
    assert_eq!(error["kind"], json!("denied"), "{fetch}");
    assert_eq!(error["detail"]["reason"], json!("egress"), "{fetch}");
    assert_eq!(fake.seen().len(), seen, "web_fetch reached the endpoint");
}
