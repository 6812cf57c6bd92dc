//! The secret check (design §10, LIM-P1; REQ-PRIV-002): finds credentials
//! of high-confidence formats in a query or a URL before anything leaves
//! the host, so that the call can be refused, warned about or masked.
//!
//! Only formats that can be *confirmed* are reported: a prefix alone is
//! never enough. Each format has a structure (fixed prefix, exact lengths,
//! alphabet, boundaries) and, where it has one, a confirmation beyond it: the
//! CRC-32 in base62 of GitHub classic and npm tokens, the decoded header of
//! a JWT, the macaroon location of a PyPI token, the DER sequence of a PEM
//! private key, the fixed `T3BlbkFJ` marker of OpenAI keys. Placeholders
//! (`xxxx…`, `0000…`) fail an entropy floor, and the AWS documentation key
//! is known.
//!
//! The text is read through invisible characters (zero-width, bidi
//! controls, byte order marks, tags, variation selectors) and full-width
//! ASCII is folded, so that a token split by a zero-width joiner is still a
//! token. Positions and lengths count Unicode scalar values of the original
//! text, invisible characters included, so that [`mask`] covers the whole
//! token as the caller wrote it. [`find_decoded`] reads the forms a
//! receiver may decode the text to as well (percent-encoding, `+` as a
//! space), for URLs and queries.
//!
//! The matchers are written by hand: each format is a few literal prefixes
//! and character-class runs, and the confirmations need byte-level work
//! (CRC-32, base64) on a few dozen bytes, which a regex could not express.
//! CRC-32 and base64 are small enough here that a dependency would add more
//! than it saves.

use std::ops::Range;

mod decoded;

pub use decoded::find_decoded;

/// The credential formats the check knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecretKind {
    /// GitHub classic token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`), CRC-32 confirmed.
    GithubToken,
    /// GitHub fine-grained personal access token (`github_pat_`).
    GithubFineGrainedToken,
    /// npm access token (`npm_`), CRC-32 confirmed.
    NpmToken,
    /// AWS access key id (`AKIA`, `ASIA`, …).
    AwsAccessKeyId,
    /// AWS secret access key, next to a key id.
    AwsSecretAccessKey,
    /// GitLab personal access token (`glpat-`).
    GitlabToken,
    /// Slack bot, user or app token (`xoxb-`, `xoxp-`, `xapp-`).
    SlackToken,
    /// Slack incoming webhook URL.
    SlackWebhook,
    /// Stripe secret or restricted key (`sk_live_`, `rk_live_`, `sk_test_`, `rk_test_`).
    StripeSecretKey,
    /// Google API key (`AIza`).
    GoogleApiKey,
    /// OpenAI API key (`sk-…T3BlbkFJ…`).
    OpenaiApiKey,
    /// Anthropic API or admin key (`sk-ant-`).
    AnthropicApiKey,
    /// PyPI upload token (`pypi-`, a macaroon for pypi.org).
    PypiToken,
    /// JSON Web Token.
    Jwt,
    /// PEM or OpenSSH private key block.
    PrivateKey,
    /// Azure AD client secret (`…Q~…`).
    AzureClientSecret,
    /// Azure storage account key in a connection string.
    AzureStorageKey,
    /// Twilio API key secret, next to its `SK` key id.
    TwilioApiSecret,
    /// SendGrid API key (`SG.`).
    SendgridApiKey,
    /// Hugging Face access token (`hf_`).
    HuggingfaceToken,
    /// DigitalOcean token (`dop_v1_`, `doo_v1_`, `dor_v1_`).
    DigitaloceanToken,
    /// Shopify access token (`shpat_`, `shpca_`, `shppa_`, `shpss_`).
    ShopifyToken,
    /// Databricks token (`dapi`).
    DatabricksToken,
    /// Telegram bot token (`<id>:AA…`).
    TelegramBotToken,
    /// Discord webhook URL.
    DiscordWebhook,
}

