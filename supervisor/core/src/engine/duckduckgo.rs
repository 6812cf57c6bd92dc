//! DuckDuckGo's driver, supervisor half: a scraping driver (design §11,
//! REQ-ENG-013 to -015, RFC 015) on the HTML results page
//! `html.duckduckgo.com/html/`, which DuckDuckGo offers to browsers without
//! JavaScript and documents as no API. The parser is the other half, in
//! worker-parse's `engine/duckduckgo.rs`; its fixtures are under
//! worker-parse's `testdata/duckduckgo/`.
//!
//! Opt-in only: `rypsok check` refuses the type unless `[scraping] enabled
//! = true`, and it is never in the default set. The request is a plain GET
//! with rypsok's standard User-Agent and no other header: no browser
//! headers, no cookies kept, no JavaScript run (REQ-ENG-014). Its answer is
//! bounded like an engine's (LIM-S5 for time, the engine byte bound, below
//! `web_fetch`'s LIM-F3) and parsed under the page reader's node and depth
//! bounds.
//!
//! robots.txt (recorded, not consulted, as the design says): DuckDuckGo's
//! robots.txt, as a public collection of robots files copied it, says for
//! `User-agent: *` `Disallow: /lite`, `Disallow: /html` and `Disallow: /*?`
//! ("No search result pages"): the endpoint this driver reads is closed to
//! robots. That is why the driver exists only behind the operator's
//! explicit opt-in.
//!
//! The parameters are those of the page's own search form: `q`, `kl` (a
//! region-language pair from the form's list, `wt-wt` for none), `df`
//! (`d`, `w`, `m`, `y`) and `kp` (safe search: `1` strict, `-1` moderate,
//! `-2` off).

use url::form_urlencoded;

use super::{
    Admission, BuiltRequest, CredentialRule, EngineSpec, LanguageSupport, ResultText, SearchContext,
};
use crate::vocabulary::{Category, SafeSearch, TimeRange};

/// The DuckDuckGo driver. Provider: Duck Duck Go, Inc.; interface: the HTML
/// results page (scraping).
pub(crate) const SPEC: EngineSpec = EngineSpec {
    display_name: "DuckDuckGo (HTML results page)",
    admission: ADMISSION,
    default_categories: &[Category::General],
    credential: CredentialRule::None,
    in_default_set: false,
    scraping: true,
    keyless_allowance: None,
    // The parser reads the page's text: entities decoded, markup gone.
    text: ResultText::PLAIN,
    endpoint_required: false,
    build,
};

/// DuckDuckGo's admission record.
const ADMISSION: Admission = Admission {
    // DuckDuckGo publishes no rate for this page, and answers fast clients
    // with its challenge. Pacing: at most one request every three seconds
    // on average, about a person's pace of searching.
    rate_limit_per_minute: Some(20),
    // One page at a time, as one reader would fetch it.
    concurrency_cap: 1,
    // The per-minute rate paces it; no fixed interval between requests.
    min_interval_ms: None,
    // No published bound; the form's input carries no `maxlength`.
    // LIM-S1 bounds queries before this.
    max_query_chars: 500,
    min_word_chars: 0,
    // The language reaches the page only through the region-language pair
    // `kl`; a pair the form does not offer searches all regions (`wt-wt`),
    // which still answers in every language.
    languages: LanguageSupport::Any,
    // `df` d/w/m/y.
    time_ranges: true,
    // No terms grant any right to keep the page's results: never cached.
    cacheable: false,
    // The page asks for none; the result URLs are the sites' own.
    attribution_required: false,
    // DuckDuckGo publishes no User-Agent policy.
    needs_contact_in_user_agent: false,
};

/// Endpoint used when the operator sets none.
const DEFAULT_ENDPOINT: &str = "https://html.duckduckgo.com/html/";

