//! Extraction benchmark: runs `read_page` over page sets with ground truth
//! (`articles/`, `mixed/` and, when present, `wcxb-dev/` of the bench
//! folder, or the SETs named: a name in the bench folder or a set's own
//! folder), writes the predictions in the scorer's format and prints the
//! throughput.
//!
//! ```text
//! cargo run --release --locked -p rypsok-worker-parse --example bench_extract -- BENCH_DIR OUT_DIR [SET...]
//! ```
//!
//! A SET given as a path (`/…/readability-tests`) is read from there and
//! named by its last component.
//! For each set it writes `OUT_DIR/<set>.json` (`{"<id>": {"articleBody": …}}`)
//! and prints one line: pages, MB, and the median over five timed passes of
//! pages per second and MB per second (extraction only, pages in memory).
//! `BENCH_PASSES=N` sets the number of passes (`BENCH_PASSES=1` under an
//! instruction counter such as callgrind).
//! Time is the process's CPU time, not the clock's: on a shared machine
//! the clock also counts other processes' turns.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::path::Path;

use rypsok_worker_parse::page::{PageInput, PageResult, read_page};

const PASSES: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(
        args.len() >= 3,
        "usage: bench_extract BENCH_DIR OUT_DIR [SET...]"
    );
    let bench = Path::new(&args[1]);
    let out = Path::new(&args[2]);
    std::fs::create_dir_all(out).expect("create OUT_DIR");
    let sets: Vec<&str> = if args.len() > 3 {
        args[3..].iter().map(String::as_str).collect()
    } else {
        ["articles", "mixed", "wcxb-dev"]
            .into_iter()
            .filter(|s| bench.join(s).join("ground-truth.json").exists())
            .collect()
    };
    let passes = std::env::var("BENCH_PASSES")
        .ok()
        .and_then(|p| p.parse().ok())
        .filter(|&p| p > 0)
        .unwrap_or(PASSES);
    for set in sets {
        // A set's name is its folder's name, wherever the folder is.
        let dir = bench.join(set);
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(set)
            .to_owned();
        run_set(&dir, &out.join(format!("{name}.json")), &name, passes);
    }
}

fn run_set(dir: &Path, pred_path: &Path, set: &str, passes: usize) {
    let truth: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(
        &std::fs::read(dir.join("ground-truth.json")).expect("ground truth"),
    )
    .expect("ground truth JSON");
    let mut pages = Vec::new();
    for (id, v) in &truth {
        let gz = std::fs::read(dir.join("html").join(format!("{id}.html.gz"))).expect("page");
        let mut body = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut body)
            .expect("gunzip");
        let url = v
            .get("url")
            .and_then(|u| u.as_str())
            .unwrap_or("")
            .to_owned();
        pages.push((id.clone(), url, body));
    }
    let bytes: usize = pages.iter().map(|p| p.2.len()).sum();
    let mut preds = serde_json::Map::new();
    let mut times = Vec::new();
    let (mut partial, mut empty, mut structured, mut needs_scripts) = (0, 0, 0, 0);
    for pass in 0..passes {
        let start = cpu_seconds();
        for (id, url, body) in &pages {
            let result = read_page(&PageInput {
                body,
                content_type: Some("text/html"),
                url,
            });
            if pass == 0 {
                let text = match result {
                    PageResult::Page(p) => {
                        partial += usize::from(p.partial);
                        structured += usize::from(p.from_structured_data);
                        p.markdown
                    }
                    PageResult::NeedsScripts => {
                        empty += 1;
                        needs_scripts += 1;
                        String::new()
                    }
                    PageResult::NoContent | PageResult::Unsupported { .. } => {
                        empty += 1;
                        String::new()
                    }
                };
                preds.insert(id.clone(), serde_json::json!({ "articleBody": text }));
            }
        }
        times.push(cpu_seconds() - start);
    }
    times.sort_by(f64::total_cmp);
    let median = times[passes / 2];
    std::fs::write(pred_path, serde_json::to_vec(&preds).expect("JSON"))
        .expect("write predictions");
    let mb = bytes as f64 / 1e6;
    println!(
        "{set}: {} pages, {mb:.1} MB, {:.0} pages/s, {:.1} MB/s (CPU time, median of {passes}); {partial} partial, {empty} without content ({needs_scripts} needing scripts), {structured} from structured data",
        pages.len(),
        pages.len() as f64 / median,
        mb / median,
    );
}

/// CPU time used by this process so far, in seconds.
fn cpu_seconds() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    secs(usage.user_time()) + secs(usage.system_time())
}
