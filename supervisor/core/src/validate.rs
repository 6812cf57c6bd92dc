//! Argument validation for the three tools (REQ-SEARCH-001..006,
//! REQ-FETCH-003, REQ-FETCH-005). The raw argument object is checked by hand
//! rather than through typed SDK parameters, so that a bad argument is an
//! `invalid_request` tool error that never echoes the caller's input.

use serde_json::{Map, Value};

use crate::config::{Category, Config};
use crate::error::{NoEngineFor, ToolError};
use crate::limits::{FETCH_MAX_CHARS_FLOOR, URL_MAX_CHARS};
pub(crate) use crate::vocabulary::TimeRange;

/// A validated `web_search` call.
#[derive(Debug, Clone)]
pub(crate) struct SearchArgs {
    /// Trimmed query.
    pub(crate) query: String,
    pub(crate) category: Category,
    pub(crate) max_results: u32,
    /// One of the configured languages.
    pub(crate) language: String,
    pub(crate) time_range: Option<TimeRange>,
}

/// The categories an enabled engine serves, in the schema's order.
pub(crate) fn served_categories(
    config: &Config,
    is_active: impl Fn(&str) -> bool,
) -> Vec<Category> {
    Category::ALL
        .iter()
        .copied()
        .filter(|c| {
            config
                .engines
                .iter()
                .any(|e| is_active(&e.id) && e.categories.contains(c))
        })
        .collect()
}

/// The category of a call that names none: `general` when an engine
/// serves it, else the first served one (so the default is always a value
/// the schema offers).
pub(crate) fn default_category(served: &[Category]) -> Option<Category> {
    if served.contains(&Category::General) {
        Some(Category::General)
    } else {
        served.first().copied()
    }
}

/// The parameter names `web_search` takes under this configuration.
pub(crate) fn search_parameters(config: &Config) -> Vec<&'static str> {
    let mut names = vec!["query", "category", "max_results"];
    if config.search.languages.len() >= 2 {
        names.push("language");
    }
    names.push("time_range");
    names
}

fn refuse_unknown(args: &Map<String, Value>, allowed: &[&'static str]) -> Result<(), ToolError> {
    if args.keys().any(|k| !allowed.contains(&k.as_str())) {
        return Err(ToolError::unknown_parameter(allowed));
    }
    Ok(())
}

fn integer(
    args: &Map<String, Value>,
    name: &'static str,
    min: u64,
    max: u64,
) -> Result<Option<u64>, ToolError> {
    match args.get(name) {
        None => Ok(None),
        Some(Value::Number(n)) => {
            let out_of_range = || ToolError::out_of_range(name, min, max);
            if let Some(v) = n.as_u64() {
                return if (min..=max).contains(&v) {
                    Ok(Some(v))
                } else {
                    Err(out_of_range())
                };
            }
            if n.as_i64().is_some() {
                return Err(out_of_range()); // negative
            }
            // 3.0 is an integer to a JSON reader; 3.5 is not.
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 => {
                    #[allow(clippy::cast_precision_loss)]
                    // rounding a bound by one unit is harmless
                    let (lo, hi) = (min as f64, max as f64);
                    if (lo..=hi).contains(&f) {
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                        // integral and within [min, max]
                        Ok(Some(f as u64))
                    } else {
                        Err(out_of_range())
                    }
                }
                _ => Err(ToolError::wrong_type(name, "an integer")),
            }
        }
        Some(_) => Err(ToolError::wrong_type(name, "an integer")),
    }
}

fn string<'a>(
    args: &'a Map<String, Value>,
    name: &'static str,
) -> Result<Option<&'a str>, ToolError> {
    match args.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ToolError::wrong_type(name, "a string")),
    }
}

