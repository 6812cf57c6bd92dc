//! Prints what `read_page` makes of one HTML file (plain or `.gz`):
//! `cargo run --release -p rypsok-worker-parse --example extract_page -- FILE [URL]`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;

use rypsok_worker_parse::page::{PageInput, PageResult, read_page};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let raw = std::fs::read(&args[1]).expect("read FILE");
    let body = if args[1].ends_with(".gz") {
        let mut body = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut body)
            .expect("gunzip");
        body
    } else {
        raw
    };
    let url = args.get(2).map_or("https://example.com/", String::as_str);
    match read_page(&PageInput {
        body: &body,
        content_type: Some("text/html"),
        url,
    }) {
        PageResult::Page(p) => {
            println!(
                "title: {:?}\npartial: {}\n\n{}",
                p.title, p.partial, p.markdown
            );
        }
        other => println!("{other:?}"),
    }
}
