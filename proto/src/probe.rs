//! Test-only probes: ask a worker to attempt what its confinement forbids,
//! so the black-box tests can prove each boundary (REQ-SEC-014,
//! REQ-SEC-020). Compiled only with the `probe` feature, which the tests
//! crate enables (a workspace build); `cargo build -p rypsok` and the
//! default members leave it out.
//!
//! A probe rides inside an ordinary message rather than a message variant
//! of its own, so that no match on the real vocabulary changes with the
//! feature: worker-parse looks for [`PARSE_MARKER`] at the start of an
//! engine answer body, worker-net for [`NET_MARKER`] in an exchange's URL
//! (a search query lands there). A worker honours them only when armed
//! (`probe_gate`: the supervisor passes `--probes` only when
//! `RYPSOK_TEST_PROBES` is set), because an armed worker can be made to
//! die, or to try a connection outside the egress policy, by whoever
//! controls a query or an engine answer.

/// An engine answer body that starts with this, then a probe name, makes
/// worker-parse run the probe instead of parsing.
pub const PARSE_MARKER: &[u8] = b"RYPSOK-PROBE ";

/// A URL that contains this, then a probe name (in its path or its query,
/// so a search query can carry it), makes worker-net run the probe instead
/// of the exchange.
pub const NET_MARKER: &str = "rypsok-probe-";

/// What a worker is asked to attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// Open a file for reading (`openat`).
    OpenFile,
    /// Create a socket (`socket`).
    Socket,
    /// Replace the process image (`execve`).
    Exec,
    /// Start a child process (`clone`/`clone3`/`vfork`).
    Fork,
    /// Start a thread (`clone3`/`clone` with thread flags).
    Thread,
    /// Allocate and touch memory until the allocator fails (LIM-W2).
    Allocate,
    /// Bind a TCP socket on loopback (`bind`).
    BindTcp,
    /// Connect over TCP to loopback on this port, bypassing the egress
    /// policy (`connect`): only Landlock stands in the way.
    Connect(u16),
}

/// How an attempt that returned ended (one that did not return killed the
/// process).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// The kernel allowed it: a boundary is missing.
    Succeeded,
    /// The kernel refused it with this errno.
    Denied(i32),
}

impl ProbeOutcome {
    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Denied(_) => "denied",
        }
    }

    /// The errno of a denial, 0 otherwise.
    pub const fn errno(self) -> i32 {
        match self {
            Self::Succeeded => 0,
            Self::Denied(e) => e,
        }
    }
}

