//! Structured logs on stderr (design §13.3; REQ-OBS-005, REQ-OBS-006,
//! REQ-PRIV-004): one JSON object per line with a timestamp, the level, the
//! process, the request id and caller of the call it belongs to, and the
//! event's own fields.
//!
//! A small layer of our own rather than tracing-subscriber's JSON format:
//! the contract wants the call's span fields (request id, caller) as
//! top-level keys of every event, and the process tag on every line, which
//! the stock formatter nests or omits. The SDK's own events are switched
//! off entirely, because at info it logs request parameters.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use rypsok_proto::LogLevel;
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Installs the logger for this process. `process` tags every line.
pub(crate) fn init(process: &'static str, level: LogLevel) {
    // The SDK logs request parameters and client-built error text at info
    // and warn; none of it may reach the log (REQ-PRIV-004).
    let directives = format!("{},rmcp=off", level.as_str());
    let filter = EnvFilter::try_new(directives).unwrap_or_else(|_| EnvFilter::new("info,rmcp=off"));
    let subscriber = tracing_subscriber::registry()
        .with(filter)
        .with(JsonLines { process });
    // A second init (tests in one process) keeps the first logger.
    let _ = tracing::subscriber::set_global_default(subscriber);
}

struct JsonLines {
    process: &'static str,
}

/// Fields a span carries for its events, kept in the span's extensions.
struct SpanFields(Map<String, Value>);

struct JsonVisitor<'a>(&'a mut Map<String, Value>);

impl Visit for JsonVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_owned(), Value::String(value.to_owned()));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }
}

impl<S> Layer<S> for JsonLines
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Map::new();
        attrs.record(&mut JsonVisitor(&mut fields));
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(SpanFields(fields));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut line = Map::new();
        line.insert("timestamp".to_owned(), Value::String(rfc3339_now()));
        line.insert(
            "level".to_owned(),
            Value::String(event.metadata().level().as_str().to_ascii_lowercase()),
        );
        line.insert("process".to_owned(), Value::String(self.process.to_owned()));
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope.from_root() {
                if let Some(SpanFields(fields)) = span.extensions().get::<SpanFields>() {
                    line.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
            }
        }
        event.record(&mut JsonVisitor(&mut line));
        let mut text = Value::Object(line).to_string();
        text.push('\n');
        // One write per line, so lines of the three processes never interleave.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

/// The current time as RFC 3339 UTC with milliseconds.
fn rfc3339_now() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    let mut out = String::with_capacity(24);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    );
    out
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// algorithm), to avoid a date crate for one log field.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_days_to_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_786), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
