//! The credential formats, one matcher each, and the character classes
//! and confirmations (CRC-32 in base62, base64, entropy) they share. The
//! reading of the text (invisible characters, full-width folding) and the
//! findings stay in `secret.rs`.

use std::ops::Range;

use super::SecretKind;
use super::scan::*;

/// A format: at a position, the end of the token and its kind.
type Matcher = fn(&[char], usize) -> Option<(usize, SecretKind)>;

/// Tries every format at `i`.
pub(super) fn match_at(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let matchers: &[Matcher] = &[
        github_classic,
        github_fine_grained,
        npm,
        aws_key_id,
        gitlab,
        slack_token,
        slack_webhook,
        stripe,
        google,
        anthropic,
        openai,
        pypi,
        jwt,
        private_key,
        azure_client_secret,
        azure_storage_key,
        sendgrid,
        huggingface,
        digitalocean,
        shopify,
        databricks,
        telegram,
        discord_webhook,
    ];
    matchers.iter().find_map(|m| m(s, i))
}

/// `ghp_` and siblings: 30 base62 characters of entropy and their CRC-32
/// as 6 base62 characters.
pub(super) fn github_classic(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let known = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"];
    if !known.iter().any(|p| has(s, i, p)) || !starts_token(s, i, is_word) {
        return None;
    }
    let end = exactly(s, i + 4, 36, is_alnum, is_word)?;
    crc_confirms(&s[i + 4..end]).then_some((end, SecretKind::GithubToken))
}

/// `npm_`: the same scheme as GitHub's classic tokens.
pub(super) fn npm(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "npm_") || !starts_token(s, i, is_word) {
        return None;
    }
    let end = exactly(s, i + 4, 36, is_alnum, is_word)?;
    crc_confirms(&s[i + 4..end]).then_some((end, SecretKind::NpmToken))
}

/// `github_pat_` + 22 + `_` + 59 alphanumerics.
pub(super) fn github_fine_grained(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "github_pat_") || !starts_token(s, i, is_word) {
        return None;
    }
    let a = i + 11;
    let mid = a + 22;
    if run(s, a, is_alnum) != mid || s.get(mid) != Some(&'_') {
        return None;
    }
    let end = exactly(s, mid + 1, 59, is_alnum, is_word)?;
    has_entropy(&s[a..end]).then_some((end, SecretKind::GithubFineGrainedToken))
}

/// AWS key ids: a known prefix and 16 characters of base32, not the
/// documentation's example key.
pub(super) fn aws_key_id(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let known = [
        "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
    ];
    if !known.iter().any(|p| has(s, i, p)) || !starts_token(s, i, is_alnum) {
        return None;
    }
    let end = exactly(s, i + 4, 16, is_base32_upper, is_alnum)?;
    let body = &s[i + 4..end];
    let example = text(body).ends_with("EXAMPLE");
    (!example && has_entropy(body)).then_some((end, SecretKind::AwsAccessKeyId))
}

/// GitLab: the legacy `glpat-` + 20, or the routable
/// `glpat-<payload>.<2 base36><7 base36>`.
pub(super) fn gitlab(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "glpat-") || !starts_token(s, i, is_token) {
        return None;
    }
    let a = i + 6;
    let payload_end = run(s, a, is_token);
    if payload_end - a == 20 && ends_token(s, payload_end, |c| is_token(c) || c == '.') {
        return has_entropy(&s[a..payload_end]).then_some((payload_end, SecretKind::GitlabToken));
    }
    if payload_end - a >= 27 && s.get(payload_end) == Some(&'.') {
        let end = exactly(s, payload_end + 1, 9, is_base36_lower, is_token)?;
        return has_entropy(&s[a..payload_end]).then_some((end, SecretKind::GitlabToken));
    }
    None
}

