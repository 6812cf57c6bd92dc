use super::*;

const CORPUS: &str = include_str!("../../testdata/secret/secrets.tsv");

/// The kind a corpus format must be reported as.
fn expected_kind(format: &str) -> Option<SecretKind> {
    Some(match format {
        "github_ghp" | "github_gho" | "github_ghu" | "github_ghs" | "github_ghr" => {
            SecretKind::GithubToken
        }
        "github_fine_grained" => SecretKind::GithubFineGrainedToken,
        "npm" => SecretKind::NpmToken,
        "aws_access_key_id" | "aws_key_pair" => SecretKind::AwsAccessKeyId,
        "gitlab_pat" | "gitlab_pat_routable" => SecretKind::GitlabToken,
        "slack_bot" | "slack_user" | "slack_app" => SecretKind::SlackToken,
        "slack_webhook" => SecretKind::SlackWebhook,
        "stripe_secret_live" | "stripe_restricted_live" | "stripe_secret_test" => {
            SecretKind::StripeSecretKey
        }
        "google_api_key" => SecretKind::GoogleApiKey,
        "openai_project" | "openai_legacy" => SecretKind::OpenaiApiKey,
        "anthropic_api" | "anthropic_admin" => SecretKind::AnthropicApiKey,
        "pypi" => SecretKind::PypiToken,
        "jwt" => SecretKind::Jwt,
        "pem_private_key" => SecretKind::PrivateKey,
        "azure_ad_client_secret" => SecretKind::AzureClientSecret,
        "azure_storage_connection_string" => SecretKind::AzureStorageKey,
        "twilio_api_key_pair" => SecretKind::TwilioApiSecret,
        "sendgrid" => SecretKind::SendgridApiKey,
        "huggingface" => SecretKind::HuggingfaceToken,
        "digitalocean_pat" => SecretKind::DigitaloceanToken,
        "shopify_access_token" => SecretKind::ShopifyToken,
        "databricks" => SecretKind::DatabricksToken,
        "telegram_bot_token" => SecretKind::TelegramBotToken,
        "discord_webhook" => SecretKind::DiscordWebhook,
        _ => return None,
    })
}

fn decode_corpus_string(b64: &str) -> String {
    let chars: Vec<char> = b64.trim_end_matches('=').chars().collect();
    String::from_utf8(base64_decode(&chars).unwrap()).unwrap()
}

// Verifies: REQ-PRIV-002, REQ-TEST-008 (every line of the secrets corpus, both tiers)
#[test]
fn the_secrets_corpus_passes_line_by_line() {
    let mut failures = Vec::new();
    let mut cases = 0;
    for (n, line) in CORPUS.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("format\t") || line.is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (format, text, should) = (cols[0], decode_corpus_string(cols[1]), cols[2] == "yes");
        cases += 1;
        let found = find(&text);
        let ok = if should {
            let want = expected_kind(format);
            found.iter().any(|f| Some(f.kind) == want)
        } else {
            found.is_empty()
        };
        if !ok {
            failures.push(format!(
                "line {}: {format} ({}) found {found:?}",
                n + 1,
                cols[4]
            ));
        }
    }
    assert_eq!(cases, 79, "the corpus has 79 cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A GitHub classic token built here, from entropy and its checksum, so no
/// checksum-valid token is written in the repository.
fn built_token(prefix: &str, entropy: &str) -> String {
    test_token(prefix, entropy)
}

// Verifies: REQ-PRIV-002 (the checksum of the format is computed as zlib does)
#[test]
fn crc32_matches_the_standard_check_value() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(base62_6(0), "000000");
    assert_eq!(base62_6(61), "00000z");
    assert_eq!(base62_6(u32::MAX), "4gfFC3");
}

// Verifies: REQ-PRIV-002 (a token whose checksum fails is not a token)
#[test]
fn a_built_token_is_found_and_one_changed_character_is_not() {
    let token = built_token("ghp_", "Q7rT2mZk9LxW4vB8nC1pD6sF3gH5jK");
    let found = find(&token);
    assert_eq!(
        found,
        vec![Finding {
            kind: SecretKind::GithubToken,
            position: 0,
            len: 40
        }]
    );
    let mut broken: Vec<char> = token.chars().collect();
    broken[10] = if broken[10] == 'a' { 'b' } else { 'a' };
    assert!(find(&broken.iter().collect::<String>()).is_empty());
    let npm = built_token("npm_", "Q7rT2mZk9LxW4vB8nC1pD6sF3gH5jK");
    assert_eq!(find(&npm)[0].kind, SecretKind::NpmToken);
}

