//! Supervision against stand-in workers: small shell scripts that say a
//! valid hello and then misbehave in one chosen way.

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;

use rypsok_egress::EgressPolicy;
use rypsok_proto::{ExchangeRequest, LandlockNet, Profile, WorkerHello};

use super::*;

/// What a stand-in claims: every layer in place.
const CONFINED: Confinement = Confinement {
    no_new_privs: true,
    descriptors_closed: true,
    capabilities_dropped: true,
    rlimits: true,
    landlock: LandlockLevel::Full,
    landlock_abi: 6,
    landlock_net: LandlockNet::ConnectPorts,
    seccomp: SeccompLevel::Applied,
    syscalls: 40,
};

/// A script that writes a valid worker-net hello, then runs `then`.
async fn stand_in(name: &str, then: &str) -> PathBuf {
    stand_in_claiming(name, CONFINED, then).await
}

/// A script that writes a worker-net hello claiming `confinement`, then
/// runs `then`.
async fn stand_in_claiming(name: &str, confinement: Confinement, then: &str) -> PathBuf {
    stand_in_with(name, confinement, "", then).await
}

/// A script that runs `before`, writes a worker-net hello claiming
/// `confinement`, then runs `then`.
async fn stand_in_with(name: &str, confinement: Confinement, before: &str, then: &str) -> PathBuf {
    let hello: FromWorker<NetResponse> = FromWorker::Hello(WorkerHello {
        kind: WorkerKind::Net,
        pid: 1,
        confinement,
    });
    let mut frame = Vec::new();
    write_frame(&mut frame, &hello).await.unwrap();
    let escaped: String = frame.iter().map(|b| format!("\\{b:03o}")).collect();
    let path =
        std::env::temp_dir().join(format!("rypsok-stand-in-{}-{name}.sh", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    // The environment is emptied for workers, so every command is absolute.
    writeln!(file, "#!/bin/sh\n{before}\nprintf '{escaped}'\n{then}").unwrap();
    drop(file);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn spec(exe: PathBuf) -> WorkerSpec {
    WorkerSpec {
        kind: WorkerKind::Net,
        exe,
        log_level: LogLevel::Info,
        net_init: Some(NetInit {
            egress: EgressPolicy::default(),
            agent_http: false,
            proxy: None,
            extra_roots: Vec::new(),
            pool: rypsok_proto::NetPool::default(),
        }),
        // The defaults of `[sandbox]`.
        probes: false,
        sandbox: SandboxRequirements {
            seccomp: true,
            landlock: false,
        },
    }
}

fn slot(script: &std::path::Path) -> Slot<Net> {
    Slot::<Net>::new(
        spec(script.to_path_buf()),
        Spawner::start().unwrap(),
        Arc::new(AtomicBool::new(false)),
    )
}

fn exchange() -> NetRequest {
    NetRequest::Exchange(ExchangeRequest {
        url: "https://example.org/".to_owned(),
        headers: Vec::new(),
        profile: Profile::Engine,
        timeout_ms: 1000,
        max_body_bytes: 1024,
        pdf_max_body_bytes: None,
    })
}

async fn started(script: &std::path::Path) -> Arc<Conn<Net>> {
    let spawner = Spawner::start().unwrap();
    start::<Net>(&spawner, &spec(script.to_path_buf()))
        .await
        .unwrap()
}

fn gone(pid: u32) -> bool {
    // A reaped child has no /proc entry; a zombie would still show one.
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

async fn await_gone(pid: u32) -> bool {
    for _ in 0..200 {
        if gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

// Verifies: REQ-SEC-014 (a frame that does not decode: the worker is killed, the call fails at once)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_a_worker_that_sends_a_frame_past_the_bound() {
    let script = stand_in(
        "oversized",
        "/bin/sleep 0.2\nprintf '\\377\\377\\377\\377'\nexec /bin/sleep 30",
    )
    .await;
    let conn = started(&script).await;
    let begun = Instant::now();
    let answer = call(&conn, exchange(), Instant::now() + Duration::from_secs(10)).await;
    assert_eq!(answer.err(), Some(PortError::WorkerFailed));
    assert!(
        begun.elapsed() < Duration::from_secs(5),
        "the call did not wait for its deadline"
    );
    assert!(!conn.is_alive());
    assert!(
        await_gone(conn.pid).await,
        "the worker was killed and reaped"
    );
    let _ = std::fs::remove_file(script);
}

// Verifies: REQ-SEC-014, LIM-W3 (a worker that holds a request past its deadline is killed)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_a_worker_that_misses_a_deadline() {
    let script = stand_in("silent", "exec /bin/sleep 30").await;
    let conn = started(&script).await;
    let answer = call(
        &conn,
        exchange(),
        Instant::now() + Duration::from_millis(200),
    )
    .await;
    assert_eq!(answer.err(), Some(PortError::Timeout));
    assert!(!conn.is_alive());
    assert!(await_gone(conn.pid).await);
    let _ = std::fs::remove_file(script);
}

// Verifies: REQ-SEC-014 (a worker that exits fails its pending calls, and the slot starts another)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replaces_a_worker_that_exited() {
    let script = stand_in("exits", "/bin/sleep 0.2\nexit 3").await;
    let slot = slot(&script);
    let first = slot.conn().await.unwrap();
    let answer = call(&first, exchange(), Instant::now() + Duration::from_secs(10)).await;
    assert_eq!(answer.err(), Some(PortError::WorkerFailed));
    let second = slot.conn().await.unwrap();
    assert_ne!(first.pid, second.pid);
    assert!(second.is_alive());
    slot.shutdown().await;
    let _ = std::fs::remove_file(script);
}

// Verifies: REQ-SEC-014 (a worker that keeps dying is not restarted in a tight loop)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backs_off_from_a_worker_that_keeps_dying() {
    let script = stand_in("dies", "exit 1").await;
    let slot = slot(&script);
    let mut refused = 0;
    for _ in 0..12 {
        match slot.conn().await {
            Ok(conn) => {
                // Wait for the death to be noticed.
                for _ in 0..100 {
                    if !conn.is_alive() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
            Err(PortError::Unavailable) => refused += 1,
            Err(other) => panic!("{other:?}"),
        }
    }
    assert!(refused > 0, "restarts were never delayed");
    let _ = std::fs::remove_file(script);
}

// Verifies: REQ-SEC-014 (restart backoff is bounded: a single kill after a quiet period restarts at once; after a storm of kills the delay never passes two seconds)
#[test]
fn bounds_the_restart_backoff() {
    for deaths in 0..DEATHS_BEFORE_BACKOFF {
        assert_eq!(restart_delay(deaths), None, "{deaths} deaths");
    }
    let mut last = Duration::ZERO;
    for deaths in DEATHS_BEFORE_BACKOFF..=200 {
        let delay = restart_delay(deaths).expect("delayed");
        assert!(delay >= last, "never shorter with more deaths");
        assert!(delay <= Duration::from_secs(2), "{deaths}: {delay:?}");
        last = delay;
    }
    // Twenty kills in eight seconds: the tools work again well within five
    // seconds of the last one.
    assert!(restart_delay(20).expect("delayed") + DEATH_WINDOW / 10 < Duration::from_secs(5));
}

// Verifies: REQ-SEC-020 (without seccomp, by default, the worker is refused for good: no restart loop)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_a_worker_without_seccomp_and_never_restarts_it() {
    let unconfined = Confinement {
        seccomp: SeccompLevel::Unavailable,
        syscalls: 0,
        ..CONFINED
    };
    let marker =
        std::env::temp_dir().join(format!("rypsok-stand-in-{}-starts", std::process::id()));
    let _ = std::fs::remove_file(&marker);
    // Each start leaves a line in the marker file, before its hello (the
    // refusal kills it right after).
    let script = stand_in_with(
        "no-seccomp",
        unconfined,
        &format!("echo x >> {}", marker.display()),
        "exec /bin/sleep 30",
    )
    .await;
    let slot = slot(&script);
    for _ in 0..3 {
        assert_eq!(slot.conn().await.err(), Some(PortError::Unavailable));
    }
    let starts = std::fs::read_to_string(&marker).unwrap_or_default();
    assert_eq!(starts.lines().count(), 1, "started again after a refusal");
    assert!(slot.refusal_logged.load(Ordering::Acquire));
    let _ = std::fs::remove_file(script);
    let _ = std::fs::remove_file(marker);
}

// Verifies: REQ-SEC-020 (a kernel without Landlock is tolerated unless required; seccomp is required by default)
#[test]
fn follows_the_sandbox_requirements() {
    let no_landlock = Confinement {
        landlock: LandlockLevel::Unavailable,
        ..CONFINED
    };
    let no_seccomp = Confinement {
        seccomp: SeccompLevel::Unavailable,
        ..CONFINED
    };
    let defaults = SandboxRequirements {
        seccomp: true,
        landlock: false,
    };
    let strict = SandboxRequirements {
        seccomp: true,
        landlock: true,
    };
    let lax = SandboxRequirements {
        seccomp: false,
        landlock: false,
    };
    assert_eq!(defaults.refusal(&CONFINED), None);
    assert_eq!(defaults.refusal(&no_landlock), None);
    assert!(defaults.refusal(&no_seccomp).is_some());
    assert!(strict.refusal(&no_landlock).is_some());
    assert_eq!(lax.refusal(&no_seccomp), None);
    let partial = Confinement {
        landlock: LandlockLevel::Partial,
        ..CONFINED
    };
    assert_eq!(strict.refusal(&partial), None);
    // Inherited descriptors still open: refused by default, tolerated when
    // the operator lowered the bar.
    let leaky = Confinement {
        descriptors_closed: false,
        ..CONFINED
    };
    assert!(defaults.refusal(&leaky).is_some());
    assert_eq!(lax.refusal(&leaky), None);
}

// Verifies: REQ-SEC-014 (a start abandoned by a call that gave up leaves no process behind)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_start_leaves_no_process() {
    let dir = std::env::temp_dir();
    let tag = std::process::id();
    let path = dir.join(format!("rypsok-stand-in-{tag}-mute.sh"));
    let pidfile = dir.join(format!("rypsok-stand-in-{tag}-mute.pid"));
    let _ = std::fs::remove_file(&pidfile);
    // It records its pid, then never says hello.
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\necho $$ > {}\nexec /bin/sleep 30\n",
            pidfile.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let slot = Slot::<Net>::new(
        spec(path.clone()),
        Spawner::start().unwrap(),
        Arc::default(),
    );
    // The caller gives up before HELLO_TIMEOUT.
    assert!(
        timeout(Duration::from_millis(300), slot.conn())
            .await
            .is_err()
    );
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // `gone` counts a zombie as present: the child must be killed and reaped.
    assert!(
        await_gone(pid).await,
        "the abandoned worker {pid} is still there"
    );
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(pidfile);
}

// Verifies: REQ-SEC-014 (a connection nobody holds takes its process along)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_connection_takes_its_process_along() {
    let script = stand_in("held", "exec /bin/sleep 30").await;
    let conn = started(&script).await;
    let pid = conn.pid;
    drop(conn);
    assert!(await_gone(pid).await, "the worker outlived its last holder");
    let _ = std::fs::remove_file(script);
}

// Verifies: REQ-SEC-014 (a worker that never says hello fails its start in time, and the next start waits)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_without_hello_fails_its_start_and_delays_the_next() {
    let path =
        std::env::temp_dir().join(format!("rypsok-stand-in-{}-hushed.sh", std::process::id()));
    std::fs::write(&path, "#!/bin/sh\nexec /bin/sleep 30\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let slot = Slot::<Net>::new(
        spec(path.clone()),
        Spawner::start().unwrap(),
        Arc::default(),
    );
    let begun = Instant::now();
    assert_eq!(slot.conn().await.err(), Some(PortError::Unavailable));
    assert!(begun.elapsed() >= HELLO_TIMEOUT && begun.elapsed() < HELLO_TIMEOUT * 3);
    // Right after a failed start, the next attempt is not made at once.
    let again = Instant::now();
    assert_eq!(slot.conn().await.err(), Some(PortError::Unavailable));
    assert!(again.elapsed() < Duration::from_millis(100));
    let _ = std::fs::remove_file(path);
}