/// Slack: `xoxb-<d>-<d>-<24 alnum>`, `xoxp-<d>-<d>-<d>-<32 hex>`,
/// `xapp-1-A…-<d>-<64 hex>`.
pub(super) fn slack_token(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !starts_token(s, i, is_token) {
        return None;
    }
    let digits = |at: usize| -> Option<usize> {
        let end = run(s, at, is_digit);
        ((10..=13).contains(&(end - at)) && s.get(end) == Some(&'-')).then_some(end + 1)
    };
    let end = if has(s, i, "xoxb-") {
        let at = digits(digits(i + 5)?)?;
        exactly(s, at, 24, is_alnum, is_token)?
    } else if has(s, i, "xoxp-") {
        let at = digits(digits(digits(i + 5)?)?)?;
        exactly(s, at, 32, is_hex_lower, is_token)?
    } else if has(s, i, "xapp-1-A") {
        let id_end = run(s, i + 8, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if id_end - (i + 8) < 8 || s.get(id_end) != Some(&'-') {
            return None;
        }
        let number_end = run(s, id_end + 1, is_digit);
        if number_end - (id_end + 1) < 10 || s.get(number_end) != Some(&'-') {
            return None;
        }
        exactly(s, number_end + 1, 64, is_hex_lower, is_token)?
    } else {
        return None;
    };
    let tail = &s[run_back(s, end, is_alnum)..end];
    has_entropy(tail).then_some((end, SecretKind::SlackToken))
}

/// `hooks.slack.com/services/T…/B…/<24>`.
pub(super) fn slack_webhook(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    const PREFIX: &str = "hooks.slack.com/services/T";
    if !has_ignore_case(s, i, PREFIX) {
        return None;
    }
    let upper = |c: char| c.is_ascii_uppercase() || c.is_ascii_digit();
    let team_end = run(s, i + PREFIX.len(), upper);
    if team_end - (i + PREFIX.len()) < 8 || !has(s, team_end, "/B") {
        return None;
    }
    let bot_end = run(s, team_end + 2, upper);
    if bot_end - (team_end + 2) < 8 || s.get(bot_end) != Some(&'/') {
        return None;
    }
    let end = exactly(s, bot_end + 1, 24, is_alnum, is_alnum)?;
    has_entropy(&s[bot_end + 1..end]).then_some((end, SecretKind::SlackWebhook))
}

/// Stripe secret and restricted keys, live or test (publishable keys are
/// public by design).
pub(super) fn stripe(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let known = ["sk_live_", "rk_live_", "sk_test_", "rk_test_"];
    if !known.iter().any(|p| has(s, i, p)) || !starts_token(s, i, is_word) {
        return None;
    }
    let end = run(s, i + 8, is_alnum);
    let body = &s[i + 8..end];
    ((24..=247).contains(&body.len()) && ends_token(s, end, is_word) && has_entropy(body))
        .then_some((end, SecretKind::StripeSecretKey))
}

/// `AIza` + 35 of `[A-Za-z0-9_-]`.
pub(super) fn google(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "AIza") || !starts_token(s, i, is_token) {
        return None;
    }
    let end = exactly(s, i + 4, 35, is_token, is_token)?;
    has_entropy(&s[i + 4..end]).then_some((end, SecretKind::GoogleApiKey))
}

/// `sk-ant-api03-` or `sk-ant-admin01-` + 93 + `AA`.
pub(super) fn anthropic(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let prefix = ["sk-ant-api03-", "sk-ant-admin01-"]
        .into_iter()
        .find(|p| has(s, i, p))?;
    if !starts_token(s, i, is_token) {
        return None;
    }
    let a = i + prefix.len();
    let end = exactly(s, a, 95, is_token, is_token)?;
    (has(s, end - 2, "AA") && has_entropy(&s[a..end])).then_some((end, SecretKind::AnthropicApiKey))
}

/// OpenAI keys carry `T3BlbkFJ` (`OpenAI` in base64) with at least 20
/// characters on each side.
pub(super) fn openai(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "sk-") || !starts_token(s, i, is_token) {
        return None;
    }
    let end = run(s, i + 3, is_token);
    let body = &s[i + 3..end];
    let marker: Vec<char> = "T3BlbkFJ".chars().collect();
    let at = body.windows(marker.len()).position(|w| w == marker)?;
    (at >= 20 && body.len() - at - marker.len() >= 20).then_some((end, SecretKind::OpenaiApiKey))
}

/// `pypi-` + a base64url macaroon whose location is `pypi.org`.
pub(super) fn pypi(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "pypi-") || !starts_token(s, i, is_token) {
        return None;
    }
    let end = run(s, i + 5, is_token);
    let body = &s[i + 5..end];
    if body.len() < 50 {
        return None;
    }
    // A macaroon v2: version 2, field 1 (location), length 8, "pypi.org".
    let head = base64_decode(&body[..16])?;
    (head.get(..11) == Some(b"\x02\x01\x08pypi.org".as_slice()))
        .then_some((end, SecretKind::PypiToken))
}

/// Three base64url segments whose first decodes to a JSON object with
/// `alg` and whose second decodes to a JSON object.
pub(super) fn jwt(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let b64url = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !has(s, i, "eyJ") || !starts_token(s, i, b64url) {
        return None;
    }
    let header_end = run(s, i, b64url);
    if s.get(header_end) != Some(&'.') || !has(s, header_end + 1, "eyJ") {
        return None;
    }
    let payload_end = run(s, header_end + 1, b64url);
    if s.get(payload_end) != Some(&'.') {
        return None;
    }
    let end = run(s, payload_end + 1, b64url);
    if end - (payload_end + 1) < 16 {
        return None;
    }
    let object = |seg: &[char]| -> Option<serde_json::Map<String, serde_json::Value>> {
        match serde_json::from_slice(&base64_decode(seg)?).ok()? {
            serde_json::Value::Object(map) => Some(map),
            _ => None,
        }
    };
    let header = object(&s[i..header_end])?;
    object(&s[header_end + 1..payload_end])?;
    header.contains_key("alg").then_some((end, SecretKind::Jwt))
}