// Verifies: REQ-PRIV-002 (positions count scalar values of the original text, invisible ones included)
#[test]
fn positions_count_characters_of_the_original_text() {
    let token = built_token("gho_", "aB3dE5fG7hJ9kL2mN4pQ6rS8tU1vW0");
    let mut hidden: Vec<char> = token.chars().collect();
    hidden.insert(12, '\u{200B}');
    hidden.insert(20, '\u{202E}');
    let hidden: String = hidden.into_iter().collect();
    let text = format!("é日本 {hidden} rest");
    let found = find(&text);
    assert_eq!(
        found,
        vec![Finding {
            kind: SecretKind::GithubToken,
            position: 4,
            len: 42
        }]
    );
    assert_eq!(mask(&text, &found), "é日本 [github_token] rest");
}

// Verifies: REQ-PRIV-002 (full-width letters read as ASCII)
#[test]
fn full_width_characters_are_read_as_ascii() {
    let token = built_token("ghs_", "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0");
    let wide: String = token
        .chars()
        .map(|c| char::from_u32(c as u32 + 0xFEE0).unwrap())
        .collect();
    assert_eq!(find(&wide)[0].kind, SecretKind::GithubToken);
}

// Verifies: REQ-PRIV-002 (mask replaces every finding and keeps the rest byte for byte)
#[test]
fn mask_replaces_each_finding_and_keeps_the_rest() {
    let a = built_token("ghp_", "Q7rT2mZk9LxW4vB8nC1pD6sF3gH5jK");
    let b = format!("AKIA{}", "Q2ZR7MXV4KPL3TWN");
    let text = format!("why does {a} fail with {b}?");
    let found = find(&text);
    assert_eq!(found.len(), 2);
    assert_eq!(
        mask(&text, &found),
        "why does [github_token] fail with [aws_access_key_id]?"
    );
    assert_eq!(mask("nothing here", &find("nothing here")), "nothing here");
}

// Verifies: REQ-SEC-016 (the kind vocabulary has one spelling per word)
#[test]
fn kinds_are_spelled_once_each() {
    let mut names: Vec<&str> = SecretKind::ALL.iter().map(|k| k.as_str()).collect();
    names.sort_unstable();
    let len = names.len();
    names.dedup();
    assert_eq!(names.len(), len);
    assert!(
        names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    );
}

// Verifies: REQ-PRIV-002 (ordinary queries stay quiet)
#[test]
fn ordinary_queries_have_no_findings() {
    for q in [
        "rust async cancellation",
        "how to rotate an AKIA key",
        "ghp_ token format",
        "sk-ant- prefix meaning",
        "-----BEGIN PRIVATE KEY----- what is it",
        "eyJhbGciOi decode",
        "日本語の検索",
        "",
    ] {
        assert!(find(q).is_empty(), "{q}");
    }
}

// Verifies: REQ-PRIV-002, REQ-SEC-023 (found by the secret_detect fuzz target:
// a GitLab-shaped token run into a private key block was not a token until
// the key was masked, and the masked query still carried it)
#[test]
fn a_masked_text_holds_no_credential() {
    // The fuzzer's input, base64 like the corpus (scanners stay quiet).
    let input = "Z2xwYXQteHh4eHh4eHh4eHh4eDNKdkp3a3gtLS0tLUJFR0lOIFBSSVZBVEUgS0VZLS0tLS1cbk1JSUV2Z0lCQUZDSDZQTHRRSlR1NzZ4QjJQaStMT1djYzN0bUhnOTRsbnNmc0xTbmdLbEZzVVVPZUZQRGpiNkpcbmsrL2Zxc3NIcC9QdkdlUk1hS1RDNW9Ta0VrVng3bEV4NjEzd09NelhmUDFmMTMwbVBXYWJWMXNZSDFnUUVEMUtcblhGMm5OY0hKcFh4QWhvVHUrNTVaYWV1QWw0TGk1WS85TmFCbFRiWUt3VSsvenI5WWNNL1Q0WEFcblo4cFFEa1pJY1ZHbmlJWUh4Vi9FVWRLc21JQW5oK6iZcGJmZ25lUjhvd3RjN1NBbEQ2RFhwSFdka1ppa2xIMjlcbjRMeXhvMzZqbjlGYW1tV01EMGhYZTBAlwEAyAAASFBnAAB4eHh4eHhwb21pMzUzcUVMUkh4ZkVMT3NZYXExZGVtS0NWU2R1WlhBVk0rTVxueDhRVzRL";
    let chars: Vec<char> = input.trim_end_matches('=').chars().collect();
    let bytes = base64_decode(&chars).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let findings = find(&text);
    assert!(!findings.is_empty());
    let masked = mask(&text, &findings);
    assert_eq!(find(&masked), Vec::new(), "{masked:?}");
}

