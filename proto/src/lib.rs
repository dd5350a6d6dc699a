//! The `pozo.v1` wire protocol, generated at build time from `proto/pozo/v1/*.proto`
//! (protox + tonic-prost-build; no system `protoc`).

pub mod codec;

/// Messages and services of package `pozo.v1`.
pub mod v1 {
    tonic::include_proto!("pozo.v1");
}

/// The encoded `FileDescriptorSet` of every `.proto`, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/pozo_descriptor.bin"));

pub use hmac::{Hmac, KeyInit, Mac};
pub use sha2::Sha256;

/// What a signed payload is: part of the MAC, so a payload signed as one kind of
/// message is never accepted as another (docs/api.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A `TableCommand` (Table.Submit).
    TableCommand,
    /// A `WatchTable` (Table.Watch).
    WatchTable,
    /// An `OfficeCommand` (VentaPagos.*).
    OfficeCommand,
    /// A `ChangeCommand` (Changes.*).
    ChangeCommand,
    /// A `TournamentCommand` (Tournaments.*).
    TournamentCommand,
    /// A read credential (the `authorization` metadata of Reports, Pools, Display).
    Read,
}

impl Purpose {
    /// The context string the MAC covers.
    pub fn context(self) -> &'static str {
        match self {
            Purpose::TableCommand => "pozo.v1.TableCommand",
            Purpose::WatchTable => "pozo.v1.WatchTable",
            Purpose::OfficeCommand => "pozo.v1.OfficeCommand",
            Purpose::ChangeCommand => "pozo.v1.ChangeCommand",
            Purpose::TournamentCommand => "pozo.v1.TournamentCommand",
            Purpose::Read => "pozo.v1.Read",
        }
    }
}

/// The metadata key of a read credential: `authorization: Pozo <key_id>:<token>`.
pub const AUTHORIZATION: &str = "authorization";

/// The binary metadata key of a refusal's words for people, in the regulation's Spanish
/// (UTF-8), beside the status's English message, where the controller has them written: what
/// the table's monitor shows the dealer (docs/api.md §11).
pub const MOTIVO: &str = "pozo-motivo-bin";

/// The Spanish words of a refused call's status, when the controller sent them.
pub fn motivo(status: &tonic::Status) -> Option<String> {
    let value = status.metadata().get_bin(MOTIVO)?.to_bytes().ok()?;
    String::from_utf8(value.to_vec()).ok()
}

/// The HMAC of an envelope before its payload: keyed with `secret` and fed
/// "pozo.v1" 0 context 0 journal_id 0. A client that signs many payloads clones it
/// and feeds each payload ([`sign`] does exactly that once).
pub fn envelope_mac(secret: &[u8], purpose: Purpose, journal_id: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    // Neither the context nor a journal id holds a zero byte: the fields cannot run into each other.
    mac.update(b"pozo.v1\0");
    mac.update(purpose.context().as_bytes());
    mac.update(b"\0");
    mac.update(journal_id.as_bytes());
    mac.update(b"\0");
    mac
}

fn mac_for(secret: &[u8], purpose: Purpose, journal_id: &str, payload: &[u8]) -> Hmac<Sha256> {
    let mut mac = envelope_mac(secret, purpose, journal_id);
    mac.update(payload);
    mac
}

/// Signs `payload` for one journal and one kind of message:
/// `mac` = HMAC-SHA256(secret, "pozo.v1" 0 context 0 journal_id 0 payload), over
/// the exact bytes sent (docs/api.md §2). Every agent, office and test signs through this.
pub fn sign(key_id: &str, secret: &[u8], purpose: Purpose, journal_id: &str, payload: Vec<u8>) -> v1::Envelope {
    let mac = mac_for(secret, purpose, journal_id, &payload).finalize().into_bytes().to_vec();
    v1::Envelope { payload, key_id: key_id.to_owned(), mac, journal_id: journal_id.to_owned(), inspector_pin: String::new() }
}

/// Whether `envelope.mac` signs its payload as `purpose` for the journal `journal_id`
/// (the verifier's own, never the one the envelope names) under `secret`, compared in
/// constant time.
pub fn verify(secret: &[u8], purpose: Purpose, journal_id: &str, envelope: &v1::Envelope) -> bool {
    verify_keyed(&envelope_mac(secret, purpose, journal_id), envelope)
}

/// [`verify`] with the MAC already keyed and fed its prefix ([`envelope_mac`]): a controller
/// checking every press of a table keys its table's MAC once, not once per press.
pub fn verify_keyed(keyed: &Hmac<Sha256>, envelope: &v1::Envelope) -> bool {
    let mut mac = keyed.clone();
    mac.update(&envelope.payload);
    mac.verify_slice(&envelope.mac).is_ok()
}

/// The read credential of a key on one journal: HMAC-SHA256(secret, "pozo.v1" 0
/// "pozo.v1.Read" 0 journal_id 0), hex. It proves the key without revealing it, and
/// is worth nothing on another journal.
pub fn read_token(secret: &[u8], journal_id: &str) -> String {
    mac_for(secret, Purpose::Read, journal_id, &[]).finalize().into_bytes().iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The `authorization` metadata value of a read credential.
pub fn read_authorization(key_id: &str, secret: &[u8], journal_id: &str) -> String {
    format!("Pozo {key_id}:{}", read_token(secret, journal_id))
}

/// Whether `token` is `key`'s read credential on `journal_id`, compared in constant time.
pub fn verify_read_token(secret: &[u8], journal_id: &str, token: &str) -> bool {
    let Some(bytes) = decode_hex(token) else { return false };
    mac_for(secret, Purpose::Read, journal_id, &[]).verify_slice(&bytes).is_ok()
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok()).collect()
}

/// A read credential as a tonic interceptor: every request it passes carries
/// `authorization: Pozo <key_id>:<token>` for one journal.
/// `ReportsClient::with_interceptor(channel, ReadCredential::new(...))`.
#[derive(Clone)]
pub struct ReadCredential(tonic::metadata::MetadataValue<tonic::metadata::Ascii>);

impl ReadCredential {
    pub fn new(key_id: &str, secret: &[u8], journal_id: &str) -> ReadCredential {
        let value = read_authorization(key_id, secret, journal_id);
        // Key ids are letters, digits, '-', '_' and '.'; tokens are hex: always valid ASCII metadata.
        ReadCredential(value.parse().unwrap_or_else(|_| tonic::metadata::MetadataValue::from_static("Pozo invalid:00")))
    }
}

impl std::fmt::Debug for ReadCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never printed.
        f.write_str("ReadCredential(..)")
    }
}

impl tonic::service::Interceptor for ReadCredential {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        request.metadata_mut().insert(AUTHORIZATION, self.0.clone());
        Ok(request)
    }
}

/// A channel whose requests carry a read credential.
pub type ReadChannel = tonic::service::interceptor::InterceptedService<tonic::transport::Channel, ReadCredential>;
