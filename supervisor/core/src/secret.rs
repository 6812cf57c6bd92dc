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
mod formats;
mod scan;

pub(crate) use decoded::find_decoded;
use formats::*;
use scan::*;

use crate::invisible::renders_as_nothing;

/// The credential formats the check knows, and the one credential the URL
/// policy finds by the URL's form rather than by this scan: a password in
/// its authority. These are the `kind` words of a secret denial.
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
    /// A password in a URL's authority (`https://user:password@host/`):
    /// found by the URL policy, never reported by `find`.
    UrlPassword,
}

impl SecretKind {
    /// Every kind (for the tests that check their words).
    #[cfg(test)]
    pub(crate) const ALL: &'static [Self] = &[
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
        Self::UrlPassword,
    ];

    /// The wire spelling (the `kind` of a `secret_in_query` refusal).
    pub(crate) const fn as_str(self) -> &'static str {
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
            Self::UrlPassword => "url_password",
        }
    }

    /// What stands in for a credential of this kind where it is masked:
    /// its wire spelling in brackets (`[github_token]`).
    pub(crate) fn placeholder(self) -> String {
        format!("[{}]", self.as_str())
    }
}

impl SecretKind {
    /// Whether the format is written in upper case and digits only, prefix
    /// included, so that its lower-cased form, upper-cased again, is the
    /// credential itself: what a host name (case-insensitive, lower-cased
    /// by the URL parser) can carry of it. Formats of one lower case are
    /// found in a host name as they are; mixed-case formats lose their
    /// confirmation when folded.
    pub(crate) const fn is_upper_case_only(self) -> bool {
        match self {
            Self::AwsAccessKeyId => true,
            Self::GithubToken
            | Self::GithubFineGrainedToken
            | Self::NpmToken
            | Self::AwsSecretAccessKey
            | Self::GitlabToken
            | Self::SlackToken
            | Self::SlackWebhook
            | Self::StripeSecretKey
            | Self::GoogleApiKey
            | Self::OpenaiApiKey
            | Self::AnthropicApiKey
            | Self::PypiToken
            | Self::Jwt
            | Self::PrivateKey
            | Self::AzureClientSecret
            | Self::AzureStorageKey
            | Self::TwilioApiSecret
            | Self::SendgridApiKey
            | Self::HuggingfaceToken
            | Self::DigitaloceanToken
            | Self::ShopifyToken
            | Self::DatabricksToken
            | Self::TelegramBotToken
            | Self::DiscordWebhook
            | Self::UrlPassword => false,
        }
    }
}

/// One credential found in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Finding {
    /// Its format.
    pub(crate) kind: SecretKind,
    /// Where it starts, in Unicode scalar values of the original text.
    pub(crate) position: usize,
    /// Its length in Unicode scalar values of the original text, invisible
    /// characters inside it included.
    pub(crate) len: usize,
}

/// Finds every credential in `text`, in order of position, without overlaps.
pub(crate) fn find(text: &str) -> Vec<Finding> {
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

/// Finds the credentials in a host name as the URL parser gives it (lower
/// case): those [`find`] sees, and, read again in upper case, those of the
/// formats that are [upper case only](SecretKind::is_upper_case_only), which
/// a host name carries folded (`akia….example` is the key `AKIA…`, and its
/// name server sees it). Positions are the host's.
pub(crate) fn find_in_host(host: &str) -> Vec<Finding> {
    let found = find(host);
    if !found.is_empty() {
        return found;
    }
    find(&host.to_ascii_uppercase())
        .into_iter()
        .filter(|f| f.kind.is_upper_case_only())
        .collect()
}

/// `text` with every finding replaced by its kind in brackets (for example
/// `[github_token]`), so that an engine still learns what the query is
/// about but never the credential.
pub(crate) fn mask(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut findings = findings.iter().peekable();
    let mut skip_until = 0;
    for (i, c) in text.chars().enumerate() {
        if i < skip_until {
            continue;
        }
        if let Some(f) = findings.next_if(|f| f.position == i) {
            out.push_str(&f.kind.placeholder());
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
            if renders_as_nothing(c) {
                continue;
            }
            chars.push(fold_width(c));
            origin.push(i);
        }
        Self { chars, origin }
    }
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
