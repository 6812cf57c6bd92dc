//! Pages that need scripts to show their text, on small pages of our own:
//! empty frames, consent banners alone, and the pages beside them that are
//! read as before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::super::{PageInput, PageResult, read_page};
use super::*;

fn read(body: &str) -> PageResult {
    read_page(&PageInput {
        body: body.as_bytes(),
        content_type: Some("text/html; charset=utf-8"),
        url: "https://example.com/app",
    })
}

fn judged(body: &str) -> bool {
    needs_scripts(&crate::page::dom::parse(body, true))
}

const STORY: &str = "<p>The river rose three metres overnight, flooding the lower town \
    and closing the old bridge for the first time since records began. Crews worked \
    through the night to move families from the houses nearest the water.</p>";

const SCRIPTS: &str = "<script src=\"/static/app.js\"></script><script>window.boot()</script>";

// Verifies: REQ-PAGE-006
#[test]
fn an_empty_mount_element_with_scripts_needs_scripts() {
    let page = format!(
        "<!doctype html><html><head>{SCRIPTS}</head><body><div id=\"root\"></div></body></html>"
    );
    assert!(judged(&page));
    assert_eq!(read(&page), PageResult::NeedsScripts);
}

// Verifies: REQ-PAGE-006
#[test]
fn a_noscript_request_is_not_returned_as_the_page_s_content() {
    for body in [
        "<noscript>You need to enable scripts to run this app.</noscript><div id=\"app\"></div>",
        "<noscript><p>Please turn scripts on.</p></noscript><main id=\"main\">Loading</main>",
        "<noscript>Scripts are off.</noscript>",
    ] {
        let page = format!("<html><head>{SCRIPTS}</head><body>{body}{SCRIPTS}</body></html>");
        assert_eq!(read(&page), PageResult::NeedsScripts, "{body}");
    }
}

// Verifies: REQ-PAGE-006
#[test]
fn a_consent_banner_alone_needs_scripts() {
    for banner in [
        "<div class=\"cookie-banner\"><p>We use cookies to measure visits and to remember \
         your choices. You can accept them all or choose which ones to allow.</p>\
         <button>Accept</button><button>Choose</button></div>",
        "<div role=\"dialog\"><h2>Your privacy</h2><p>Partners store and read information \
         on your device to show content and measure it.</p><button>Agree</button></div>",
        "<section id=\"gdpr-notice\">Consent is needed before this page can load.</section>",
    ] {
        let page = format!("<html><head>{SCRIPTS}</head><body>{banner}</body></html>");
        assert!(judged(&page), "{banner}");
        assert_eq!(read(&page), PageResult::NeedsScripts, "{banner}");
    }
}

// Verifies: REQ-PAGE-002, REQ-PAGE-006
#[test]
fn pages_with_text_of_their_own_are_read_as_before() {
    // An article beside a consent banner, a mount element and a noscript line.
    let page = format!(
        "<html><head>{SCRIPTS}</head><body><div id=\"root\"></div>\
         <noscript>Turn scripts on for comments.</noscript>\
         <div class=\"cookie-consent\"><p>We use cookies.</p></div>\
         <article><h1>Flood</h1>{STORY}{STORY}</article></body></html>"
    );
    assert!(!judged(&page));
    match read(&page) {
        PageResult::Page(p) => assert!(p.markdown.contains("The river rose"), "{}", p.markdown),
        other => panic!("expected a page, got {other:?}"),
    }
    // Text parked in a noscript for readers without scripts is read there.
    let long = format!(
        "<html><head>{SCRIPTS}</head><body><div id=\"app\"></div>\
         <noscript>{STORY}{STORY}</noscript></body></html>"
    );
    match read(&long) {
        PageResult::Page(p) => assert!(p.markdown.contains("The river rose"), "{}", p.markdown),
        other => panic!("expected a page, got {other:?}"),
    }
    // Text hidden until a script reveals it is text of the page's own.
    let hidden = format!(
        "<html><head>{SCRIPTS}</head><body><div id=\"app\"></div>\
         <div style=\"display:none\"><article>{STORY}</article></div></body></html>"
    );
    assert!(!judged(&hidden));
}

// Verifies: REQ-PAGE-006
#[test]
fn an_empty_page_without_scripts_is_no_content_not_a_frame() {
    assert!(!judged("<html><body><div id=\"root\"></div></body></html>"));
    assert_eq!(
        read("<body><nav><a href=\"/a\">A</a><a href=\"/b\">B</a></nav></body>"),
        PageResult::NoContent
    );
}