/// A worker-parse stand-in that says a valid hello and, once asked, answers
/// request 1 with robots.txt rules whatever the request was.
async fn parser_answering_robots(name: &str) -> PathBuf {
    let hello: FromWorker<ParseResponse> = FromWorker::Hello(WorkerHello {
        kind: WorkerKind::Parse,
        pid: 1,
        confinement: CONFINED,
    });
    let answer: FromWorker<ParseResponse> = FromWorker::Answer {
        id: 1,
        body: ParseResponse::Robots(RobotsRules::default()),
    };
    let escape = |frame: &[u8]| -> String { frame.iter().map(|b| format!("\\{b:03o}")).collect() };
    let (mut hello_frame, mut answer_frame) = (Vec::new(), Vec::new());
    write_frame(&mut hello_frame, &hello).await.unwrap();
    write_frame(&mut answer_frame, &answer).await.unwrap();
    let path =
        std::env::temp_dir().join(format!("rypsok-stand-in-{}-{name}.sh", std::process::id()));
    let mut file = std::fs::File::create(&path).unwrap();
    writeln!(
        file,
        "#!/bin/sh\nprintf '{}'\n/bin/sleep 0.3\nprintf '{}'\nexec /bin/sleep 30",
        escape(&hello_frame),
        escape(&answer_frame)
    )
    .unwrap();
    drop(file);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

// Verifies: REQ-SEC-014 (an answer of another kind is a protocol violation: the worker is killed and replaced, the call fails)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_a_parser_that_answers_another_kind_of_request() {
    let script = parser_answering_robots("wrong-kind").await;
    let parse = WorkerSpec {
        kind: WorkerKind::Parse,
        net_init: None,
        ..spec(script.clone())
    };
    let workers = Workers::new(spec(script.clone()), parse, 1, Spawner::start().unwrap());
    let document = || Document {
        url: "https://example.org/".to_owned(),
        content_type: Some("text/html".to_owned()),
        body: b"<p>text</p>".to_vec(),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let answer = workers.parse_page(document(), deadline).await;
    assert_eq!(answer, Err(PortError::WorkerFailed));
    let first = workers.parsers[0].pid().await;
    assert_eq!(first, None, "the lying parser is no longer in use");
    // The next call starts a new parser (which lies again the same way).
    let again = workers.parse_page(document(), deadline).await;
    assert_eq!(again, Err(PortError::WorkerFailed));
    std::fs::remove_file(&script).unwrap();
}

// Verifies: REQ-MCP-007, REQ-AGG-006 (a cancelled call's parse is stopped without failing another caller's parse queued on the same parser)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_parse_fails_no_other_callers_parse() {
    let script = parser_answering_robots("cancel-one").await;
    let parse = WorkerSpec {
        kind: WorkerKind::Parse,
        net_init: None,
        ..spec(script.clone())
    };
    // One parser, so the second caller's work waits on the first's.
    let workers = Arc::new(Workers::new(
        spec(script.clone()),
        parse,
        1,
        Spawner::start().unwrap(),
    ));
    let deadline = Instant::now() + Duration::from_secs(10);
    let robots = || b"User-agent: *\nDisallow: /private\n".to_vec();
    let first = {
        let workers = Arc::clone(&workers);
        tokio::spawn(async move { workers.parse_robots(robots(), deadline).await })
    };
    // The stand-in answers 0.3 s after its hello: the first parse is under
    // way when the second caller asks and when the first gives up.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = {
        let workers = Arc::clone(&workers);
        tokio::spawn(async move { workers.parse_robots(robots(), deadline).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    first.abort();
    let answer = second.await.unwrap();
    assert!(
        answer.is_ok(),
        "the other caller's parse failed: {answer:?}"
    );
    std::fs::remove_file(&script).unwrap();
}
