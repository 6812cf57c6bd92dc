//! The Arxiv answer parser (REQ-SEC-023): any status, headers and body
//! give hits or a failure class, deterministically, within the bounds every
//! engine parser keeps (`common::check_engine_answer`).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_proto::EngineKind;

fuzz_target!(|data: &[u8]| common::check_engine_answer(EngineKind::Arxiv, data));