impl SecretKind {
    /// Every kind.
    pub const ALL: &'static [Self] = &[
        Self::GithubToken,
        Self::GithubFineGrainedToken,
        Self::NpmToken,
        Self::AwsAccessKeyId,
        Self::AwsSecretAccessKey,
        Self::GitlabToken,
        Self::SlackToken,
        Self::SlackWebhook,
        Self::StripeSecretKey,
        Self::GoogleApiKey,
        Self::OpenaiApiKey,
        Self::AnthropicApiKey,
        Self::PypiToken,
        Self::Jwt,
        Self::PrivateKey,
        Self::AzureClientSecret,
        Self::AzureStorageKey,
        Self::TwilioApiSecret,
        Self::SendgridApiKey,
        Self::HuggingfaceToken,
        Self::DigitaloceanToken,
        Self::ShopifyToken,
        Self::DatabricksToken,
        Self::TelegramBotToken,
        Self::DiscordWebhook,
    ];

    /// The wire spelling (the `kind` of a `secret_in_query` refusal).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::GithubToken => "github_token",
            Self::GithubFineGrainedToken => "github_fine_grained_token",
            Self::NpmToken => "npm_token",
            Self::AwsAccessKeyId => "aws_access_key_id",
            Self::AwsSecretAccessKey => "aws_secret_access_key",
            Self::GitlabToken => "gitlab_token",
            Self::SlackToken => "slack_token",
            Self::SlackWebhook => "slack_webhook",
            Self::StripeSecretKey => "stripe_secret_key",
            Self::GoogleApiKey => "google_api_key",
            Self::OpenaiApiKey => "openai_api_key",
            Self::AnthropicApiKey => "anthropic_api_key",
            Self::PypiToken => "pypi_token",
            Self::Jwt => "jwt",
            Self::PrivateKey => "private_key",
            Self::AzureClientSecret => "azure_client_secret",
            Self::AzureStorageKey => "azure_storage_key",
            Self::TwilioApiSecret => "twilio_api_secret",
            Self::SendgridApiKey => "sendgrid_api_key",
            Self::HuggingfaceToken => "huggingface_token",
            Self::DigitaloceanToken => "digitalocean_token",
            Self::ShopifyToken => "shopify_token",
            Self::DatabricksToken => "databricks_token",
            Self::TelegramBotToken => "telegram_bot_token",
            Self::DiscordWebhook => "discord_webhook",
        }
    }
}

/// One credential found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Finding {
    /// Its format.
    pub kind: SecretKind,
    /// Where it starts, in Unicode scalar values of the original text.
    pub position: usize,
    /// Its length in Unicode scalar values of the original text, invisible
    /// characters inside it included.
    pub len: usize,
}

/// Finds every credential in `text`, in order of position, without overlaps.
pub fn find(text: &str) -> Vec<Finding> {
    let skeleton = Skeleton::of(text);
    let s = &skeleton.chars;
    let mut found: Vec<(Range<usize>, SecretKind)> = Vec::new();
    let mut i = 0;
    while i < s.len() {
        match match_at(s, i) {
            Some((end, kind)) => {
                found.push((i..end, kind));
                i = end;
            }
            None => i += 1,
        }
    }
    found.extend(paired_secrets(s, &found));
    found.sort_by_key(|(range, _)| (range.start, std::cmp::Reverse(range.end)));
    let mut findings: Vec<Finding> = Vec::new();
    let mut covered_to = 0;
    for (range, kind) in found {
        if range.start < covered_to || range.is_empty() {
            continue;
        }
        covered_to = range.end;
        let position = skeleton.origin[range.start];
        let len = skeleton.origin[range.end - 1] + 1 - position;
        findings.push(Finding {
            kind,
            position,
            len,
        });
    }
    findings
}

