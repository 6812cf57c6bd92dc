//! The optional keys of OpenAlex (its `api_key` parameter) and SearXNG (the
//! `Authorization` header of the proxy in front of the operator's instance)
//! on loopback fakes: the provider sees the key when the operator names
//! one and nothing when not, and the key appears in no answer and no log
//! line.

use serde_json::{Value, json};

use crate::support::{FakeHttp, Reply, Server, TempDir, structured, workspace_file};

/// A key that is no real provider's, in no format the secret check knows.
const OPENALEX_KEY: &str = "rypsok-test-openalex-key-4711";
/// Basic credentials `rypsok:not-secret`.
const SEARXNG_AUTHORIZATION: &str = "Basic cnlwc29rOm5vdC1zZWNyZXQ=";

fn fixture(relative: &str) -> Vec<u8> {
    std::fs::read(workspace_file(&format!("worker-parse/testdata/{relative}"))).expect("fixture")
}

fn config(port: u16, engine: &str) -> String {
    format!(
        "[service]\ncontact = \"ops@example.org\"\n[search]\ndeadline_ms = 2500\ngrace_ms = 200\n\
         [egress]\nallow = [\"127.0.0.1:{port}\"]\n{engine}"
    )
}

/// Searches once and checks that the answer has results and never the
/// secret, nor `engine_status`, nor the log.
fn search_without_leaking(server: &mut Server, category: &str, secret: &str) {
    server.initialize();
    let result = server.call(
        "web_search",
        json!({"query": "ecology", "category": category}),
    );
    let body = structured(&result);
    assert_eq!(body["outcome"], json!("ok"), "{result}");
    assert!(!body["results"].as_array().expect("results").is_empty());
    let status = server.call("engine_status", json!({}));
    let log: Vec<Value> = server.log();
    for text in [result.to_string(), status.to_string()]
        .into_iter()
        .chain(log.iter().map(Value::to_string))
    {
        assert!(!text.contains(secret), "the key leaked: {text}");
    }
}

/// The `allowance` `engine_status` gives the engine `openalex`.
fn openalex_allowance(server: &mut Server) -> Value {
    let status = server.call("engine_status", json!({}));
    let engines = structured(&status)["engines"]
        .as_array()
        .expect("engines")
        .clone();
    let openalex = engines
        .iter()
        .find(|e| e["id"] == json!("openalex"))
        .expect("openalex");
    openalex.get("allowance").cloned().unwrap_or(Value::Null)
}

// Verifies: REQ-CFG-004, REQ-STATUS-001, REQ-STATUS-002 (OpenAlex's optional key travels as api_key, only when named; keyless, engine_status says so)
#[test]
fn openalex_sends_its_key_only_when_the_operator_names_one() {
    let reply = Reply::json(&fixture(
        "openalex/works_search_machine_learning_public_health_trimmed.json",
    ));
    let keyed = FakeHttp::start(reply.clone());
    let engine = format!(
        "[engines.openalex]\ntype = \"openalex\"\nendpoint = \"http://127.0.0.1:{}/works\"\n\
         api_key_env = \"RYPSOK_TEST_OPENALEX_KEY\"\n",
        keyed.port()
    );
    let mut server = Server::start_with_env(
        Some(&config(keyed.port(), &engine)),
        &[("RYPSOK_TEST_OPENALEX_KEY", OPENALEX_KEY)],
    );
    search_without_leaking(&mut server, "science", OPENALEX_KEY);
    let seen = keyed.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].target.contains(&format!("api_key={OPENALEX_KEY}")),
        "{}",
        seen[0].target
    );
    assert_eq!(
        openalex_allowance(&mut server),
        Value::Null,
        "a keyed engine has no mark"
    );

    let keyless = FakeHttp::start(reply);
    let engine = format!(
        "[engines.openalex]\ntype = \"openalex\"\nendpoint = \"http://127.0.0.1:{}/works\"\n",
        keyless.port()
    );
    let mut server = Server::start_with_env(
        Some(&config(keyless.port(), &engine)),
        &[("RYPSOK_TEST_OPENALEX_KEY", OPENALEX_KEY)],
    );
    search_without_leaking(&mut server, "science", OPENALEX_KEY);
    let seen = keyless.seen();
    assert_eq!(seen.len(), 1);
    assert!(!seen[0].target.contains("api_key"), "{}", seen[0].target);
    assert_eq!(openalex_allowance(&mut server), json!("keyless"));
}

// Verifies: REQ-CFG-004, REQ-STATUS-002 (SearXNG's optional credential is the Authorization header, only when named)
#[test]
fn searxng_sends_its_authorization_only_when_the_operator_names_one() {
    let reply = Reply::json(&fixture("searxng/written_search_json_rust.json"));
    let dir = TempDir::new("searxng-key");
    let key_file = dir.write(
        "searxng.authorization",
        &format!("{SEARXNG_AUTHORIZATION}\n"),
    );

    let keyed = FakeHttp::start(reply.clone());
    let engine = format!(
        "[engines.mine]\ntype = \"searxng\"\nendpoint = \"http://127.0.0.1:{}/search\"\n\
         api_key_file = \"{}\"\n",
        keyed.port(),
        key_file.display()
    );
    let mut server = Server::start(Some(&config(keyed.port(), &engine)));
    search_without_leaking(&mut server, "general", "cnlwc29rOm5vdC1zZWNyZXQ");
    let seen = keyed.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0]
            .headers
            .iter()
            .any(|(name, value)| name == "authorization" && value == SEARXNG_AUTHORIZATION),
        "{:?}",
        seen[0].headers
    );

    let keyless = FakeHttp::start(reply);
    let engine = format!(
        "[engines.mine]\ntype = \"searxng\"\nendpoint = \"http://127.0.0.1:{}/search\"\n",
        keyless.port()
    );
    let mut server = Server::start(Some(&config(keyless.port(), &engine)));
    search_without_leaking(&mut server, "general", "cnlwc29rOm5vdC1zZWNyZXQ");
    let seen = keyless.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        !seen[0]
            .headers
            .iter()
            .any(|(name, _)| name == "authorization"),
        "{:?}",
        seen[0].headers
    );
}
