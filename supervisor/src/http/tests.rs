use super::*;

#[test]
fn recognises_the_handshake() {
    assert!(is_initialize(
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
    ));
    assert!(!is_initialize(
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
    ));
    assert!(!is_initialize(b"not json"));
}

#[test]
fn only_listed_reasons_are_logged() {
    assert!(!Reason::IdleConnection.logged());
    assert!(Reason::TooManyConnections.logged());
    assert!(!Reason::SdkBadRequest.logged());
}
