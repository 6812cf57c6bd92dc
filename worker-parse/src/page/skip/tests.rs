//! The scan before parsing, on pieces of markup: what it skips and where
//! it stops.

use super::*;

fn skipped(html: &str) -> Vec<&str> {
    skippable(html, true)
        .into_iter()
        .map(|r| &html[r])
        .collect()
}

#[test]
fn script_and_style_contents_are_found() {
    let html = "<html><head><style>p{color:red}</style>\
        <script type=\"x\">if (a<b) x = '</scr' + 'ipt>';</script></head>\
        <body><p>Hi</p><SCRIPT>1</SCRIPT ></body>";
    assert_eq!(
        skipped(html),
        vec!["p{color:red}", "if (a<b) x = '</scr' + 'ipt>';", "1"]
    );
}

#[test]
fn quoted_attributes_and_comments_hide_tags() {
    // A `>` in a quoted value does not end the tag; a script inside a
    // comment or a title is not a script.
    let html = "<a title='x>y' href=\"<script>\">a</a><!-- <script>no</script> -->\
        <title><script>t</script></title><textarea><style></textarea><style>s</style>";
    assert_eq!(
        skipped(html),
        vec![" title='x>y'", " <script>no</script> ", "s"]
    );
}

#[test]
fn unread_attributes_are_left_out() {
    // Extraction reads `class`, `href`, `alt` and a few more; the others
    // go with the spaces before them. Formatting elements keep theirs;
    // a link is not one of them here.
    let html = "<div data-x=\"1\" class=a onclick='f()' hidden>\
        <img src=x.png alt=b srcset = \"a 1x\"><b data-y=2>b</b>\
        <a href=x rel=y>c</a><link href=s.css rel=stylesheet></div>";
    assert_eq!(
        skipped(html),
        vec![
            " data-x=\"1\"",
            " onclick='f()'",
            " src=x.png",
            " srcset = \"a 1x\"",
            " rel=y",
            " href=s.css",
            " rel=stylesheet"
        ]
    );
}

#[test]
fn comment_ends_are_the_tokenizer_s() {
    assert_eq!(skipped("<!--><script>a</script>"), vec!["a"]);
    assert_eq!(skipped("<!---><script>a</script>"), vec!["a"]);
    // `<!--!>` does not end the comment.
    assert_eq!(
        skipped("<!--!><script>a</script>--!><style>b</style>"),
        vec!["!><script>a</script>", "b"]
    );
}

#[test]
fn comment_text_is_left_out_in_html_content_only() {
    // `<!---->` stays in its place; a comment in a drawing goes with it.
    let html = "<p>a<!-- x -- y --->b<!---c--!>d</p><svg><!-- e --></svg>";
    assert_eq!(skipped(html), vec![" x -- y -", "-c", "<!-- e -->"]);
}

#[test]
fn foreign_content_is_not_raw_text() {
    // An SVG style or script is markup, left to the parser.
    let html = "<svg><style>a</style><script>b</script><title>T</title></svg>\
        <style>c</style><svg><svg></svg><path d='M0 0'/><g>x</svg><svg/>";
    assert_eq!(
        skipped(html),
        vec![
            "<style>a</style><script>b</script><title>T</title>",
            "c",
            "<svg></svg><path d='M0 0'/><g>x"
        ]
    );
}

#[test]
fn uncertain_constructs_stop_the_scan() {
    for html in [
        // A paragraph leaves the SVG: the tree builder knows, the scan stops.
        "<svg><p>x</p></svg><style>s</style>",
        "<svg><foreignObject><div>x</div></foreignObject></svg><style>s</style>",
        "<svg></g><style>s</style>",
        "<frameset><style>s</style>",
        "<svg><font color=red>x</font></svg><style>s</style>",
        "<![CDATA[x]]><style>s</style>",
    ] {
        assert!(skipped(html).is_empty(), "{html}");
    }
}

#[test]
fn script_escapes_are_followed() {
    // `<!--` then `<script>` inside a script: the first `</script>` ends
    // the inner one, the second the script itself.
    let html = "<script><!-- document.write('<script>x</script>') --></script><style>s</style>";
    assert_eq!(
        skipped(html),
        vec!["<!-- document.write('<script>x</script>') -->", "s"]
    );
    // Without the inner `<script`, `</script>` ends it inside `<!--`.
    assert_eq!(skipped("<script><!-- a </script>b"), vec!["<!-- a "]);
    // After the inner script's end, `</script>` ends the script again.
    assert_eq!(
        skipped("<script><!--<script></script></script>x</script>"),
        vec!["<!--<script></script>"]
    );
    // `<!-->` goes in and out of the escape at once.
    assert_eq!(
        skipped("<script><!--><script></script>"),
        vec!["<!--><script>"]
    );
}

#[test]
fn a_page_that_may_hold_a_frameset_is_read_whole() {
    // Text in a drawing decides whether a later <frameset> replaces the body.
    assert!(skipped("<svg>x</svg><style>s</style><frameset>").is_empty());
    assert!(skipped("<svg>x</svg><svg><p></svg><FRAMESET>").is_empty());
    assert_eq!(skipped("<svg>x</svg><!-- <frameset -->").len(), 2);
}

#[test]
fn noscript_follows_the_scripting_flag() {
    let html = "<noscript><style>s</style></noscript>";
    assert!(skippable(html, true).is_empty());
    assert_eq!(skippable(html, false).len(), 1);
}

#[test]
fn unterminated_input_ends_the_scan() {
    for html in ["<script>never ends", "<a href='x", "<!-- x", "<style", "<"] {
        assert!(skipped(html).is_empty(), "{html}");
    }
}