/// `text` with the characters at `at` percent-encoded (their UTF-8 bytes).
fn encode_at(text: &str, at: &[usize]) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            if at.contains(&i) {
                let mut buf = [0_u8; 4];
                c.encode_utf8(&mut buf)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            } else {
                c.to_string()
            }
        })
        .collect()
}

// Verifies: REQ-PRIV-002 (a credential with any of its characters percent-encoded, once or twice, is still found, over the span the caller wrote)
#[test]
fn a_percent_encoded_credential_is_found_in_every_decoded_form() {
    let github = built_token("ghp_", "Q7rT2mZk9LxW4vB8nC1pD6sF3gH5jK");
    let aws = format!("AKIA{}", "Q7ZPX4M2KD6NWR3T");
    for token in [&github, &aws] {
        let n = token.chars().count();
        for at in [vec![0], vec![n - 1], vec![3], (0..n).collect::<Vec<_>>()] {
            let encoded = encode_at(token, &at);
            assert!(find(&encoded).is_empty(), "{encoded}");
            let text = format!("k={encoded}&x=1");
            let found = find_decoded(&text);
            assert_eq!(found.len(), 1, "{text}");
            assert_eq!(found[0].position, 2, "{text}");
            assert_eq!(found[0].len, encoded.chars().count(), "{text}");
            // Encoded twice (`%2541`): a site that decodes twice gets it.
            let twice = text.replace('%', "%25");
            assert_eq!(find_decoded(&twice).len(), 1, "{twice}");
            assert_eq!(
                mask(&text, &found),
                format!("k=[{}]&x=1", found[0].kind.as_str())
            );
        }
    }
    // An underscore written `%5F` inside a token.
    let underscore = github.replacen('_', "%5F", 1);
    assert_eq!(find_decoded(&underscore)[0].kind, SecretKind::GithubToken);
}

/// Standard base64 with padding, for building a key body at run time.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0_u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

// Verifies: REQ-PRIV-002 (`+` is read as a space where a query is decoded: a key block spelled with `+` for its spaces is found)
#[test]
fn a_plus_is_read_as_a_space_too() {
    let mut key = b"openssh-key-v1\0".to_vec();
    key.extend_from_slice(&[0_u8; 45]);
    let body = base64(&key);
    assert!(!body.contains('+'));
    let block =
        format!("-----BEGIN OPENSSH PRIVATE KEY----- {body} -----END OPENSSH PRIVATE KEY-----");
    assert_eq!(find(&block).len(), 1, "the block as written is a key");
    let text = format!("q={}&x=1", block.replace(' ', "+"));
    assert!(find(&text).is_empty());
    let found = find_decoded(&text);
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!(found[0].kind, SecretKind::PrivateKey);
    assert_eq!(found[0].position, 2);
}

// Verifies: REQ-PRIV-002 (decoding is bounded and quiet on ordinary text)
#[test]
fn decoding_is_bounded_and_quiet_on_ordinary_text() {
    assert!(find_decoded("a+b%20c%2525%zz%").is_empty());
    let deep = format!("x{}41", "%25".repeat(200));
    assert!(find_decoded(&deep).is_empty());
    let aws = format!("AKIA{}", "Q7ZPX4M2KD6NWR3T");
    // Past the bound of decoding rounds, an encoding is not followed.
    let buried = format!("%{}41{}", "25".repeat(10), &aws[1..]);
    assert!(find_decoded(&buried).is_empty());
}
