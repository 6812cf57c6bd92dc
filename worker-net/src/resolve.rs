//! Name resolution for worker-net: the operator's static answers first,
//! then hickory-resolver with absolute names only (design §8, REQ-SEC-007).
//!
//! Names are always queried as absolute names, so the system's `search` and
//! `domain` lists can never turn `intranet` into `intranet.corp.example`;
//! the resolver's own hosts-file lookup is off, so the only static answers
//! are the operator's `[egress] hosts`. The system's name servers are read
//! once, when worker-net starts (before its sandbox closes the file system);
//! where they cannot be read, every lookup fails rather than falling back
//! to some public resolver the operator never chose. This module only
//! answers; the egress policy judges every answer in the exchange.

use std::net::IpAddr;
use std::time::Duration;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{LookupIpStrategy, NameServerConfig, ResolveHosts, ResolverConfig};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::Name;
use rypsok_egress::EgressPolicy;
use rypsok_proto::NetFailure;
use rypsok_proto::limits::{DNS_CACHE_ANSWERS, DNS_CACHE_MAX_TTL_S};

/// Resolves host names; `None` inside when the system configuration could
/// not be read, in which case every lookup fails with
/// [`NetFailure::Resolve`].
pub(crate) struct NameResolver {
    inner: Option<TokioResolver>,
}

impl std::fmt::Debug for NameResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NameResolver")
            .field("configured", &self.inner.is_some())
            .finish()
    }
}

impl NameResolver {
    /// Reads the system's name servers once and builds the resolver. Only
    /// the name servers and the timeout/attempts options are kept: the
    /// domain, the search list and `ndots` are dropped.
    pub(crate) fn from_system() -> Self {
        let (system, system_opts) = match hickory_resolver::system_conf::read_system_conf() {
            Ok(conf) => conf,
            Err(_) => {
                tracing::warn!(
                    event = "resolver_unconfigured",
                    "system resolver configuration unreadable; every name will fail to resolve"
                );
                return Self { inner: None };
            }
        };
        Self::with_name_servers(
            system.name_servers().to_vec(),
            system_opts.timeout,
            system_opts.attempts,
            Duration::from_secs(DNS_CACHE_MAX_TTL_S),
        )
    }

    /// The resolver over `name_servers`, each query given `timeout` and
    /// `attempts`, each answer kept for its TTL but never longer than
    /// `max_ttl`.
    fn with_name_servers(
        name_servers: Vec<NameServerConfig>,
        timeout: Duration,
        attempts: usize,
        max_ttl: Duration,
    ) -> Self {
        let config = ResolverConfig::from_parts(None, Vec::new(), name_servers);
        let mut builder =
            TokioResolver::builder_with_config(config, TokioRuntimeProvider::default());
        let opts = builder.options_mut();
        opts.timeout = timeout;
        opts.attempts = attempts;
        opts.ndots = 0;
        opts.use_hosts_file = ResolveHosts::Never;
        // IPv4 answers first: hosts without IPv6 routes (most containers)
        // reach the first candidate instead of failing over from it.
        opts.ip_strategy = LookupIpStrategy::Ipv4AndIpv6;
        // Answers are kept within their TTL, a bounded number of them and
        // for a bounded time: a search after a search asks no name server.
        // Every address is still judged when it is connected to.
        opts.cache_size = DNS_CACHE_ANSWERS;
        opts.positive_max_ttl = Some(max_ttl);
        opts.negative_max_ttl = Some(max_ttl);
        match builder.build() {
            Ok(resolver) => Self {
                inner: Some(resolver),
            },
            Err(_) => {
                tracing::warn!(
                    event = "resolver_unconfigured",
                    "resolver could not be built; every name will fail to resolve"
                );
                Self { inner: None }
            }
        }
    }

    /// A resolver that fails every lookup (tests, and the unreadable case).
    #[cfg(test)]
    pub(crate) fn unconfigured() -> Self {
        Self { inner: None }
    }

