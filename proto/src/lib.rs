//! The `pozo.v1` wire protocol, generated at build time from `proto/pozo/v1/*.proto`
//! (protox + tonic-prost-build; no system `protoc`).

/// Messages and services of package `pozo.v1`.
pub mod v1 {
    tonic::include_proto!("pozo.v1");
}

/// The encoded `FileDescriptorSet` of every `.proto`, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/pozo_descriptor.bin"));

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Signs `payload` with a key: `mac` = HMAC-SHA256(secret, payload) over the exact
/// bytes sent (docs/api.md §2). Every agent, office and test signs through this.
pub fn sign(key_id: &str, secret: &[u8], payload: Vec<u8>) -> v1::Envelope {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(&payload);
    v1::Envelope { payload, key_id: key_id.to_owned(), mac: mac.finalize().into_bytes().to_vec() }
}

/// Whether `envelope.mac` is the HMAC-SHA256 of its payload under `secret`, compared in constant time.
pub fn verify(secret: &[u8], envelope: &v1::Envelope) -> bool {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(&envelope.payload);
    mac.verify_slice(&envelope.mac).is_ok()
}
