//! The configuration loader (REQ-SEC-023, REQ-CFG-*): arbitrary text as a
//! configuration file gives a configuration or a non-empty list of
//! problems, deterministically. A problem's message is static text and
//! numbers (no character a value from the file could bring; a suggested
//! key is one the schema knows), and no
//! credential the secret check finds in the file appears in a problem's
//! message or path. A configuration that loads has the
//! bounds its schema promises, and none of its secret references (the
//! variable names and paths `check`, `serve` and `health` print) looks like
//! a secret or holds one the secret check finds in the file.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rypsok_core::fuzzing::{load_config, reference_looks_like_secret};

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
            let secrets = common::credentials(text);
            for key in config.credential_keys() {
                let name = key.reference.name();
                assert!(!reference_looks_like_secret(&name), "{}", key.key);
                for secret in &secrets {
                    assert!(!name.contains(secret.as_str()), "{}", key.key);
                }
            }
        }
        Err(problems) => {
            assert!(!problems.is_empty());
            let again = load_config(text).err().unwrap_or_default();
            assert_eq!(problems, again);
            let secrets = common::credentials(text);
            let known = rypsok_core::config::accepted_keys();
            for p in &problems {
                // An unknown key may be answered with the nearest known
                // key: a name from the schema, never one from the file.
                let message = match p.message.split_once(" (did you mean `") {
                    Some((head, suggestion)) => {
                        let key = suggestion
                            .strip_suffix("`?)")
                            .unwrap_or_else(|| panic!("{p:?}"));
                        assert!(
                            known.iter().any(|k| k.rsplit('.').next() == Some(key)),
                            "{p:?}"
                        );
                        head
                    }
                    None => p.message.as_str(),
                };
                common::assert_static(message);
                for secret in &secrets {
                    assert!(!p.message.contains(secret.as_str()), "{p:?}");
                    assert!(!p.path.contains(secret.as_str()), "{p:?}");
                }
            }
        }
    }
});