    /// The addresses of `name` (lower-case, no root dot), in answer order:
    /// the operator's static answer when there is one, otherwise the
    /// resolver's answer for the absolute name. An empty list is a valid
    /// answer (the caller reports it as [`NetFailure::Resolve`]).
    pub(crate) async fn lookup(
        &self,
        policy: &EgressPolicy,
        name: &str,
    ) -> Result<Vec<IpAddr>, NetFailure> {
        if let Some(addrs) = static_answer(policy, name) {
            return Ok(addrs.to_vec());
        }
        let resolver = self.inner.as_ref().ok_or(NetFailure::Resolve)?;
        let mut absolute = String::with_capacity(name.len() + 1);
        absolute.push_str(name);
        absolute.push('.');
        let absolute = Name::from_ascii(&absolute).map_err(|_| NetFailure::Resolve)?;
        debug_assert!(absolute.is_fqdn());
        let answer = resolver
            .lookup_ip(absolute)
            .await
            .map_err(|_| NetFailure::Resolve)?;
        Ok(answer.iter().collect())
    }
}

/// The operator's `[egress] hosts` answer for `name`, if any.
pub(crate) fn static_answer<'a>(policy: &'a EgressPolicy, name: &str) -> Option<&'a [IpAddr]> {
    policy
        .hosts
        .iter()
        .find(|host| host.name == name)
        .map(|host| host.addrs.as_slice())
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use hickory_resolver::config::ConnectionConfig;
    use hickory_resolver::proto::op::Message;
    use hickory_resolver::proto::rr::rdata::{A, AAAA};
    use hickory_resolver::proto::rr::{RData, Record, RecordType};
    use rypsok_egress::StaticHost;
    use tokio::net::UdpSocket;
    use tokio::task::JoinHandle;

    use super::*;

    fn policy_with_host(name: &str, addrs: &[&str]) -> EgressPolicy {
        EgressPolicy {
            hosts: vec![StaticHost {
                name: name.to_owned(),
                addrs: addrs.iter().map(|a| a.parse().unwrap()).collect(),
            }],
            ..EgressPolicy::default()
        }
    }

    // Verifies: REQ-SEC-007
    #[tokio::test]
    async fn static_answers_take_precedence_in_their_order() {
        let policy = policy_with_host("fixture.test", &["192.0.2.2", "127.0.0.1"]);
        let resolver = NameResolver::unconfigured();
        let got = resolver.lookup(&policy, "fixture.test").await.unwrap();
        assert_eq!(
            got,
            vec![
                "192.0.2.2".parse::<IpAddr>().unwrap(),
                "127.0.0.1".parse().unwrap()
            ]
        );
    }

    // Verifies: REQ-SEC-007
    #[tokio::test]
    async fn an_unconfigured_resolver_fails_instead_of_falling_back() {
        let policy = policy_with_host("fixture.test", &["127.0.0.1"]);
        let resolver = NameResolver::unconfigured();
        assert_eq!(
            resolver.lookup(&policy, "other.test").await,
            Err(NetFailure::Resolve)
        );
    }

    // Verifies: REQ-SEC-007
    #[test]
    fn static_answers_match_the_whole_name_only() {
        let policy = policy_with_host("fixture.test", &["127.0.0.1"]);
        assert!(static_answer(&policy, "fixture.test").is_some());
        assert!(static_answer(&policy, "a.fixture.test").is_none());
        assert!(static_answer(&policy, "fixture.tes").is_none());
    }

    const ANSWER_V4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
    const ANSWER_V6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);

    /// A name server on 127.0.0.1 that answers every A and AAAA question
    /// with one address kept for `ttl_s` seconds, and counts the questions.
    struct FakeNameServer {
        addr: SocketAddr,
        questions: Arc<AtomicUsize>,
        task: JoinHandle<()>,
    }

    impl FakeNameServer {
        async fn start(ttl_s: u32) -> Self {
            let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
            let addr = socket.local_addr().unwrap();
            let questions = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&questions);
            let task = tokio::spawn(async move {
                let mut buf = vec![0_u8; 4096];
                loop {
                    let Ok((len, from)) = socket.recv_from(&mut buf).await else {
                        return;
                    };
                    let Ok(query) = Message::from_vec(&buf[..len]) else {
                        continue;
                    };
                    counted.fetch_add(query.queries.len(), Ordering::SeqCst);
                    let reply = answer(&query, ttl_s).to_vec().unwrap();
                    let _ = socket.send_to(&reply, from).await;
                }
            });
            Self {
                addr,
                questions,
                task,
            }
        }

        fn questions(&self) -> usize {
            self.questions.load(Ordering::SeqCst)
        }

        /// A resolver that asks this server only, each answer kept for
        /// `max_ttl` at most.
        fn resolver(&self, max_ttl: Duration) -> NameResolver {
            let mut udp = ConnectionConfig::udp();
            udp.port = self.addr.port();
            let server = NameServerConfig::new(self.addr.ip(), true, vec![udp]);
            NameResolver::with_name_servers(vec![server], Duration::from_secs(2), 1, max_ttl)
        }
    }

    impl Drop for FakeNameServer {
        fn drop(&mut self) {
            self.task.abort();
        }
    }

    fn answer(query: &Message, ttl_s: u32) -> Message {
        let mut reply = Message::response(query.metadata.id, query.metadata.op_code);
        reply.metadata.recursion_desired = query.metadata.recursion_desired;
        reply.metadata.recursion_available = true;
        for question in &query.queries {
            reply.add_query(question.clone());
            let rdata = match question.query_type() {
                RecordType::A => RData::A(A(ANSWER_V4)),
                RecordType::AAAA => RData::AAAA(AAAA(ANSWER_V6)),
                _ => continue,
            };
            reply.add_answer(Record::from_rdata(question.name().clone(), ttl_s, rdata));
        }
        reply
    }

    /// Looks `engine.test` up, bounded in time, and checks the answer.
    async fn lookup_engine(resolver: &NameResolver) {
        let policy = EgressPolicy::default();
        let lookup = resolver.lookup(&policy, "engine.test");
        let got = tokio::time::timeout(Duration::from_secs(10), lookup)
            .await
            .expect("the lookup ends")
            .expect("the name resolves");
        assert_eq!(got, vec![IpAddr::V4(ANSWER_V4), IpAddr::V6(ANSWER_V6)]);
    }

    // Verifies: REQ-PERF-004 (a search after a search asks no name server)
    #[tokio::test]
    async fn an_answer_within_its_ttl_is_not_asked_again() {
        let server = FakeNameServer::start(3600).await;
        let resolver = server.resolver(Duration::from_secs(DNS_CACHE_MAX_TTL_S));
        lookup_engine(&resolver).await;
        let first = server.questions();
        assert_eq!(first, 2, "one A and one AAAA question");
        lookup_engine(&resolver).await;
        lookup_engine(&resolver).await;
        assert_eq!(server.questions(), first, "answered from the cache");
    }

    /// Looks `engine.test` up, waits past 1 s and looks it up again:
    /// whether the second lookup asked the name server again.
    async fn asked_again_after_a_wait(ttl_s: u32, cap: Duration) -> bool {
        let server = FakeNameServer::start(ttl_s).await;
        let resolver = server.resolver(cap);
        lookup_engine(&resolver).await;
        let first = server.questions();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        lookup_engine(&resolver).await;
        server.questions() == 2 * first
    }

    #[tokio::test]
    async fn an_answer_past_its_ttl_is_asked_again() {
        let cap = Duration::from_secs(DNS_CACHE_MAX_TTL_S);
        assert!(
            asked_again_after_a_wait(1, cap).await,
            "asked again once expired"
        );
    }

    #[tokio::test]
    async fn an_answer_is_kept_no_longer_than_the_cap() {
        let cap = Duration::from_secs(1);
        assert!(
            asked_again_after_a_wait(3600, cap).await,
            "asked again after the cap"
        );
    }
}
