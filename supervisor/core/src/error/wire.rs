//! The one mapping from a [`ToolError`] to the wire's error object (design
//! §4; REQ-ERR-002, REQ-ERR-004, REQ-SEC-016): its message and its detail.
//! The detail is first a list of typed [`Field`]s, from which both the JSON
//! object and the Markdown view are written, so neither reads the other
//! back. Every match here is exhaustive: a new kind or reason does not
//! build until it has a message and a detail.

use serde_json::{Map, Value, json};

use super::{
    BusyWith, DeadlineOf, Denied, EgressRefused, Extraction, NoEngineFor, ParamProblem, Refused,
    SchemeDenial, ToolError, Unavailable, Unsupported,
};
use crate::limits::ERROR_MESSAGE_MAX_CHARS;
use crate::vocabulary::vocabulary;

vocabulary! {
    /// The keys of an error's detail (§4's table).
    pub DetailKey {
        /// The reason, for the kinds that have one.
        Reason => "reason",
        /// The parameter at fault.
        Parameter => "parameter",
        /// The smallest value allowed.
        Min => "min",
        /// The largest value allowed.
        Max => "max",
        /// The values or parameters allowed.
        Allowed => "allowed",
        /// The kind of secret found.
        Kind => "kind",
        /// Where the secret starts, in Unicode scalar values.
        Position => "position",
        /// Which part of the policy refused.
        Refused => "refused",
        /// The refusing address class.
        AddressClass => "address_class",
        /// The status the site answered.
        Status => "status",
        /// When to retry.
        RetryAfterMs => "retry_after_ms",
        /// Where the page moved (external data).
        Location => "location",
        /// The media type that cannot be read (external data).
        MediaType => "media_type",
        /// LIM-F3.
        LimitBytes => "limit_bytes",
        /// Each failed engine's id and failure cause (`all_failed`).
        Engines => "engines",
    }
}

/// A value of an error's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetailValue<'a> {
    /// One of rypsok's words: a vocabulary word or a parameter name.
    Word(&'static str),
    /// A number.
    Number(u64),
    /// Words the tool definitions list.
    Words(Vec<&'a str>),
    /// External data, already cleaned and bounded: a view marks it as such.
    External(&'a str),
    /// Engine ids (the operator's words) each with a word of
    /// [`super::FailureCause`].
    Causes(Vec<(&'a str, &'static str)>),
}

/// One entry of an error's detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field<'a> {
    /// Its key.
    pub key: DetailKey,
    /// Its value.
    pub value: DetailValue<'a>,
}

/// The detail being listed.
#[derive(Default)]
struct Fields<'a>(Vec<Field<'a>>);

impl<'a> Fields<'a> {
    fn word(&mut self, key: DetailKey, word: &'static str) {
        self.0.push(Field {
            key,
            value: DetailValue::Word(word),
        });
    }

    fn number(&mut self, key: DetailKey, number: u64) {
        self.0.push(Field {
            key,
            value: DetailValue::Number(number),
        });
    }

    fn words(&mut self, key: DetailKey, words: Vec<&'a str>) {
        self.0.push(Field {
            key,
            value: DetailValue::Words(words),
        });
    }

    fn causes(&mut self, key: DetailKey, causes: Vec<(&'a str, &'static str)>) {
        self.0.push(Field {
            key,
            value: DetailValue::Causes(causes),
        });
    }

    fn external(&mut self, key: DetailKey, text: &'a str) {
        self.0.push(Field {
            key,
            value: DetailValue::External(text),
        });
    }
}