/// The `kl` values of the page's region list (its search form), without
/// the "all regions" entry.
const REGIONS: [&str; 60] = [
    "ar-es", "au-en", "at-de", "be-fr", "be-nl", "br-pt", "bg-bg", "ca-en", "ca-fr", "ct-ca",
    "cl-es", "cn-zh", "co-es", "hr-hr", "cz-cs", "dk-da", "ee-et", "fi-fi", "fr-fr", "de-de",
    "gr-el", "hk-tzh", "hu-hu", "is-is", "in-en", "id-en", "ie-en", "il-en", "it-it", "jp-jp",
    "kr-kr", "lv-lv", "lt-lt", "my-en", "mx-es", "nl-nl", "nz-en", "no-no", "pk-en", "pe-es",
    "ph-en", "pl-pl", "pt-pt", "ro-ro", "ru-ru", "xa-ar", "sg-en", "sk-sk", "sl-sl", "za-en",
    "es-ca", "es-es", "se-sv", "ch-de", "ch-fr", "tw-tzh", "th-en", "tr-tr", "us-en", "uk-en",
];

/// The `kl` pair for a configured region and language: the form's pair
/// when it offers one, otherwise all regions.
fn region_pair(region: &str, lang: &str) -> &'static str {
    let primary = lang.split('-').next().unwrap_or(lang);
    // The form spells a few languages its own way, and the United
    // Kingdom `uk`.
    let primary = match primary {
        "ja" => "jp",
        "ko" => "kr",
        "zh" => "zh",
        other => other,
    };
    let region = match region {
        "GB" => "uk".to_owned(),
        other => other.to_ascii_lowercase(),
    };
    let wanted = format!("{region}-{primary}");
    REGIONS
        .iter()
        .find(|pair| **pair == wanted)
        .copied()
        .unwrap_or("wt-wt")
}

/// The registry's request builder: GET with the form's parameters, no
/// header besides the User-Agent the pipeline adds.
fn build(endpoint: Option<&str>, ctx: &SearchContext<'_>) -> BuiltRequest {
    let base = ctx.endpoint(endpoint, DEFAULT_ENDPOINT);
    let mut params = form_urlencoded::Serializer::new(String::new());
    params.append_pair("q", ctx.query);
    params.append_pair("kl", region_pair(ctx.region, ctx.lang));
    params.append_pair(
        "kp",
        match ctx.safe_search {
            SafeSearch::Strict => "1",
            SafeSearch::Moderate => "-1",
            SafeSearch::Off => "-2",
        },
    );
    if let Some(range) = ctx.time_range {
        params.append_pair(
            "df",
            match range {
                TimeRange::Day => "d",
                TimeRange::Week => "w",
                TimeRange::Month => "m",
                TimeRange::Year => "y",
            },
        );
    }
    BuiltRequest {
        url: super::with_query(&base, &params.finish()),
        headers: Vec::new(),
        // Result links are absolute or DuckDuckGo's own wrappers.
        base_url: String::new(),
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    fn ctx<'a>(query: &'a str, lang: &'a str, region: &'a str) -> SearchContext<'a> {
        SearchContext {
            lang,
            query,
            count: 10,
            category: Category::General,
            region,
            safe_search: SafeSearch::Moderate,
            time_range: None,
            credential: None,
            contact: "",
            now_unix: 0,
        }
    }

    #[test]
    fn asks_the_html_endpoint_with_the_forms_parameters_and_no_browser_headers() {
        // Verifies: REQ-ENG-001, REQ-ENG-014
        let built = build(None, &ctx("rust & tokio", "en", "US"));
        assert_eq!(
            built.url,
            "https://html.duckduckgo.com/html/?q=rust+%26+tokio&kl=us-en&kp=-1"
        );
        assert!(built.headers.is_empty(), "only the standard User-Agent");
    }

    #[test]
    fn maps_time_range_and_safe_search() {
        // Verifies: REQ-SEARCH-005, REQ-SEARCH-008
        let mut c = ctx("q", "de", "DE");
        c.time_range = Some(TimeRange::Week);
        c.safe_search = SafeSearch::Strict;
        let url = build(None, &c).url;
        assert!(url.ends_with("?q=q&kl=de-de&kp=1&df=w"), "{url}");
    }

    #[test]
    fn a_pair_the_form_does_not_offer_searches_all_regions() {
        // Verifies: REQ-SEARCH-004, REQ-SEARCH-008
        assert_eq!(region_pair("JP", "ja"), "jp-jp");
        assert_eq!(region_pair("GB", "en"), "uk-en");
        assert_eq!(region_pair("BR", "pt-br"), "br-pt");
        assert_eq!(region_pair("US", "de"), "wt-wt");
        assert_eq!(region_pair("ZZ", "en"), "wt-wt");
    }
}