/// `-----BEGIN … PRIVATE KEY-----` and a base64 body that decodes to a DER
/// sequence or an OpenSSH key; the END line is included when present.
pub(super) fn private_key(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    const BEGIN: &str = "-----BEGIN ";
    if !has(s, i, BEGIN) {
        return None;
    }
    let label_start = i + BEGIN.len();
    let label_end = run(s, label_start, |c| c.is_ascii_uppercase() || c == ' ');
    let label = text(&s[label_start..label_end]);
    if !label.ends_with("PRIVATE KEY") || !has(s, label_end, "-----") {
        return None;
    }
    // The body: base64 and line breaks, real or written as the two
    // characters `\n` (JSON-escaped text pasted into a query).
    let mut j = label_end + 5;
    let mut body: Vec<char> = Vec::new();
    loop {
        match s.get(j) {
            Some(&c) if is_base64(c) || c == '=' => {
                body.push(c);
                j += 1;
            }
            Some(&c) if c.is_whitespace() => j += 1,
            Some('\\') if matches!(s.get(j + 1), Some('n' | 'r')) => j += 2,
            _ => break,
        }
    }
    let trimmed: Vec<char> = body.iter().copied().filter(|&c| c != '=').collect();
    let usable = trimmed.len() - trimmed.len() % 4;
    let decoded = base64_decode(&trimmed[..usable])?;
    let der = decoded.len() >= 48 && decoded[0] == 0x30;
    let openssh = decoded.starts_with(b"openssh-key-v1\0");
    if !der && !openssh {
        return None;
    }
    let mut end = j;
    if has(s, j, "-----END ") {
        let close = run(s, j + 9, |c| c.is_ascii_uppercase() || c == ' ');
        if has(s, close, "-----") {
            end = close + 5;
        }
    }
    Some((end, SecretKind::PrivateKey))
}

/// Azure AD client secrets: 3 characters, a version digit, `Q~`, 34 more.
pub(super) fn azure_client_secret(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !starts_token(s, i, is_azure_secret) {
        return None;
    }
    let head_ok = s.get(i..i + 3)?.iter().all(|&c| is_azure_secret(c))
        && s.get(i + 3).is_some_and(|c| c.is_ascii_digit())
        && has(s, i + 4, "Q~");
    if !head_ok {
        return None;
    }
    let end = exactly(s, i + 6, 34, is_azure_secret, is_azure_secret)?;
    has_entropy(&s[i + 6..end]).then_some((end, SecretKind::AzureClientSecret))
}

/// `AccountKey=` + 88 characters of base64 (64 bytes) in a connection string.
pub(super) fn azure_storage_key(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    const KEY: &str = "AccountKey=";
    if !has(s, i, KEY) {
        return None;
    }
    let a = i + KEY.len();
    let end = run(s, a, is_base64);
    let padded_end = run(s, end, |c| c == '=');
    let value = &s[a..padded_end];
    if value.len() != 88 || !ends_token(s, padded_end, is_base64) {
        return None;
    }
    let decoded = base64_decode(&s[a..end])?;
    (decoded.len() == 64 && has_entropy(&s[a..end]))
        .then_some((padded_end, SecretKind::AzureStorageKey))
}

/// `SG.` + 22 + `.` + 43.
pub(super) fn sendgrid(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "SG.") || !starts_token(s, i, is_token) {
        return None;
    }
    let first = i + 3;
    if run(s, first, is_token) != first + 22 || s.get(first + 22) != Some(&'.') {
        return None;
    }
    let end = exactly(s, first + 23, 43, is_token, is_token)?;
    has_entropy(&s[first..end]).then_some((end, SecretKind::SendgridApiKey))
}

/// `hf_` + 34 letters of both cases.
pub(super) fn huggingface(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "hf_") || !starts_token(s, i, is_word) {
        return None;
    }
    let end = exactly(s, i + 3, 34, |c| c.is_ascii_alphabetic(), is_word)?;
    let body = &s[i + 3..end];
    let mixed =
        body.iter().any(char::is_ascii_uppercase) && body.iter().any(char::is_ascii_lowercase);
    (mixed && has_entropy(body)).then_some((end, SecretKind::HuggingfaceToken))
}

/// `dop_v1_`, `doo_v1_`, `dor_v1_` + 64 hex.
pub(super) fn digitalocean(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !["dop_v1_", "doo_v1_", "dor_v1_"]
        .iter()
        .any(|p| has(s, i, p))
        || !starts_token(s, i, is_word)
    {
        return None;
    }
    let end = exactly(s, i + 7, 64, is_hex_lower, is_word)?;
    has_entropy(&s[i + 7..end]).then_some((end, SecretKind::DigitaloceanToken))
}