/// `text` with every finding replaced by its kind in brackets (for example
/// `[github_token]`), so that an engine still learns what the query is
/// about but never the credential.
pub fn mask(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut findings = findings.iter().peekable();
    let mut skip_until = 0;
    for (i, c) in text.chars().enumerate() {
        if i < skip_until {
            continue;
        }
        if let Some(f) = findings.next_if(|f| f.position == i) {
            out.push('[');
            out.push_str(f.kind.as_str());
            out.push(']');
            skip_until = i + f.len;
            continue;
        }
        out.push(c);
    }
    // A mask can end a token that the text after it continued (a token run
    // into a key block): what the masked text still shows is masked too,
    // in every form a receiver may decode it to.
    let again = find_decoded(&out);
    if again.is_empty() {
        out
    } else {
        mask(&out, &again)
    }
}

/// The text as the check reads it: invisible characters dropped,
/// full-width ASCII folded, each kept character remembering its original
/// position.
struct Skeleton {
    chars: Vec<char>,
    origin: Vec<usize>,
}

impl Skeleton {
    fn of(text: &str) -> Self {
        let mut chars = Vec::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len());
        for (i, c) in text.chars().enumerate() {
            if is_invisible(c) {
                continue;
            }
            chars.push(fold_width(c));
            origin.push(i);
        }
        Self { chars, origin }
    }
}

/// Characters that render as nothing and can be slipped into a token
/// without a reader noticing.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
        | '\u{034F}'
        | '\u{061C}'
        | '\u{115F}' | '\u{1160}'
        | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Full-width ASCII (U+FF01..U+FF5E) as ASCII.
fn fold_width(c: char) -> char {
    match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

// ---- character classes ----

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}
fn is_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}
fn is_hex_lower(c: char) -> bool {
    c.is_ascii_digit() || ('a'..='f').contains(&c)
}
fn is_digit(c: char) -> bool {
    c.is_ascii_digit()
}
fn is_base32_upper(c: char) -> bool {
    c.is_ascii_uppercase() || ('2'..='7').contains(&c)
}
fn is_base36_lower(c: char) -> bool {
    c.is_ascii_digit() || c.is_ascii_lowercase()
}
fn is_base64(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '+' || c == '/'
}
fn is_azure_secret(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '~' | '.' | '-')
}

// ---- scanning helpers ----

/// Whether `lit` is at `s[i..]`.
fn has(s: &[char], i: usize, lit: &str) -> bool {
    (i..).zip(lit.chars()).all(|(j, c)| s.get(j) == Some(&c))
}

/// Like [`has`], ignoring ASCII case.
fn has_ignore_case(s: &[char], i: usize, lit: &str) -> bool {
    (i..)
        .zip(lit.chars())
        .all(|(j, c)| s.get(j).is_some_and(|d| d.eq_ignore_ascii_case(&c)))
}

/// The end of the run of `class` characters starting at `i`.
fn run(s: &[char], i: usize, class: fn(char) -> bool) -> usize {
    let mut j = i;
    while j < s.len() && class(s[j]) {
        j += 1;
    }
    j
}

/// Whether the character before `i` cannot continue a token of `class`.
fn starts_token(s: &[char], i: usize, class: fn(char) -> bool) -> bool {
    i == 0 || !class(s[i - 1])
}

/// Whether the character at `i` cannot continue a token of `class`.
fn ends_token(s: &[char], i: usize, class: fn(char) -> bool) -> bool {
    s.get(i).is_none_or(|&c| !class(c))
}

/// Exactly `n` characters of `class` at `i`, followed by a boundary of
/// `boundary`: the end index.
fn exactly(
    s: &[char],
    i: usize,
    n: usize,
    class: fn(char) -> bool,
    boundary: fn(char) -> bool,
) -> Option<usize> {
    let end = run(s, i, class);
    (end - i >= n && ends_token(s, i + n, boundary)).then_some(i + n)
}

/// A placeholder (`xxxx`, `0000`, `1234…`) has few distinct characters;
/// a random secret has many.
fn has_entropy(s: &[char]) -> bool {
    let mut seen: Vec<char> = s.to_vec();
    seen.sort_unstable();
    seen.dedup();
    seen.len() >= (s.len() / 3).clamp(2, 8)
}

