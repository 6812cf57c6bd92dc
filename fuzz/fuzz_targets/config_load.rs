//! The configuration loader (REQ-SEC-023, REQ-CFG-*): arbitrary text as a
//! configuration file gives a configuration or a non-empty list of
//! problems, deterministically. A problem's message is short static ASCII
//! that never carries a value from the file (it can hold a secret): no
//! string of the file that is not ASCII appears in it, and no line of the
//! file of 16 characters or more. A configuration that loads has the
//! bounds its schema promises.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::load_config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match load_config(text) {
        Ok(config) => {
            assert!(load_config(text).is_ok());
            assert!(config.search.max_results >= 1);
            assert!(config.search.max_results <= config.search.max_results_ceiling);
            assert!(config.search.query_max_chars >= 1);
            assert!(!config.search.languages.is_empty());
            assert!(config.fetch.max_chars <= config.fetch.max_chars_ceiling);
        }
        Err(problems) => {
            assert!(!problems.is_empty());
            let again = load_config(text).err().unwrap_or_default();
            assert_eq!(problems, again);
            for p in &problems {
                assert!(p.message.is_ascii(), "{:?}", p.message);
                assert!(p.message.chars().count() <= 200, "{:?}", p.message);
                for line in text
                    .lines()
                    .map(str::trim)
                    .filter(|l| l.chars().count() >= 16)
                {
                    assert!(!p.message.contains(line), "{line:?} in {:?}", p.message);
                }
            }
        }
    }
});