impl Probe {
    /// The probe named by `name` (`connect-PORT` for [`Probe::Connect`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "open-file" => Self::OpenFile,
            "socket" => Self::Socket,
            "exec" => Self::Exec,
            "fork" => Self::Fork,
            "thread" => Self::Thread,
            "allocate" => Self::Allocate,
            "bind-tcp" => Self::BindTcp,
            other => Self::Connect(other.strip_prefix("connect-")?.parse().ok()?),
        })
    }

    /// The probe an engine answer body asks for, if any.
    pub fn in_body(body: &[u8]) -> Option<Self> {
        if !crate::probe_gate::is_armed() {
            return None;
        }
        let rest = body.strip_prefix(PARSE_MARKER)?;
        let name = std::str::from_utf8(rest).ok()?;
        Self::from_name(name.trim())
    }

    /// The probe a URL asks for, if any.
    pub fn in_url(url: &str) -> Option<Self> {
        if !crate::probe_gate::is_armed() {
            return None;
        }
        let (_, rest) = url.split_once(NET_MARKER)?;
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        Self::from_name(&rest[..end])
    }

    /// A fixed name for logs.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::OpenFile => "open-file",
            Self::Socket => "socket",
            Self::Exec => "exec",
            Self::Fork => "fork",
            Self::Thread => "thread",
            Self::Allocate => "allocate",
            Self::BindTcp => "bind-tcp",
            Self::Connect(_) => "connect",
        }
    }

    /// Attempts the forbidden thing, logging before and after, so a test
    /// can tell "killed at the call" from "the call returned".
    pub fn attempt_logged(self) -> ProbeOutcome {
        tracing::warn!(
            event = "probe",
            probe = self.as_str(),
            "attempting a forbidden operation"
        );
        let outcome = self.attempt();
        tracing::warn!(
            event = "probe_result",
            probe = self.as_str(),
            outcome = outcome.as_str(),
            errno = outcome.errno(),
            "the forbidden operation returned"
        );
        outcome
    }

    /// Attempts the forbidden thing. Under confinement most of these never
    /// return: seccomp kills the process.
    pub fn attempt(self) -> ProbeOutcome {
        fn outcome<T>(r: std::io::Result<T>) -> ProbeOutcome {
            match r {
                Ok(_) => ProbeOutcome::Succeeded,
                Err(e) => ProbeOutcome::Denied(e.raw_os_error().unwrap_or(-1)),
            }
        }
        match self {
            Self::OpenFile => outcome(std::fs::File::open("/etc/passwd")),
            Self::Socket => outcome(std::net::UdpSocket::bind("127.0.0.1:0")),
            Self::Exec => {
                use std::os::unix::process::CommandExt as _;
                // The probe attempts what confinement forbids: only the
                // kernel's refusal is under test. Returns only if execve
                // failed.
                #[allow(clippy::disallowed_methods)]
                let mut command = std::process::Command::new("/bin/true");
                ProbeOutcome::Denied(command.exec().raw_os_error().unwrap_or(-1))
            }
            // As for Exec: the attempt is the probe.
            #[allow(clippy::disallowed_methods)]
            Self::Fork => outcome(std::process::Command::new("/bin/true").spawn()),
            Self::Thread => outcome(std::thread::Builder::new().spawn(|| ())),
            Self::Allocate => {
                // Touch every page, as a decompression or parse bomb would.
                // The cap keeps an unconfined worker from taking the host
                // down; reaching it means LIM-W2 is missing.
                const CHUNK: usize = 16 * 1024 * 1024;
                const CAP: usize = 1024 * 1024 * 1024;
                let mut held: Vec<Vec<u8>> = Vec::new();
                while held.len() * CHUNK < CAP {
                    held.push(std::hint::black_box(vec![1u8; CHUNK]));
                }
                std::hint::black_box(&held);
                ProbeOutcome::Succeeded
            }
            Self::BindTcp => outcome(std::net::TcpListener::bind("127.0.0.1:0")),
            Self::Connect(port) => {
                // The probe is the one place that must bypass the egress
                // policy: it shows what the kernel alone enforces.
                #[allow(clippy::disallowed_methods)]
                let r = std::net::TcpStream::connect(("127.0.0.1", port));
                outcome(r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Verifies: REQ-SEC-020 (probes are honoured only once armed, and only with their marker)
    #[test]
    fn finds_probes_in_bodies_and_urls_only_with_the_marker_once_armed() {
        // The only test that arms this process, so the unarmed case is
        // checked before anything could have armed it.
        assert_eq!(Probe::in_body(b"RYPSOK-PROBE exec"), None);
        assert_eq!(Probe::in_url("http://127.0.0.1:9/rypsok-probe-exec"), None);
        crate::probe_gate::arm();
        assert_eq!(Probe::in_body(b"RYPSOK-PROBE exec"), Some(Probe::Exec));
        assert_eq!(Probe::in_body(b"{\"query\":1}"), None);
        assert_eq!(
            Probe::in_url("http://127.0.0.1:9/w/api.php?srsearch=rypsok-probe-connect-81&x=1"),
            Some(Probe::Connect(81))
        );
        assert_eq!(
            Probe::in_url("http://127.0.0.1:9/rypsok-probe-bind-tcp"),
            Some(Probe::BindTcp)
        );
        assert_eq!(Probe::in_url("http://127.0.0.1:9/w/api.php"), None);
    }
}
