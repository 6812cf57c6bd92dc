//! The tree is the same whether html5ever's tokenizer reads the whole page
//! or the parser skips what the scan before parsing found (`skip`) and
//! reads plain markup itself (`feed`): here, because only the parser
//! composes the two.

use proptest::prelude::*;

use super::parse_with;

fn outline(html: &str, own: bool) -> String {
    parse_with(html, true, usize::MAX, u32::MAX, own).outline()
}

// Verifies: REQ-PAGE-006
#[test]
fn character_references_and_raw_text_reach_the_tree_as_from_html5ever() {
    let html = "<!DOCTYPE html><title>A &amp; B</title><p>x &lt; y &amp z</p>\
        <textarea>&lt;b></textarea><svg><title>t</title></svg><pre>\nkept</pre>\
        a < b <noscript><p>n</p></noscript><plaintext><p>rest";
    assert_eq!(outline(html, true), outline(html, false));
    let tree = outline(html, true);
    assert!(tree.contains("\"x < y & z\""), "{tree}");
    assert!(tree.contains("\"<b>\""), "{tree}");
    assert!(tree.contains("\"kept\""), "{tree}");
}

// Verifies: REQ-PAGE-006: a byte order mark inside a page is text
#[test]
fn a_byte_order_mark_inside_the_page_is_kept() {
    // Text with a character reference goes to the tokenizer as an
    // input of its own, which starts with the mark here.
    let html = "<p>\u{feff}a &amp; b</p><p>\u{feff}c<!-- x -->\u{feff}d</p>";
    let tree = outline(html, true);
    assert_eq!(tree, outline(html, false));
    // The outline writes text as Rust's `{:?}` does.
    for text in ["\u{feff}a & b", "\u{feff}c", "\u{feff}d"] {
        assert!(tree.contains(&format!("{text:?}")), "{tree}");
    }
}

/// Compares the tree read whole with the tree read with the skips and
/// `feed`, with scripting and without.
fn same_tree(html: &str) {
    for scripting in [true, false] {
        let whole = parse_with(html, scripting, usize::MAX, u32::MAX, false);
        let skipped = parse_with(html, scripting, usize::MAX, u32::MAX, true);
        assert_eq!(whole.outline(), skipped.outline(), "{html:?}");
    }
}

/// Pieces that move the tokenizer and tree builder between states.
const PIECES: &[&str] = &[
    "<script>",
    "</script>",
    "<script type=x>",
    "<SCRIPT>",
    "</SCRIPT >",
    "</script/>",
    "</scripts>",
    "<script/>",
    "<style>",
    "</style>",
    "<!--",
    "-->",
    "--!>",
    "<!-->",
    "-",
    "<!",
    "<svg>",
    "</svg>",
    "<svg/>",
    "<math>",
    "</math>",
    "<title>",
    "</title>",
    "<textarea>",
    "</textarea>",
    "<noscript>",
    "</noscript>",
    "<iframe>",
    "</iframe>",
    "<xmp>",
    "</xmp>",
    "<foreignObject>",
    "</foreignObject>",
    "<desc>",
    "<mi>",
    "</mi>",
    "<annotation-xml>",
    "<font color=red>",
    "<font>",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<br>",
    "</br>",
    "<select>",
    "</select>",
    "<option>",
    "<table>",
    "<td>",
    "<tr>",
    "<template>",
    "</template>",
    "<head>",
    "<body>",
    "<a title='>'>",
    "<a href=x rel=y>",
    "<a x=1>",
    "<link href=a id=b>",
    "<meta charset=utf-8 class=c>",
    "</a>",
    "<b x=\"</script>\">",
    "<i a=b/>",
    "<![CDATA[",
    "]]>",
    "<!-- c -->",
    "<!-- <p> --!>",
    "<!---->",
    "<?pi>",
    "<!doctype html>",
    "<frameset>",
    "<plaintext>",
    "<path/>",
    "<g>",
    "</g>",
    "text",
    "a<b",
    "<",
    ">",
    "'",
    "\"",
    "/",
    "=",
    " ",
    "\n",
    "\r",
    "\u{0}",
    "é",
    "<div data-x=1>",
    "<p title=\"a>b\" class=c>",
    "<div x y=1 z = '2' id=k>",
    "<img src=a alt=b>",
    "<p id=a/>",
    "<div x='1'y=2>",
    "<input type=hidden x=1>",
    "<template shadowrootmode=open x=1>",
    "<div CLASS=a DATA-X=1>",
    "<span x=1/>",
    "<svg x=1/>",
    "<b x=1>",
    "</div x=1>",
    "<td x=1 colspan=2>",
    "<input type=hidden x=1/>",
    "<p id=a x=\"1\"/>",
    "<div x",
    " y=1",
    "/>",
    // What `feed` reads itself, and what it leaves to the tokenizer.
    "&amp;",
    "&amp",
    "&notin",
    "a&b",
    "<p a=\"&amp;\">",
    "<p a=x&y>",
    // References `feed` reads itself where each has one reading.
    "&quot;",
    "&nbsp;",
    "&acE;",
    "&NewLine;",
    "&#65;",
    "&#x1F600;",
    "&#xD800;",
    "&#0;",
    "&#128;",
    "&#10;",
    "&#65",
    "&#;",
    "&#x;",
    "&copy2024",
    "&zz;",
    "&w=1",
    "&;",
    ";",
    "#",
    "<a href=\"?a=1&amp;b=2&w=3\">",
    "<a href=\"?x&copy=1\">",
    "<a href='&notit;'>",
    "<p title=a&quot;b>",
    // Line breaks as the tokenizer's input reads them.
    "\r\n",
    "a\r",
    "<p title=\"a\r\nb\rc\">",
    "<pre>\r\n",
    "<p\r\nclass=a\r\n>",
    "<a\rhref=x\r/>",
    "<pre>",
    "<div CLASS=a class=b id=c ID=d>",
    "<svg></svg>",
    "<title></title>",
    "<textarea></textarea>",
    "<noscript></noscript>",
    "<plaintext></plaintext>",
    "\u{feff}",
    "<x-y>",
    "</x-y>",
    "<a/b>",
    "</>",
    "</ p>",
    "<p\n\tclass=\"a\"\n>",
    "<br/ >",
    "<p =a>",
    "<p a= >",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    // Verifies: REQ-PAGE-006 (the skip changes the work, not the result)
    #[test]
    fn skip_preserves_tree(pieces in proptest::collection::vec(0..PIECES.len(), 0..48)) {
        let html: String = pieces.into_iter().map(|i| PIECES[i]).collect();
        same_tree(&html);
    }
}

