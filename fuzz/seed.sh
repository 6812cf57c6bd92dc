#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/
# from the project's own fixtures and test tables (engine answers, pages,
# the URL, secret and instruction tables, the configuration fixtures), plus
# a few hand-written seeds where the project has no fixture. Idempotent:
# seeds are named by content, and a corpus the fuzzer grew is kept.
set -euo pipefail
cd "$(dirname "$0")"
root=..
parse=$root/worker-parse/testdata
core=$root/supervisor/core/testdata
corpus=corpus

seed() { # seed TARGET < bytes
    mkdir -p "$corpus/$1"
    local tmp
    tmp=$(mktemp)
    cat >"$tmp"
    mv "$tmp" "$corpus/$1/seed-$(sha1sum "$tmp" | cut -c1-16)"
}

# Engine answers: a status byte (0: 200, 3: 429, 4: 403; see
# fuzz_targets/common), headers, an empty line, the body.
for f in "$parse"/wikipedia/*.json; do
    { printf '\0content-type: application/json\n\n'; cat "$f"; } | seed wikipedia_answer
done
{ printf '\4'; grep ':' "$parse/wikipedia/wikimedia_403_user_agent_policy.headers.txt"; printf '\n'
  cat "$parse/wikipedia/wikimedia_403_user_agent_policy.txt"; } | seed wikipedia_answer
printf '\3retry-after: 120\n\n' | seed wikipedia_answer
for f in "$parse"/brave/*.json; do
    { printf '\0content-type: application/json\n\n'; cat "$f"; } | seed brave_answer
    { printf '\3x-ratelimit-limit: 1, 2000\nx-ratelimit-remaining: 0, 1999\nx-ratelimit-reset: 1, 2419200\n\n'
      cat "$f"; } | seed brave_answer
done
for f in "$parse"/duckduckgo/*.html; do
    { printf '\0content-type: text/html; charset=UTF-8\n\n'; cat "$f"; } | seed duckduckgo_answer
done
{ printf '\3\n'; cat "$parse/duckduckgo/written_anomaly_challenge.html"; } | seed duckduckgo_answer

# The other engines: every fixture body behind a 200 (and for the error
# fixtures, behind their own status byte as well: 3 is 429, 4 is 403, 5 is
# 422, 7 is 503).
for engine in crossref openalex arxiv hackernews gdelt stackexchange github searxng; do
    for f in "$parse/$engine"/*; do
        case $f in *.md | *.headers.txt) continue ;; esac
        { printf '\0\n\n'; cat "$f"; } | seed "${engine}_answer"
        case $(basename "$f") in
            *429* | *rate* | *throttle*) { printf '\3retry-after: 5\n\n'; cat "$f"; } | seed "${engine}_answer" ;;
            *403*) { printf '\4x-ratelimit-remaining: 0\n\n'; cat "$f"; } | seed "${engine}_answer" ;;
            *503*) { printf '\7\n\n'; cat "$f"; } | seed "${engine}_answer" ;;
        esac
    done
done

# Pages: as HTML, and for the charset target behind a Content-Type line.
for f in "$parse"/pages/*.html; do
    seed html_extract <"$f"
    seed html_skip <"$f"
    { printf 'text/html; charset=utf-8\n'; head -c 8192 "$f"; } | seed charset_decode
done
printf 'text/plain; charset=windows-1252\nna\xefve caf\xe9\n' | seed charset_decode
# Script shells whose text is only in structured data (the fallback of
# page/structured.rs): JSON-LD in a @graph, embedded page data with an
# HTML body, a window assignment of plain JSON, a recipe in sections, a
# product beside page data.
s='The council met to weigh the plan. The members agreed to hear the fishermen. '
s="$s$s$s$s$s$s"
printf '<html><head><script type="application/ld+json">{"@graph":[{"@type":"WebSite","name":"G"},{"@type":"NewsArticle","headline":"H &amp; h","articleBody":"%s\\n\\n%s"}]}</script></head><body><div id="root"></div></body></html>' "$s" "$s" | seed html_extract
printf '<html><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"post":{"content":"<h2>T<\\/h2><p>%s<\\/p><p>%s<\\/p>"}}}}</script></body></html>' "$s" "$s" | seed html_extract
printf '<html><head><script type="application/ld+json">{"@type":["Recipe"],"name":"R","description":"%s","recipeIngredient":["a","<b>"],"recipeInstructions":[{"@type":"HowToSection","name":"S","itemListElement":[{"@type":"HowToStep","name":"N","text":"<p>%s<\\/p>","itemListElement":{"@type":"HowToTip","text":"t"}}]},"%s"],"step":"x"}</script></head><body><div id="root"></div></body></html>' "$s" "$s" "$s" | seed html_extract
printf '<html><head><script type="application/ld+json">[{"@type":"http://schema.org/Product","name":"P","description":"%s"},{"@type":"Article","description":"%s"}]</script><script type="application/json">{"b":"%s"}</script></head><body><div id="root"></div></body></html>' "$s" "$s" "$s" | seed html_extract
printf '<html><body><p>Loading</p><script>window.__STATE__ = {"a":[{"body":"%s"}]};</script></body></html>' "$s" | seed html_extract
# Tabs and an accordion whose hidden panels their controls open
# (extract/exclusion.rs), a control hidden itself, a panel named by none.
printf '<html><body><article><p>%s</p><div role="tablist"><button role="tab" id="t1" aria-controls="p1">A</button><button aria-expanded="false" aria-controls="p2 p3">B</button></div><div role="tabpanel" id="p1" hidden><p>%s</p></div><div id="p2" style="display:none" aria-labelledby="t1"><p hidden>c</p></div><div hidden><span role="tab" id="t9" aria-controls="p9">x</span></div><div id="p9" hidden>y</div><div id="p4" aria-hidden="true">z</div></article></body></html>' "$s" "$s" | seed html_extract
# A page's one marked article beside a block that splits its text
# (extract/second.rs), an article nested in it, a body marked by itemprop.
printf '<html><body><div><article><h1>T</h1><p>%s</p><article><p>c</p></article></article><div><p>%s</p></div><div itemprop="articleBody"><p>b</p></div></div></body></html>' "$s" "$s" | seed html_extract
# An article in a sidebar, the only text (the lenient read takes it,
# extract/exclusion.rs), ruby readings, a logo heading above the post's
# <h2> title and a thread dated 11h29 (extract/second.rs).
printf '<html><head><title>P : S</title></head><body><main><aside><article><div itemprop="articleBody"><p><ruby>a<rp>(</rp><rt>b</rt><rp>)</rp></ruby>%s</p></div></article></aside></main></body></html>' "$s" | seed html_extract
printf '<html><head><title>P : Site</title></head><body><h1><a href="/">Site</a></h1><div><h2>P</h2><p>%s</p></div><ul><li class="r">1 @11h29 <p>%s</p></li><li class="r">2h30 <p>%s</p></li><li class="r">9:41<p>c</p></li></ul></body></html>' "$s" "$s" "$s" | seed html_extract
# Class and id names written in camel case (extract/names.rs): words at
# capitals, two that make one, capitals that start no word, digits.
printf '<html><body><div class="SiteFooter x"><p>%s</p></div><div id="shareButtons--iconic"><p>%s</p></div><div class="SHAREHOLDERS a_B9Menu"><p>c</p></div><div class="Äb̈Cookie-"><p>d</p></div></body></html>' "$s" "$s" | seed html_extract
# Replies set like the opening post, in a comment section and in a
# dated list (extract/exclusion.rs), a reply nested in a reply.
printf '<html><body><div class="m"><p>%s</p><p>%s</p></div><div class="comments"><ul><li><time>1</time><div class="m"><p>%s</p><div class="comments"><div class="m"><p>b</p></div></div></div></li><li><time>2</time><div class="m"><p>%s</p></div></li><li><time>3</time><div class="n"><p>c</p></div></li></ul></div></body></html>' "$s" "$s" "$s" "$s" | seed html_extract
# A post of bare text between line breaks and replies of a line, set in
# the post's kind of block, named as comments and dated (extract/exclusion.rs).
printf '<html><body><article class="m"><div>%s<br><br>%s<br><br>x</div></article><div class="comments"><ul><li><time>1</time><article class="m"><div>a</div></article></li><li><time>2</time><article class="m"><pre>b</pre></article></li><li><time>3</time><article class="n"><p>c</p></article></li></ul></div></body></html>' "$s" "$s" | seed html_extract
# An accordion hiding the part that wraps its panel (extract/exclusion.rs):
# wrapped alone, wrapped beside text, wrapped too deep, named by its label.
printf '<html><body><main><p>%s</p><button aria-expanded="false" aria-controls="a">A</button><div style="display:none"><div><div id="a"><p>%s</p></div></div></div><button id="t" role="tab">B</button><div hidden>x<div aria-labelledby="t"><p>b</p></div></div><div class="hidden"><div><div><div><div><div id="a">c</div></div></div></div></div></div></main></body></html>' "$s" "$s" | seed html_extract
# A live report: dated entries headed by their own text after prose,
# one headline a link, one empty, an entry nested in an entry
# (extract/exclusion.rs).
printf '<html><body><article><p>%s</p><p>%s</p><div><div><time>1</time><h3>a</h3><p>b</p></div><div><time>2</time><h3><a href="/x">c</a></h3><p>%s</p></div><div><time>3</time><h2></h2><div><time>4</time><h4>d</h4></div></div><div><time>5</time><h6>e</h6></div></div></article></body></html>' "$s" "$s" "$s" | seed html_extract
# A declared discussion (page/structured.rs, extract/exclusion.rs): a
# thread whose replies are named as comments, declared in JSON-LD and in
# microdata; a paper's abstract beside its references (extract/root.rs),
# and a word a page hyphenates.
printf '<html><head><script type="application/ld+json">{"@graph":[{"@type":["DiscussionForumPosting"]}]}</script></head><body><div class="m" itemscope itemtype="https://schema.org/QAPage"><p>%s</p></div><div class="comments"><div class="c"><p>%s</p></div><div class="c"><p>b</p></div><div class="c"><p>c</p></div></div><article><section><p>%s</p></section><section><ol><li><p>%s</p></li><li><p>%s</p></li><li><p>hy&shy;phen\xc2\xadated</p></li></ol></section></article></body></html>' "$s" "$s" "$s" "$s" "$s" | seed html_extract
# An article's footer that holds its transcript, one nested in it with a
# role, and the page's own footer; a slideshow set in a sidebar beside a
# line of introduction, a sidebar in it (extract/exclusion.rs).
printf '<html><body><article><p>%s</p><footer><p>by a</p><div><p>%s</p><p>%s</p></div><footer role="contentinfo"><p>%s</p></footer></footer></article><footer><p>%s</p></footer></body></html>' "$s" "$s" "$s" "$s" "$s" | seed html_extract
printf '<html><body><div><h1>T</h1><p>one line</p></div><aside id="r"><ul><li><h2>1</h2><p>%s</p></li><li><aside><p>%s</p></aside></li></ul></aside><header><p>%s</p></header></body></html>' "$s" "$s" "$s" | seed html_extract
# An article set in chunks named for their layout, with copies of one
# placeholder among them (extract/exclusion.rs); an article whose page
# shows its opening and declares its whole body in JSON-LD, a link in the
# opening (page/structured.rs).
printf '<html><body><article><h1>T</h1><div class="sidebar-grid"><div class="sidebar-grid__c"><p>%s</p></div><aside>ad</aside><div class="sidebar-grid__c"><p>%s</p><div class="sidebar-grid__c"><p>%s</p></div></div><div class="social-x"><p>b</p></div><div class="social-x"><p>b</p></div></div></article></body></html>' "$s" "$s" "$s" | seed html_extract
printf '<html><head><script type="application/ld+json">{"@type":"NewsArticle","articleBody":"%s\\n\\n%s\\n\\n%s\\n\\n%s"}</script></head><body><article><p>By a</p><p>%s [x](y) <a href="/z">](</a></p><div hidden><p>%s</p></div></article></body></html>' "$s" "$s" "$s" "$s" "$s" "$s" | seed html_extract
# A streamed page: the text parked at the end, for its placeholder
# (dom/streamed.rs), a part nested in another, one claimed by none.
printf '<html><body><main><h1>T</h1><!--$?--><template id="B:0"></template><p>Loading</p><!--/$--><template id="P:2"></template></main><div hidden id="S:0"><p>%s</p><template id="B:1"></template></div><div hidden id="S:1"><p>%s</p></div><div hidden id="S:2"><p>b</p></div><div hidden id="S:9">x</div></body></html>' "$s" "$s" | seed html_extract
printf 'text/plain; charset=shift_jis\n\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd\n' | seed charset_decode
printf '\n\xef\xbb\xbfBOM then UTF-8 \xc3\xa9\n' | seed charset_decode
printf 'text/html\n<meta charset="koi8-r"><p>\xf0\xd2\xc9\xd7\xc5\xd4</p>\n' | seed charset_decode
printf '\n\xff\xfeU\0T\0F\0-\0001\0006\0' | seed charset_decode

# URLs: the first column of the SSRF and URL-policy table.
grep -v '^#' "$core/fetch/ssrf-urls.tsv" | cut -f1 | while IFS= read -r url; do
    [ -n "$url" ] && printf '%s' "$url" | seed url_policy
done

# Secrets: the table's strings are base64 of the original text.
grep -v '^#' "$core/secret/secrets.tsv" | tail -n +2 | cut -f2 | while IFS= read -r b64; do
    [ -n "$b64" ] && printf '%s' "$b64" | base64 -d | seed secret_detect
done

# Instruction-like and benign texts; they also seed the cleaners (first
# byte: the bound).
grep -v '^#' "$core/instruction/instruction-like.tsv" | cut -f2 | while IFS= read -r text; do
    [ -n "$text" ] || continue
    printf '%s' "$text" | seed instruction_detect
    { printf '\x78'; printf '%s' "$text"; } | seed boundary_clean
done
printf '\x40<span class="searchmatch">Rust</span> &amp; <b>Cargo</b>&nbsp;&#x1F980;\xe2\x80\x8b' | seed boundary_clean
printf '\x08e\xe2\x80\x8d\xcc\x81 \xd9\x84\xe2\x80\x8c\xd8\xa7 line\r\nend\ttab' | seed boundary_clean

# Configuration files, valid and invalid.
for f in "$core"/config/*.toml; do seed config_load <"$f"; done

# Tool arguments.
for args in '{"query":"rust borrow checker"}' \
    '{"query":"nachrichten","category":"news","max_results":5,"language":"de","time_range":"week"}' \
    '{"url":"https://example.org/","max_chars":2000,"start_char":10}' \
    '{"query":" ","unknown":1}' '{}' '{"url":17}'; do
    printf '%s' "$args" | seed tool_args
done

# Headers.
printf 'retry-after: 120\ncontent-type: text/html; charset="ISO-8859-1"\n' | seed header_values
printf 'retry-after: 99999999999999999999\nx-ratelimit-reset: 1, 86400\nx-ratelimit-remaining: 0, 5\n' | seed header_values
printf 'Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\ncontent-type: text/plain;charset=utf-16le\n' | seed header_values
# Past any length limit: capped, never refused.
nines=$(printf '9%.0s' $(seq 70))
printf 'retry-after: %s\nx-ratelimit-reset: %s, 5\n' "$nines" "$nines" | seed header_values

# robots.txt, then 0xFF, then paths.
printf 'User-agent: *\nDisallow: /private/\nAllow: /private/ok$\n\nUser-agent: rypsok\nDisallow: /*.pdf$\nAllow: /%%7Euser/\n\xff/private/x\n/doc.pdf\n/%%7euser/a\n' | seed robots
printf 'user-agent: rypsok/1.0\nuser-agent: other\ndisallow: /\nallow: /$\n# comment\nsitemap: https://example.org/s.xml\n\xff/\n/a\n/robots.txt\n' | seed robots

# Addresses: mode byte (even: IPv4, odd: IPv6), the address, a port, a rule.
printf '\0\x0a\x00\x00\x01\x01\xbb10.0.0.0/8' | seed egress_address
printf '\0\x5d\xb8\xd8\x22\x00\x50' | seed egress_address
printf '\1\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x7f\x00\x00\x01\x00\x50[::ffff:127.0.0.0]/104' | seed egress_address
printf '\1\x20\x02\xc0\xa8\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x01\xbbexample.org:*' | seed egress_address

# PDF documents: the committed test sets (tests/data/pdf/PROVENANCE.md and
# tests/data/pdf/real/PROVENANCE.md, the real-world hostile files of
# real/hostile/ among them), all but the largest (libFuzzer's default input
# bound).
for f in "$root"/tests/data/pdf/*.pdf "$root"/tests/data/pdf/real/*.pdf "$root"/tests/data/pdf/real/hostile/*.pdf; do
    if [ "$(stat -c %s "$f")" -le 262144 ]; then
        seed pdf_read <"$f"
    fi
done

# Frames: a length prefix and a short body.
printf '\2\0\0\0\0\0' | seed frame_decode
printf '\0\0\0\0' | seed frame_decode

echo "seeded: $(find "$corpus" -type f | wc -l) files in $(find "$corpus" -mindepth 1 -type d | wc -l) corpora"