/// `shpat_`, `shpca_`, `shppa_`, `shpss_` + 32 hex.
pub(super) fn shopify(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !["shpat_", "shpca_", "shppa_", "shpss_"]
        .iter()
        .any(|p| has(s, i, p))
        || !starts_token(s, i, is_word)
    {
        return None;
    }
    let end = exactly(s, i + 6, 32, |c| c.is_ascii_hexdigit(), is_word)?;
    has_entropy(&s[i + 6..end]).then_some((end, SecretKind::ShopifyToken))
}

/// `dapi` + 32 hex, optionally `-<digit>`.
pub(super) fn databricks(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "dapi") || !starts_token(s, i, is_alnum) {
        return None;
    }
    let mut end = exactly(s, i + 4, 32, is_hex_lower, is_alnum)?;
    let body_ok = has_entropy(&s[i + 4..end]);
    if s.get(end) == Some(&'-') && s.get(end + 1).is_some_and(char::is_ascii_digit) {
        end += 2;
    }
    body_ok.then_some((end, SecretKind::DatabricksToken))
}

/// A bot token: 8 to 10 digits, `:`, `AA` and 33 more; after `bot` (as in
/// the API's URLs) or standing alone.
pub(super) fn telegram(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let after_bot = i >= 3 && has(s, i - 3, "bot");
    if !s.get(i).is_some_and(char::is_ascii_digit) || !(after_bot || starts_token(s, i, is_alnum)) {
        return None;
    }
    let digits_end = run(s, i, is_digit);
    if !(8..=10).contains(&(digits_end - i)) || !has(s, digits_end, ":AA") {
        return None;
    }
    let end = exactly(s, digits_end + 1, 35, is_token, is_token)?;
    has_entropy(&s[digits_end + 1..end]).then_some((end, SecretKind::TelegramBotToken))
}

/// `discord.com/api/webhooks/<id>/<token>` (or discordapp.com).
pub(super) fn discord_webhook(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let prefix = ["discord.com/api/webhooks/", "discordapp.com/api/webhooks/"]
        .into_iter()
        .find(|p| has_ignore_case(s, i, p))?;
    let id = i + prefix.len();
    let id_end = run(s, id, is_digit);
    if !(17..=20).contains(&(id_end - id)) || s.get(id_end) != Some(&'/') {
        return None;
    }
    let end = run(s, id_end + 1, is_token);
    let token = &s[id_end + 1..end];
    ((60..=80).contains(&token.len()) && has_entropy(token))
        .then_some((end, SecretKind::DiscordWebhook))
}

/// Secrets that are only recognisable next to their key id: an AWS secret
/// access key (40 characters of base64) after an AWS key id, a Twilio API
/// secret (32 hex) after an `SK` key id. Each is looked for within a short
/// distance after its id.
pub(super) fn paired_secrets(
    s: &[char],
    found: &[(Range<usize>, SecretKind)],
) -> Vec<(Range<usize>, SecretKind)> {
    const NEAR: usize = 80;
    let mut out = Vec::new();
    for (range, kind) in found {
        if *kind == SecretKind::AwsAccessKeyId
            && let Some(secret) = standalone_token(s, range.end, NEAR, 40, is_base64)
        {
            out.push((secret, SecretKind::AwsSecretAccessKey));
        }
    }
    // Twilio key ids: `SK` + 32 hex, alone an identifier, not a secret.
    let mut i = 0;
    while i + 34 <= s.len() {
        if has(s, i, "SK")
            && starts_token(s, i, is_alnum)
            && exactly(s, i + 2, 32, is_hex_lower, is_alnum).is_some()
        {
            if let Some(secret) = standalone_token(s, i + 34, NEAR, 32, is_hex_lower) {
                out.push((secret, SecretKind::TwilioApiSecret));
            }
            i += 34;
        } else {
            i += 1;
        }
    }
    out
}

/// The first token of exactly `len` `class` characters, standing alone,
/// that starts within `near` characters after `from` and looks random.
pub(super) fn standalone_token(
    s: &[char],
    from: usize,
    near: usize,
    len: usize,
    class: fn(char) -> bool,
) -> Option<Range<usize>> {
    let last_start = (from + near).min(s.len());
    let mut i = from;
    while i < last_start {
        if class(s[i]) && starts_token(s, i, class) {
            let end = run(s, i, class);
            let mixed = s[i..end].iter().any(char::is_ascii_digit)
                && s[i..end].iter().any(char::is_ascii_alphabetic);
            if end - i == len && mixed && has_entropy(&s[i..end]) {
                return Some(i..end);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    None
}