/// Pieces of scripts: the escape states.
const SCRIPT_PIECES: &[&str] = &[
    "<script>",
    "</script>",
    "<script ",
    "</script ",
    "<!--",
    "-->",
    "--",
    "-",
    "<!",
    "<",
    ">",
    "/",
    "x",
    "<p>",
    "</p>",
    "<style>",
    "</style>",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    // Verifies: REQ-PAGE-006
    #[test]
    fn skip_preserves_script_escapes(
        pieces in proptest::collection::vec(0..SCRIPT_PIECES.len(), 0..32),
    ) {
        let html: String = pieces.into_iter().map(|i| SCRIPT_PIECES[i]).collect();
        same_tree(&html);
    }
}

#[test]
fn skip_preserves_the_tree_of_real_pages() {
    for page in [
        include_str!("../../../testdata/pages/article-spacereview.html"),
        include_str!("../../../testdata/pages/documentation-rhino.html"),
        include_str!("../../../testdata/pages/forum-archlinux.html"),
    ] {
        same_tree(page);
    }
}

/// The text of a tree in document order, as the outline shows it.
fn texts(html: &str, max_depth: u32) -> Vec<String> {
    parse_with(html, true, usize::MAX, max_depth, true)
        .outline()
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('"'))
        .map(|l| l.trim_matches('"').to_owned())
        .collect()
}

// Verifies: REQ-PAGE-002 (a streamed page read as a browser shows it)
#[test]
fn a_streamed_page_s_parked_parts_take_their_placeholders_places() {
    // React's streamed rendering: a boundary's placeholder and fallback up
    // to the comment that closes it, a segment's placeholder, and the
    // parts parked at the end of the body, paired by number.
    let html = "<body><main><h1>Title</h1><!--$?--><template id=\"B:0\"></template>\
        <div>Loading paragraph</div><!--/$--><p>Author box</p>\
        <template id=\"P:1\"></template><p>Footer</p></main>\
        <div hidden id=\"S:0\"><p>Article text</p></div>\
        <div hidden id=\"S:1\"><p>Second part</p></div>\
        <div hidden id=\"S:7\"><p>Unclaimed</p></div></body>";
    assert_eq!(
        texts(html, u32::MAX),
        [
            "Title",
            "Article text",
            "Author box",
            "Second part",
            "Footer",
            "Unclaimed"
        ]
    );
    let tree = parse_with(html, true, usize::MAX, u32::MAX, true).outline();
    // The moved parts show; the one no placeholder claims stays hidden.
    assert_eq!(tree.matches("Atom('hidden'").count(), 1, "{tree}");
    assert!(
        !tree.contains("\"B:0\"") && !tree.contains("\"P:1\""),
        "{tree}"
    );
    // Without a comment to close it, a boundary's fallback is kept: where
    // it ends is not known.
    let open = "<body><template id=\"B:0\"></template><p>Spinner</p>\
        <div hidden id=\"S:0\"><p>Text</p></div></body>";
    assert_eq!(texts(open, u32::MAX), ["Text", "Spinner"]);
}

// Verifies: REQ-PAGE-006 (hostile streamed markup stays a tree, in bounds)
#[test]
fn a_placeholder_inside_its_own_part_or_too_deep_is_left_alone() {
    // The placeholder sits in its own part: moving would make a cycle.
    let cycle =
        "<body><div hidden id=\"S:0\"><p>Inner</p><template id=\"B:0\"></template></div></body>";
    let tree = parse_with(cycle, true, usize::MAX, u32::MAX, true).outline();
    assert!(
        tree.contains("\"S:0\"") && tree.contains("\"B:0\""),
        "{tree}"
    );
    assert!(tree.contains("Atom('hidden'"), "{tree}");
    // Parts claiming each other's placeholders, in a ring: each moves at
    // most once, and the tree stays finite.
    let ring = "<body><div hidden id=\"S:0\"><template id=\"B:1\"></template>a</div>\
        <div hidden id=\"S:1\"><template id=\"B:0\"></template>b</div></body>";
    let texts_of_ring = texts(ring, u32::MAX);
    assert_eq!(texts_of_ring.len(), 2, "{texts_of_ring:?}");
    // A part that would nest past the depth bound below its placeholder
    // stays where it is.
    let nested = "<div><div><div><div><template id=\"P:0\"></template></div></div></div></div>";
    let deep = format!(
        "<body>{nested}<div hidden id=\"S:0\"><div><div><p>Deep</p></div></div></div></body>"
    );
    let bounded = parse_with(&deep, true, usize::MAX, 8, true);
    assert!(bounded.outline().contains("\"P:0\""));
    let roomy = parse_with(&deep, true, usize::MAX, 12, true);
    assert!(!roomy.outline().contains("\"P:0\""), "{}", roomy.outline());
}
