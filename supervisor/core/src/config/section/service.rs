//! `[service]`: structured content, the text block's format, the operator
//! contact, attribution and the handshake revisions (REQ-MCP-006,
//! REQ-MCP-011, REQ-CMP-004).

use crate::config::problem::PROJECT_URL;
use crate::config::reader::{Lookup, Problems, Section};
use crate::config::{ServiceConfig, TextFormat};

/// The contact goes into a header: bounded so the User-Agent stays a line.
const CONTACT_MAX_CHARS: usize = 200;

pub(in crate::config) fn service(s: &mut Section<'_>, p: &mut Problems) -> Option<ServiceConfig> {
    let structured_content = s.boolean(p, "structured_content", true);
    let contact = match s.string(p, "contact") {
        Lookup::Absent => Some(PROJECT_URL.to_owned()),
        Lookup::Invalid => None,
        Lookup::Found(text) => {
            let contact = text.trim();
            // The contact is sent in a header: printable ASCII only, so it
            // can neither break the header nor smuggle another one.
            if !contact.bytes().all(|b| (b' '..=b'~').contains(&b)) {
                p.push(s.key_path("contact"), "must be printable ASCII");
                None
            } else if contact.len() > CONTACT_MAX_CHARS {
                p.push(
                    s.key_path("contact"),
                    format!("must be at most {CONTACT_MAX_CHARS} characters"),
                );
                None
            } else {
                Some(contact.to_owned())
            }
        }
    };
    let attribution = s.boolean(p, "attribution", false);
    let handshake_revisions = s.boolean(p, "handshake_revisions", true);
    let text_format = s.choice(
        p,
        "text_format",
        TextFormat::ALL,
        TextFormat::as_str,
        TextFormat::Json,
    );
    Some(ServiceConfig {
        structured_content: structured_content?,
        contact: contact?,
        attribution: attribution?,
        handshake_revisions: handshake_revisions?,
        text_format: text_format?,
    })
}
