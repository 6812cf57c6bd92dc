//! The circuit on tokio's paused clock: every transition at its exact time
//! (REQ-TEST-017).

use super::*;

const E: &str = "brave";

fn fail(health: &Health, class: EngineErrorClass) {
    health.record_failure(E, Failure::of(class));
}

// Verifies: REQ-OBS-002 (median of the last LIM-S11 completed requests)
#[test]
fn reports_the_median_of_the_last_twenty_completions() {
    let health = Health::default();
    assert_eq!(health.median_latency_ms("wikipedia"), None);
    for ms in 1..=25 {
        health.record_completion("wikipedia", ms * 10);
    }
    // The window holds 60..=250; its lower median is 150.
    assert_eq!(health.median_latency_ms("wikipedia"), Some(150));
    assert_eq!(health.median_latency_ms("brave"), None);
}

// Verifies: REQ-RES-004, REQ-RES-005, REQ-TEST-017 (closed → open after consecutive failures → one half_open probe → closed)
#[tokio::test(start_paused = true)]
async fn opens_after_consecutive_failures_and_closes_after_a_good_probe() {
    let health = Health::default();
    for _ in 0..FAILURES_TO_OPEN - 1 {
        assert_eq!(health.admit(E, None), Admit::Yes);
        fail(&health, EngineErrorClass::Timeout);
        assert_eq!(health.state(E), CircuitState::Closed);
    }
    // A success in between starts the count again.
    health.record_success(E);
    for _ in 0..FAILURES_TO_OPEN - 1 {
        fail(&health, EngineErrorClass::RequestFailure);
    }
    assert_eq!(health.state(E), CircuitState::Closed);
    fail(&health, EngineErrorClass::ParseFailure);
    assert_eq!(health.state(E), CircuitState::Open);
    assert_eq!(health.admit(E, None), Admit::Cooldown);

    tokio::time::advance(BASE_COOLDOWN - Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Cooldown);
    tokio::time::advance(Duration::from_millis(1)).await;
    // Past the cooldown it stays open until a call carries the probe.
    assert_eq!(health.state(E), CircuitState::Open);
    assert_eq!(health.admit(E, None), Admit::Probe);
    assert_eq!(health.state(E), CircuitState::HalfOpen);
    // A single probe: every other call skips the engine meanwhile.
    assert_eq!(health.admit(E, None), Admit::Cooldown);
    health.record_success(E);
    assert_eq!(health.state(E), CircuitState::Closed);
    assert_eq!(health.admit(E, None), Admit::Yes);
}

// Verifies: REQ-RES-005, REQ-TEST-017 (a failed probe opens the circuit again, for twice as long)
#[tokio::test(start_paused = true)]
async fn a_failed_probe_doubles_the_cooldown() {
    let health = Health::default();
    fail(&health, EngineErrorClass::Blocked);
    assert_eq!(health.state(E), CircuitState::Open, "a block opens at once");
    tokio::time::advance(BASE_COOLDOWN).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
    fail(&health, EngineErrorClass::Timeout);
    assert_eq!(health.state(E), CircuitState::Open);
    tokio::time::advance(BASE_COOLDOWN * 2 - Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Cooldown);
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
}

// Verifies: REQ-RES-002, REQ-CMP-002 (the provider's delay is honoured; a rate and a quota cool down differently)
#[tokio::test(start_paused = true)]
async fn rate_limits_open_at_once_for_the_providers_delay_or_their_own_default() {
    let health = Health::default();
    health.record_failure(
        E,
        Failure {
            class: EngineErrorClass::RateLimited,
            retry_after_ms: Some(7_000),
            quota: false,
        },
    );
    assert_eq!(health.state(E), CircuitState::Open);
    tokio::time::advance(Duration::from_millis(6_999)).await;
    assert_eq!(health.admit(E, None), Admit::Cooldown);
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
    health.record_success(E);

    // Without a delay: a request rate rests one second, a quota an hour.
    health.record_failure(
        E,
        Failure {
            class: EngineErrorClass::RateLimited,
            retry_after_ms: None,
            quota: false,
        },
    );
    tokio::time::advance(RATE_LIMIT_COOLDOWN).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
    health.record_failure(
        E,
        Failure {
            class: EngineErrorClass::RateLimited,
            retry_after_ms: None,
            quota: true,
        },
    );
    tokio::time::advance(QUOTA_COOLDOWN - Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Cooldown);
    tokio::time::advance(Duration::from_millis(1)).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
}

// Verifies: REQ-RES-004 (a probe whose call ended unfinished does not leave the engine half_open for ever)
#[tokio::test(start_paused = true)]
async fn an_abandoned_probe_lets_the_next_call_probe() {
    let health = Health::default();
    fail(&health, EngineErrorClass::AuthFailure);
    tokio::time::advance(AUTH_COOLDOWN).await;
    assert_eq!(health.admit(E, None), Admit::Probe);
    drop(ProbeGuard::new(&health, E));
    assert_eq!(health.state(E), CircuitState::Open);
    assert_eq!(health.admit(E, None), Admit::Probe);
    let guard = ProbeGuard::new(&health, E);
    health.record_success(E);
    guard.settle();
    assert_eq!(health.state(E), CircuitState::Closed);
}

// Verifies: REQ-CMP-002 (the driver's published rate is kept per process)
#[tokio::test(start_paused = true)]
async fn keeps_the_drivers_request_rate() {
    let health = Health::default();
    for _ in 0..3 {
        assert_eq!(health.admit(E, Some(3)), Admit::Yes);
    }
    assert_eq!(health.admit(E, Some(3)), Admit::RateLimited);
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(health.admit(E, Some(3)), Admit::Yes);
}

// Verifies: REQ-CMP-002 (a provider's requested pause is kept)
#[tokio::test(start_paused = true)]
async fn a_requested_pause_skips_the_engine_until_it_is_over() {
    let health = Health::default();
    health.hold(E, Duration::from_secs(10));
    // A shorter pause asked later does not shorten it.
    health.hold(E, Duration::from_secs(1));
    assert_eq!(health.admit(E, None), Admit::RateLimited);
    tokio::time::advance(Duration::from_secs(9)).await;
    assert_eq!(health.admit(E, None), Admit::RateLimited);
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(health.admit(E, None), Admit::Yes);
    // A pause is not a failure: the circuit stays closed.
    assert_eq!(health.state(E), CircuitState::Closed);
}

// Verifies: REQ-CMP-002, REQ-ENG-007 (a paced driver: one request per
// interval; a slot past the deadline is not taken)
#[tokio::test(start_paused = true)]
async fn paced_requests_take_one_slot_per_interval_within_the_deadline() {
    let health = Health::default();
    let interval = Duration::from_secs(3);
    let now = Instant::now();
    let deadline = now + Duration::from_secs(4);
    assert_eq!(health.reserve_slot(E, interval, deadline), Some(now));
    assert_eq!(
        health.reserve_slot(E, interval, deadline),
        Some(now + interval)
    );
    // The third slot (6 s) is past the deadline: refused, nothing reserved.
    assert_eq!(health.reserve_slot(E, interval, deadline), None);
    tokio::time::advance(Duration::from_secs(6)).await;
    assert_eq!(
        health.reserve_slot(E, interval, Instant::now() + Duration::from_secs(1)),
        Some(Instant::now())
    );
    // Engines are paced apart.
    assert_eq!(
        health.reserve_slot("other", interval, Instant::now()),
        Some(Instant::now())
    );
}
