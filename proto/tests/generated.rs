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
fn a_signed_envelope_verifies_under_its_key_only() {
    // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
    let envelope = pozo_proto::sign("k", b"Jefe", b"what do ya want for nothing?".to_vec());
    assert_eq!(
        envelope.mac.iter().map(|byte| format!("{byte:02x}")).collect::<String>(),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert!(pozo_proto::verify(b"Jefe", &envelope));
    assert!(!pozo_proto::verify(b"Jeff", &envelope));
    let mut changed = envelope.clone();
    changed.payload.push(b'!');
    assert!(!pozo_proto::verify(b"Jefe", &changed));
}
