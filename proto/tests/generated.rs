//! The Rust generated from `proto/pozo/v1/*.proto` by protox + tonic-prost-build
//! (no system protoc) is there and speaks protobuf.

use pozo_proto::v1::{Amount, PoolStatus, PoolStatusResponse};
use prost::Message;

#[test]
fn pool_status_round_trips_through_protobuf() {
    let response = PoolStatusResponse {
        pools: vec![PoolStatus {
            pool_id: "iplyc-blackjack".to_owned(),
            balance: Some(Amount { value: "5004.875".to_owned() }),
            displayed: Some(Amount { value: "5004.875".to_owned() }),
            minimum: Some(Amount { value: "5000.00".to_owned() }),
            sequence: 42,
            levels: Vec::new(),
        }],
    };
    let bytes = response.encode_to_vec();
    let decoded = PoolStatusResponse::decode(bytes.as_slice()).expect("decodes");
    assert_eq!(decoded, response);
    assert_eq!(decoded.pools[0].displayed.as_ref().map(|amount| amount.value.as_str()), Some("5004.875"));
}

#[test]
fn the_pools_service_has_client_and_server() {
    // Naming the generated types is the check: this fails to compile without them.
    fn assert_type<T>() {}
    assert_type::<pozo_proto::v1::pools_client::PoolsClient<tonic::transport::Channel>>();
    let path = pozo_proto::v1::pools_server::SERVICE_NAME;
    assert_eq!(path, "pozo.v1.Pools");
}

#[test]
fn a_signed_envelope_verifies_for_its_key_kind_and_journal_only() {
    use pozo_proto::Purpose;
    // Computed independently: Python's hmac.new(b"Jefe", b"pozo.v1\x00pozo.v1.TableCommand\x00abc-1\x00what do ya want for nothing?", sha256).
    let envelope = pozo_proto::sign("k", b"Jefe", Purpose::TableCommand, "abc-1", b"what do ya want for nothing?".to_vec());
    assert_eq!(
        envelope.mac.iter().map(|byte| format!("{byte:02x}")).collect::<String>(),
        "02404df8eb8c143202a1ef0552f1dbdf480787689c91517617eaf4dabbcfb4b2"
    );
    assert_eq!(envelope.journal_id, "abc-1");
    assert!(pozo_proto::verify(b"Jefe", Purpose::TableCommand, "abc-1", &envelope));
    assert!(!pozo_proto::verify(b"Jeff", Purpose::TableCommand, "abc-1", &envelope), "another key");
    assert!(!pozo_proto::verify(b"Jefe", Purpose::WatchTable, "abc-1", &envelope), "another kind of message");
    assert!(!pozo_proto::verify(b"Jefe", Purpose::TableCommand, "abc-2", &envelope), "another journal");
    let mut changed = envelope.clone();
    changed.payload.push(b'!');
    assert!(!pozo_proto::verify(b"Jefe", Purpose::TableCommand, "abc-1", &changed));
    // Keyed once, as the controller keeps each table key's MAC: the same answers, and the
    // keyed MAC is not changed by a check (the next press starts from the same prefix).
    let keyed = pozo_proto::envelope_mac(b"Jefe", Purpose::TableCommand, "abc-1");
    assert!(!pozo_proto::verify_keyed(&keyed, &changed));
    assert!(pozo_proto::verify_keyed(&keyed, &envelope));
    assert!(pozo_proto::verify_keyed(&keyed, &envelope), "checked twice with one keyed MAC");
    assert!(!pozo_proto::verify_keyed(&pozo_proto::envelope_mac(b"Jeff", Purpose::TableCommand, "abc-1"), &envelope));
    assert!(!pozo_proto::verify_keyed(&pozo_proto::envelope_mac(b"Jefe", Purpose::TableCommand, "abc-2"), &envelope));
    assert!(!pozo_proto::verify_keyed(&pozo_proto::envelope_mac(b"Jefe", Purpose::WatchTable, "abc-1"), &envelope));
    let mut forged = envelope.clone();
    forged.mac[0] ^= 1;
    assert!(!pozo_proto::verify_keyed(&keyed, &forged));
}

#[test]
fn a_read_token_is_bound_to_its_journal() {
    // Python: hmac.new(b"Jefe", b"pozo.v1\x00pozo.v1.Read\x00abc-1\x00", sha256).
    let token = pozo_proto::read_token(b"Jefe", "abc-1");
    assert_eq!(token, "7aeeb91d3d663e6ad896c9f194f9c2bfed62b77657c9bc9d9c9dd328fbb36c0f");
    assert!(pozo_proto::verify_read_token(b"Jefe", "abc-1", &token));
    assert!(!pozo_proto::verify_read_token(b"Jefe", "abc-2", &token));
    assert!(!pozo_proto::verify_read_token(b"Jefe", "abc-1", "zz"));
    assert!(!pozo_proto::verify_read_token(b"Jefe", "abc-1", &token[..62]));
}