fn text(s: &[char]) -> String {
    s.iter().collect()
}

// ---- the formats ----

/// A format: at a position, the end of the token and its kind.
type Matcher = fn(&[char], usize) -> Option<(usize, SecretKind)>;

/// Tries every format at `i`.
fn match_at(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn github_classic(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    let known = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"];
    if !known.iter().any(|p| has(s, i, p)) || !starts_token(s, i, is_word) {
        return None;
    }
    let end = exactly(s, i + 4, 36, is_alnum, is_word)?;
    crc_confirms(&s[i + 4..end]).then_some((end, SecretKind::GithubToken))
}

/// `npm_`: the same scheme as GitHub's classic tokens.
fn npm(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "npm_") || !starts_token(s, i, is_word) {
        return None;
    }
    let end = exactly(s, i + 4, 36, is_alnum, is_word)?;
    crc_confirms(&s[i + 4..end]).then_some((end, SecretKind::NpmToken))
}

/// The last 6 of 36 base62 characters are the CRC-32 of the first 30, in
/// base62, left-padded with `0`.
fn crc_confirms(body: &[char]) -> bool {
    let (entropy, check) = body.split_at(30);
    let entropy: String = entropy.iter().collect();
    base62_6(crc32(entropy.as_bytes())) == text(check)
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn base62_6(mut n: u32) -> String {
    let mut digits = [b'0'; 6];
    for d in digits.iter_mut().rev() {
        *d = BASE62[(n % 62) as usize];
        n /= 62;
    }
    digits.iter().map(|&b| char::from(b)).collect()
}

/// CRC-32 (IEEE 802.3, reflected, as zlib computes it).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `github_pat_` + 22 + `_` + 59 alphanumerics.
fn github_fine_grained(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn aws_key_id(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn gitlab(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn slack_token(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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

/// The start of the run of `class` characters that ends at `end`.
fn run_back(s: &[char], end: usize, class: fn(char) -> bool) -> usize {
    let mut j = end;
    while j > 0 && class(s[j - 1]) {
        j -= 1;
    }
    j
}

/// `hooks.slack.com/services/T…/B…/<24>`.
fn slack_webhook(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn stripe(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn google(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
    if !has(s, i, "AIza") || !starts_token(s, i, is_token) {
        return None;
    }
    let end = exactly(s, i + 4, 35, is_token, is_token)?;
    has_entropy(&s[i + 4..end]).then_some((end, SecretKind::GoogleApiKey))
}

/// `sk-ant-api03-` or `sk-ant-admin01-` + 93 + `AA`.
fn anthropic(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn openai(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn pypi(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn jwt(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn private_key(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn azure_client_secret(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn azure_storage_key(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn sendgrid(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn huggingface(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn digitalocean(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn shopify(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn databricks(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn telegram(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn discord_webhook(s: &[char], i: usize) -> Option<(usize, SecretKind)> {
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
fn paired_secrets(
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
fn standalone_token(
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

/// Decodes standard or URL-safe base64 without padding; `None` on a
/// character outside both alphabets or a length no encoding produces.
fn base64_decode(chars: &[char]) -> Option<Vec<u8>> {
    if chars.len() % 4 == 1 {
        return None;
    }
    let value = |c: char| -> Option<u32> {
        Some(match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' | '-' => 62,
            '/' | '_' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(chars.len() * 3 / 4);
    for chunk in chars.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * k);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// A GitHub-classic-shaped token with a valid checksum, built from 30
/// characters of entropy, for tests elsewhere in the crate.
#[cfg(test)]
pub(crate) fn test_token(prefix: &str, entropy: &str) -> String {
    assert_eq!(entropy.len(), 30);
    format!("{prefix}{entropy}{}", base62_6(crc32(entropy.as_bytes())))
}

#[cfg(test)]
mod tests;
