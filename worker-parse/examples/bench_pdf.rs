//! PDF benchmark helper for `tests/bench/pdf.sh` (issue: PDF documents,
//! item 7): reads every `*.pdf` of a directory with the worker's PDF reader,
//! writes each text to `OUT_DIR/NAME.txt` (page markers left out, so the
//! words compare with other extractors'), and prints the CPU time per MB,
//! the median of five passes over the whole set.
//!
//! Usage: bench_pdf PDF_DIR OUT_DIR
#![allow(clippy::print_stdout, clippy::expect_used, clippy::unwrap_used)]

use std::path::PathBuf;

use rypsok_worker_parse::pdf::{PdfResult, read_pdf};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(&args[1]);
    let out = PathBuf::from(&args[2]);
    std::fs::create_dir_all(&out).expect("out dir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("pdf dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    files.sort();
    let docs: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("read");
            (p, bytes)
        })
        .collect();
    let bytes: usize = docs.iter().map(|(_, b)| b.len()).sum();
    for (path, body) in &docs {
        let text = match read_pdf(body) {
            PdfResult::Text { markdown, .. } => markdown
                .split("\n\n")
                .filter(|p| !(p.starts_with("Page ") && p[5..].chars().all(|c| c.is_ascii_digit())))
                .collect::<Vec<_>>()
                .join("\n\n"),
            _ => String::new(),
        };
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        std::fs::write(out.join(format!("{name}.txt")), text).expect("write");
    }
    let mut passes: Vec<f64> = (0..5)
        .map(|_| {
            let start = cpu_seconds();
            for (_, body) in &docs {
                std::hint::black_box(read_pdf(body));
            }
            cpu_seconds() - start
        })
        .collect();
    passes.sort_by(f64::total_cmp);
    let mb = bytes as f64 / 1e6;
    println!(
        "rypsok: {} documents, {mb:.2} MB, CPU {:.3} s per MB (median of 5 passes)",
        docs.len(),
        passes[2] / mb
    );
}

fn cpu_seconds() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    secs(usage.user_time()) + secs(usage.system_time())
}
