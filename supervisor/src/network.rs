//! What worker-net needs of `[egress] proxy` and `ca_file` that only the
//! adapter may read (the core reads no file and no environment): the
//! proxy's Basic credentials, from their reference, and the operator's
//! extra trust anchors, from PEM (design §8, REQ-RES-008). `check` reads
//! them the same way and refuses a CA file that is unreadable or holds no
//! certificate.

use std::path::Path;

use base64::Engine as _;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;
use rypsok_core::config::{Config, ProxyConfig};
use rypsok_proto::{NetProxy, ProxyAuthorization};
use serde_bytes::ByteBuf;

use crate::secrets::read_secret;

/// Why a CA file cannot be used. Messages name the path, never contents.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CaProblem {
    /// The file cannot be read.
    Unreadable(String),
    /// It holds no PEM certificate, or one that does not parse.
    NoCertificate,
}

impl std::fmt::Display for CaProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreadable(why) => write!(f, "cannot read the file: {why}"),
            Self::NoCertificate => f.write_str("the file holds no PEM certificate"),
        }
    }
}

/// The certificates of a PEM file, in DER; at least one.
pub(crate) fn read_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, CaProblem> {
    let pem = std::fs::read(path).map_err(|e| CaProblem::Unreadable(e.kind().to_string()))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|_| CaProblem::NoCertificate)?;
    if certs.is_empty() {
        return Err(CaProblem::NoCertificate);
    }
    Ok(certs)
}

/// The extra roots worker-net adds to its built-in ones. An unusable file
/// adds none (`check` refuses it; serve logs it and keeps the built-in
/// roots, so the TLS failures name `tls`).
pub(crate) fn extra_roots(config: &Config) -> Vec<ByteBuf> {
    let Some(path) = &config.egress.ca_file else {
        return Vec::new();
    };
    match read_ca_file(path) {
        Ok(certs) => certs
            .into_iter()
            .map(|der| ByteBuf::from(der.as_ref().to_vec()))
            .collect(),
        Err(problem) => {
            tracing::warn!(
                event = "ca_file_unusable",
                problem = %problem,
                "egress.ca_file adds no trust anchor"
            );
            Vec::new()
        }
    }
}

/// worker-net's view of the configured proxy, its credentials read now.
pub(crate) fn net_proxy(proxy: &ProxyConfig) -> NetProxy {
    let authorization = proxy
        .auth
        .as_ref()
        .and_then(read_secret)
        .map(|credentials| basic_authorization(&credentials));
    NetProxy {
        host: proxy.host.clone(),
        port: proxy.port,
        authorization,
        agent: proxy.enforces_profile,
    }
}

/// `Basic base64(user:password)` (RFC 7617).
fn basic_authorization(credentials: &str) -> ProxyAuthorization {
    let encoded = base64::engine::general_purpose::STANDARD.encode(credentials.as_bytes());
    ProxyAuthorization(format!("Basic {encoded}"))
}

/// What `check` says of the trust anchors in use, or why `ca_file` is
/// refused.
pub(crate) fn roots_report(config: &Config) -> Result<String, (String, CaProblem)> {
    let builtin = "the built-in web roots";
    match &config.egress.ca_file {
        None => Ok(format!("TLS roots: {builtin}")),
        Some(path) => match read_ca_file(path) {
            Ok(certs) => Ok(format!(
                "TLS roots: {builtin} and {} certificate(s) from {}",
                certs.len(),
                path.display()
            )),
            Err(problem) => Err(("egress.ca_file".to_owned(), problem)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-RES-008
    #[test]
    fn basic_credentials_are_encoded_and_never_shown_by_debug() {
        let auth = basic_authorization("user:pass");
        assert_eq!(auth.0, "Basic dXNlcjpwYXNz");
        assert_eq!(format!("{auth:?}"), "ProxyAuthorization(..)");
    }

    // Verifies: REQ-RES-008
    #[test]
    fn a_ca_file_without_a_certificate_is_refused() {
        let dir = std::env::temp_dir().join(format!("rypsok-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        assert_eq!(read_ca_file(&empty), Err(CaProblem::NoCertificate));
        let missing = dir.join("missing.pem");
        assert!(matches!(
            read_ca_file(&missing),
            Err(CaProblem::Unreadable(_))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