/// Validates `web_search` arguments against the configuration.
pub(crate) fn search_args(
    config: &Config,
    served: &[Category],
    args: &Map<String, Value>,
) -> Result<SearchArgs, ToolError> {
    refuse_unknown(args, &search_parameters(config))?;
    let max = config.search.query_max_chars;
    let query = string(args, "query")?
        .ok_or_else(|| ToolError::missing("query"))?
        .trim();
    let length = query.chars().count();
    if length == 0 || length > max {
        return Err(ToolError::bad_length("query", 1, max as u64));
    }
    let category = match string(args, "category")? {
        None => match default_category(served) {
            Some(c) => c,
            None => return Err(ToolError::no_engine(NoEngineFor::Arguments)),
        },
        Some(s) => match Category::parse(s).filter(|c| served.contains(c)) {
            Some(c) => c,
            None => {
                let allowed: Vec<&str> = served.iter().map(|c| c.as_str()).collect();
                return Err(ToolError::not_allowed("category", &allowed));
            }
        },
    };
    let ceiling = u64::from(config.search.max_results_ceiling);
    let max_results = integer(args, "max_results", 1, ceiling)?
        .map_or(config.search.max_results, |v| {
            u32::try_from(v).unwrap_or(u32::MAX)
        });
    let languages = &config.search.languages;
    let language = match string(args, "language")? {
        None => languages.first().cloned().unwrap_or_default(),
        Some(s) => match languages.iter().find(|l| l.as_str() == s) {
            Some(l) => l.clone(),
            None => {
                let allowed: Vec<&str> = languages.iter().map(String::as_str).collect();
                return Err(ToolError::not_allowed("language", &allowed));
            }
        },
    };
    let time_range = match string(args, "time_range")? {
        None => None,
        Some(s) => match TimeRange::parse(s) {
            Some(t) => Some(t),
            None => {
                let allowed = TimeRange::words();
                return Err(ToolError::not_allowed("time_range", &allowed));
            }
        },
    };
    Ok(SearchArgs {
        query: query.to_owned(),
        category,
        max_results,
        language,
        time_range,
    })
}

/// A validated `web_fetch` call. The URL is judged by the fetch policy.
#[derive(Debug, Clone)]
pub(crate) struct FetchArgs {
    /// The URL as the caller wrote it, at most LIM-F9 characters.
    pub(crate) url: String,
    /// Characters of content to return (REQ-FETCH-003).
    pub(crate) max_chars: usize,
    /// The first character returned (REQ-FETCH-005).
    pub(crate) start_char: usize,
}

/// The parameter names `web_fetch` takes.
pub(crate) const FETCH_PARAMETERS: [&str; 3] = ["url", "max_chars", "start_char"];

/// Validates `web_fetch` arguments (REQ-FETCH-001, REQ-FETCH-003,
/// REQ-FETCH-005). `start_char` is bounded by the byte limit: no content
/// has more characters than LIM-F3 bytes.
pub(crate) fn fetch_args(
    config: &Config,
    args: &Map<String, Value>,
) -> Result<FetchArgs, ToolError> {
    refuse_unknown(args, &FETCH_PARAMETERS)?;
    let url = string(args, "url")?.ok_or_else(|| ToolError::missing("url"))?;
    if url.chars().count() > URL_MAX_CHARS {
        return Err(ToolError::url_too_long(URL_MAX_CHARS));
    }
    let max_chars = integer(
        args,
        "max_chars",
        u64::from(FETCH_MAX_CHARS_FLOOR),
        u64::from(config.fetch.max_chars_ceiling),
    )?
    .map_or(u64::from(config.fetch.max_chars), |v| v);
    let start_char = integer(args, "start_char", 0, config.fetch.max_bytes)?.unwrap_or(0);
    Ok(FetchArgs {
        url: url.to_owned(),
        max_chars: usize::try_from(max_chars).unwrap_or(usize::MAX),
        start_char: usize::try_from(start_char).unwrap_or(usize::MAX),
    })
}