impl ToolError {
    /// The message: static text plus numbers, at most LIM-I4 characters.
    pub fn message(&self) -> String {
        let text = match self {
            Self::InvalidRequest(problem) => return param_message(problem),
            Self::Denied(denied) => denied_message(denied),
            Self::Unavailable(unavailable) => return unavailable_message(unavailable),
            Self::Redirected { .. } => {
                "the page redirects to another host; fetch the location to follow it"
            }
            Self::UnsupportedContent(Unsupported::MediaType(_)) => {
                "the page's media type cannot be read; only HTML, XHTML, plain text, Markdown and PDF are"
            }
            Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NoContent)) => {
                "no main content could be extracted from the page"
            }
            Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NoTextLayer)) => {
                "the PDF has no text layer (its pages are images, as a scan's are); rypsok does not recognise text in images"
            }
            Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::Encrypted)) => {
                "the PDF is encrypted and needs a password; it cannot be read"
            }
            Self::UnsupportedContent(Unsupported::ExtractionFailed(Extraction::NeedsScripts)) => {
                "the page needs scripts to show its text (it is a frame that scripts fill, or shows only a consent banner); pages are read without running scripts"
            }
            Self::TooLarge { limit_bytes } => {
                return format!("the page is larger than the limit of {limit_bytes} bytes");
            }
        };
        text.to_owned()
    }

    /// The detail, typed: keys from §4's table, in no particular order.
    pub fn fields(&self) -> Vec<Field<'_>> {
        let mut fields = Fields::default();
        if let Some(reason) = self.reason() {
            fields.word(DetailKey::Reason, reason.as_str());
        }
        match self {
            Self::InvalidRequest(problem) => param_fields(problem, &mut fields),
            Self::Denied(denied) => match denied {
                Denied::Egress(refused) => {
                    fields.word(DetailKey::Refused, refused.part().as_str());
                    if let Some(class) = refused.address_class() {
                        fields.word(DetailKey::AddressClass, class.as_str());
                    }
                }
                Denied::StrictMode => {
                    fields.word(DetailKey::Refused, EgressRefused::NotAllowedStrict.as_str());
                }
                Denied::SecretInQuery(at) | Denied::SecretInUrl(at) => {
                    fields.word(DetailKey::Kind, at.kind.as_str());
                    fields.number(DetailKey::Position, at.position);
                }
                Denied::RobotsTxt | Denied::Scheme(_) | Denied::CredentialInUrl => {}
            },
            Self::Unavailable(unavailable) => match unavailable {
                Unavailable::RateLimited { retry_after_ms } => {
                    fields.number(DetailKey::RetryAfterMs, *retry_after_ms);
                }
                Unavailable::HttpStatus {
                    status,
                    retry_after_ms,
                } => {
                    fields.number(DetailKey::Status, u64::from(*status));
                    if let (Some(ms), true) = (retry_after_ms, is_retryable_status(*status)) {
                        fields.number(DetailKey::RetryAfterMs, *ms);
                    }
                }
                Unavailable::AllFailed(causes) => fields.causes(
                    DetailKey::Engines,
                    causes
                        .iter()
                        .map(|c| (c.engine.as_str(), c.cause.as_str()))
                        .collect(),
                ),
                Unavailable::NoEngine(_)
                | Unavailable::Network
                | Unavailable::Deadline(_)
                | Unavailable::Busy(_) => {}
            },
            Self::Redirected { location } => fields.external(DetailKey::Location, location),
            Self::UnsupportedContent(unsupported) => match unsupported {
                Unsupported::MediaType(media_type) => {
                    fields.external(DetailKey::MediaType, media_type);
                }
                Unsupported::ExtractionFailed(_) => {}
            },
            Self::TooLarge { limit_bytes } => fields.number(DetailKey::LimitBytes, *limit_bytes),
        }
        fields.0
    }

    /// The detail object of the wire.
    pub fn detail(&self) -> Map<String, Value> {
        self.fields()
            .into_iter()
            .map(|field| {
                let value = match field.value {
                    DetailValue::Word(word) => json!(word),
                    DetailValue::Number(number) => json!(number),
                    DetailValue::Words(words) => json!(words),
                    DetailValue::External(text) => json!(text),
                    DetailValue::Causes(causes) => Value::Object(
                        causes
                            .into_iter()
                            .map(|(engine, cause)| (engine.to_owned(), json!(cause)))
                            .collect(),
                    ),
                };
                (field.key.as_str().to_owned(), value)
            })
            .collect()
    }

    /// The wire form: `{"error": {kind, message, detail}}` (REQ-ERR-002).
    pub fn to_wire(&self) -> Value {
        let message = self.message();
        debug_assert!(
            message.chars().count() <= ERROR_MESSAGE_MAX_CHARS,
            "{message}"
        );
        json!({ "error": { "kind": self.kind().as_str(), "message": message, "detail": self.detail() } })
    }
}

/// 408, 425, 429 and 5xx: retrying later may help (design §14).
const fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 425 | 429) || status >= 500
}

fn param_fields<'a>(problem: &'a ParamProblem, fields: &mut Fields<'a>) {
    match problem {
        ParamProblem::OutOfRange {
            parameter,
            min,
            max,
        }
        | ParamProblem::BadLength {
            parameter,
            min,
            max,
        } => {
            fields.word(DetailKey::Parameter, parameter);
            fields.number(DetailKey::Min, *min);
            fields.number(DetailKey::Max, *max);
        }
        ParamProblem::WrongType { parameter, .. } | ParamProblem::Missing { parameter } => {
            fields.word(DetailKey::Parameter, parameter);
        }
        ParamProblem::NotAllowed { parameter, allowed } => {
            fields.word(DetailKey::Parameter, parameter);
            fields.words(
                DetailKey::Allowed,
                allowed.iter().map(String::as_str).collect(),
            );
        }
        ParamProblem::UnknownParameter { allowed } => {
            fields.words(DetailKey::Allowed, allowed.clone());
        }
        ParamProblem::UrlTooLong { max } => {
            fields.word(DetailKey::Parameter, "url");
            fields.number(DetailKey::Max, *max as u64);
        }
        ParamProblem::InvalidUrl => fields.word(DetailKey::Parameter, "url"),
        ParamProblem::StartCharBeyond { length } => {
            fields.word(DetailKey::Parameter, "start_char");
            fields.number(DetailKey::Min, 0);
            fields.number(DetailKey::Max, length.saturating_sub(1));
        }
    }
}

fn param_message(problem: &ParamProblem) -> String {
    match problem {
        ParamProblem::OutOfRange {
            parameter,
            min,
            max,
        } => format!("{parameter} must be between {min} and {max}"),
        ParamProblem::BadLength {
            parameter,
            min,
            max,
        } => format!("{parameter} must be {min} to {max} characters after trimming"),
        ParamProblem::WrongType {
            parameter,
            expected,
        } => format!("{parameter} must be {expected}"),
        ParamProblem::Missing { parameter } => format!("{parameter} is required"),
        ParamProblem::NotAllowed { parameter, .. } => {
            format!("{parameter} must be one of the allowed values")
        }
        ParamProblem::UnknownParameter { allowed } if allowed.is_empty() => {
            "this tool takes no parameters".to_owned()
        }
        ParamProblem::UnknownParameter { .. } => {
            "unknown parameter; see allowed for the parameters this tool takes".to_owned()
        }
        ParamProblem::UrlTooLong { max } => format!("url must be at most {max} characters"),
        ParamProblem::InvalidUrl => "url must be an absolute http or https URL".to_owned(),
        ParamProblem::StartCharBeyond { length } => {
            format!("start_char must be below the content length of {length} characters")
        }
    }
}

const fn denied_message(denied: &Denied) -> &'static str {
    match denied {
        Denied::Egress(refused) => match refused {
            Refused::Port => {
                "the egress policy refuses this port: only 80 and 443, unless the operator allows another"
            }
            Refused::AddressClass(_) => {
                "the egress policy refuses this address: it is internal or special-purpose (see address_class)"
            }
            Refused::DenyRule => "an operator deny rule refuses this destination",
            Refused::HostName => {
                "the host name cannot be requested: it has an empty label or a character no host name holds"
            }
            Refused::UrlForm => "a URL this fetch leads to (a redirect target) cannot be requested",
        },
        Denied::RobotsTxt => "the site's robots.txt does not allow rypsok to read this page",
        Denied::Scheme(SchemeDenial::NotAllowed) => {
            "the URL scheme is not allowed: use https (http only where the operator allows it)"
        }
        Denied::Scheme(SchemeDenial::UpgradeFailed) => {
            "the http URL was retried over https and that request failed; plain http is not allowed"
        }
        Denied::StrictMode => {
            "strict mode: only URLs web_search returned in this process or the operator allowed can be fetched"
        }
        Denied::CredentialInUrl => "the URL names a user; remove the credentials from the URL",
        Denied::SecretInQuery(_) => {
            "the query looks like it carries a credential; remove it and search again"
        }
        Denied::SecretInUrl(_) => {
            "the URL looks like it carries a password or a credential; remove it"
        }
    }
}

fn unavailable_message(unavailable: &Unavailable) -> String {
    let text = match unavailable {
        Unavailable::HttpStatus { status, .. } if is_retryable_status(*status) => {
            return format!("the site answered with status {status}; retry later");
        }
        Unavailable::HttpStatus { status, .. } => {
            return format!(
                "the site answered with status {status}: it refused the request or has no such page; retrying the same URL will not help"
            );
        }
        Unavailable::NoEngine(NoEngineFor::Arguments) => {
            "no enabled engine can serve this search (its category, time_range, language or query length)"
        }
        Unavailable::NoEngine(NoEngineFor::TimeRange) => {
            "no enabled engine of this category can filter by time_range: drop time_range, or enable an engine that can (brave, duckduckgo, searxng)"
        }
        Unavailable::AllFailed(_) => "every engine failed; the detail names why for each",
        Unavailable::RateLimited { .. } => "the tool's rate limit was reached; retry later",
        Unavailable::Network => "the site could not be reached",
        Unavailable::Deadline(DeadlineOf::Search) => {
            "no engine answered before the deadline; retry later"
        }
        Unavailable::Deadline(DeadlineOf::Fetch) => {
            "the page was not retrieved before the deadline; retry later"
        }
        Unavailable::Busy(BusyWith::Calls) => "too many calls are in flight; retry later",
        Unavailable::Busy(BusyWith::ReaderLost) => {
            "the worker reading the page stopped and is being replaced; retry shortly"
        }
    };
    text.to_owned()
}