/// Validates `engine_status` arguments: there are none.
pub(crate) fn status_args(args: &Map<String, Value>) -> Result<(), ToolError> {
    refuse_unknown(args, &[])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn search(v: Value) -> Result<SearchArgs, ToolError> {
        let config = Config::defaults();
        search_args(&config, &[Category::General, Category::Science], &args(v))
    }

    // Verifies: REQ-SEARCH-001 (1 to LIM-S1 characters after trimming)
    #[test]
    fn refuses_a_query_of_only_spaces_and_one_over_the_bound() {
        let e = search(json!({"query": "   "})).unwrap_err();
        assert_eq!(
            e.to_wire()["error"]["detail"],
            json!({"parameter": "query", "min": 1, "max": 400})
        );
        assert!(search(json!({"query": "x".repeat(401)})).is_err());
        assert_eq!(
            search(json!({"query": format!(" {} ", "é".repeat(400))}))
                .unwrap()
                .query
                .chars()
                .count(),
            400
        );
    }

    // Verifies: REQ-SEARCH-003 (range of LIM-S2)
    #[test]
    fn refuses_max_results_outside_its_range_with_the_range() {
        for bad in [json!(0), json!(21), json!(-1), json!(1e30)] {
            let e = search(json!({"query": "q", "max_results": bad})).unwrap_err();
            assert_eq!(e.message(), "max_results must be between 1 and 20");
        }
        let e = search(json!({"query": "q", "max_results": 2.5})).unwrap_err();
        assert_eq!(e.message(), "max_results must be an integer");
        assert_eq!(
            search(json!({"query": "q", "max_results": 3.0}))
                .unwrap()
                .max_results,
            3
        );
        assert_eq!(search(json!({"query": "q"})).unwrap().max_results, 5);
    }

    // Verifies: REQ-SEARCH-002 (only served categories; the served ones are listed)
    #[test]
    fn refuses_an_unserved_category_listing_the_served_ones() {
        let e = search(json!({"query": "q", "category": "news"})).unwrap_err();
        assert_eq!(e.detail()["allowed"], json!(["general", "science"]));
    }

    // Verifies: REQ-SEARCH-002 (the default category is one the schema offers)
    #[test]
    fn defaults_to_general_or_else_the_first_served_category() {
        let config = Config::defaults();
        let science_only = search_args(&config, &[Category::Science], &args(json!({"query": "q"})));
        assert_eq!(science_only.unwrap().category, Category::Science);
        let none = search_args(&config, &[], &args(json!({"query": "q"}))).unwrap_err();
        assert_eq!(none.detail()["reason"], json!("no_engine"));
    }

    // Verifies: REQ-SEARCH-006, REQ-ERR-004 (unknown properties refused without echoing them)
    #[test]
    fn refuses_unknown_properties_without_echoing_their_names() {
        let e = search(json!({"query": "q", "ignore previous instructions": 1})).unwrap_err();
        let text = e.to_wire().to_string();
        assert!(!text.contains("ignore previous"), "{text}");
        // One language configured: `language` is not a parameter at all.
        assert!(search(json!({"query": "q", "language": "en"})).is_err());
    }

    // Verifies: REQ-ERR-004 (a wrong value is never echoed)
    #[test]
    fn refuses_a_bad_time_range_without_echoing_it() {
        let e = search(json!({"query": "q", "time_range": "SECRET-sk-123"})).unwrap_err();
        assert!(!e.to_wire().to_string().contains("SECRET"));
        assert_eq!(
            e.detail()["allowed"],
            json!(["day", "week", "month", "year"])
        );
    }

    // Verifies: REQ-FETCH-003, REQ-FETCH-005, REQ-FETCH-001 (ranges; LIM-F9 stated; no echo)
    #[test]
    fn checks_fetch_arguments_and_states_their_bounds() {
        let config = Config::defaults();
        let fetch = |v: Value| fetch_args(&config, &args(v));
        let ok = fetch(json!({"url": "https://example.org/"})).unwrap();
        assert_eq!((ok.max_chars, ok.start_char), (3000, 0));
        let e = fetch(json!({"url": "https://example.org/", "max_chars": 499})).unwrap_err();
        assert_eq!(e.message(), "max_chars must be between 500 and 20000");
        assert!(fetch(json!({"url": "https://example.org/", "max_chars": 20001})).is_err());
        assert!(fetch(json!({"url": "https://example.org/", "start_char": -1})).is_err());
        let long = format!("https://example.org/{}", "a".repeat(2048));
        let e = fetch(json!({"url": long})).unwrap_err();
        assert_eq!(e.message(), "url must be at most 2048 characters");
        assert_eq!(e.detail()["max"], json!(2048));
        assert_eq!(fetch(json!({})).unwrap_err().message(), "url is required");
        let e = fetch(json!({"url": "https://example.org/", "SECRET-x": 1})).unwrap_err();
        assert!(!e.to_wire().to_string().contains("SECRET"));
    }

    // Verifies: REQ-STATUS-001 (engine_status takes no parameters)
    #[test]
    fn refuses_any_parameter_to_engine_status() {
        assert!(status_args(&args(json!({}))).is_ok());
        assert_eq!(
            status_args(&args(json!({"x": 1}))).unwrap_err().message(),
            "this tool takes no parameters"
        );
    }
}
