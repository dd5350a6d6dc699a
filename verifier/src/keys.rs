//! The casino's evidence key: Ed25519 (RFC 8032), by `ring`.
//!
//! The private half is a PKCS#8 file in PEM (`-----BEGIN PRIVATE KEY-----`), made by
//! `pozo-server evidence-key` or by `openssl genpkey -algorithm ed25519`; it stays with the
//! casino. The public half is what the casino registers with the regulator: a PEM
//! `PUBLIC KEY` (SubjectPublicKeyInfo, as `openssl pkey -pubout` writes) or its 32 bytes in hex.

use ring::rand::SystemRandom;
use ring::signature::{ED25519, Ed25519KeyPair, KeyPair, UnparsedPublicKey};
use sha2::{Digest, Sha256};

/// The DER of an Ed25519 SubjectPublicKeyInfo before its 32 key bytes (RFC 8410).
const SPKI_PREFIX: [u8; 12] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

/// The private half: it signs.
pub struct SigningKey(Ed25519KeyPair);

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "SigningKey({})", self.public().hex())
    }
}

impl SigningKey {
    /// A new key from the operating system's random source, and its PKCS#8 PEM.
    pub fn generate() -> Result<(SigningKey, String), String> {
        let document = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).map_err(|_| "no random source".to_owned())?;
        let pem = pem::encode(&pem::Pem::new("PRIVATE KEY", document.as_ref().to_vec()));
        Ok((SigningKey::from_pem(&pem)?, pem))
    }

    /// The key of a PKCS#8 PEM file's text.
    pub fn from_pem(text: &str) -> Result<SigningKey, String> {
        let block = pem::parse(text.trim()).map_err(|error| format!("not a PEM file: {error}"))?;
        if block.tag() != "PRIVATE KEY" {
            return Err(format!("a PEM `{}`, not a `PRIVATE KEY` (PKCS#8, Ed25519)", block.tag()));
        }
        // PKCS#8 v2 carries the public half (ring's, ours); v1 does not (openssl's): both read.
        Ed25519KeyPair::from_pkcs8(block.contents())
            .or_else(|_| Ed25519KeyPair::from_pkcs8_maybe_unchecked(block.contents()))
            .map(SigningKey)
            .map_err(|_| "not an Ed25519 private key (PKCS#8)".to_owned())
    }

    pub fn public(&self) -> PublicKey {
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(self.0.public_key().as_ref());
        PublicKey(bytes)
    }

    /// The signature of `message`, 64 bytes.
    pub fn sign(&self, message: &[u8]) -> Vec<u8> {
        self.0.sign(message).as_ref().to_vec()
    }
}

/// The public half: it verifies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey(pub [u8; 32]);

impl PublicKey {
    /// A PEM `PUBLIC KEY` (Ed25519 SubjectPublicKeyInfo) or 64 hex digits.
    pub fn parse(text: &str) -> Result<PublicKey, String> {
        let text = text.trim();
        let bytes = if text.starts_with("-----BEGIN") {
            let block = pem::parse(text).map_err(|error| format!("not a PEM file: {error}"))?;
            if block.tag() != "PUBLIC KEY" {
                return Err(format!("a PEM `{}`, not a `PUBLIC KEY`", block.tag()));
            }
            match block.contents().strip_prefix(&SPKI_PREFIX[..]) {
                Some(key) => key.to_vec(),
                None => return Err("not an Ed25519 public key (SubjectPublicKeyInfo)".to_owned()),
            }
        } else {
            hex::decode(text).map_err(|_| "neither a PEM `PUBLIC KEY` nor 64 hex digits".to_owned())?
        };
        <[u8; 32]>::try_from(bytes.as_slice()).map(PublicKey).map_err(|_| "an Ed25519 public key is 32 bytes".to_owned())
    }

    pub fn hex(&self) -> String {
        hex::encode(self.0)
    }

    /// The PEM `PUBLIC KEY` the casino registers.
    pub fn to_pem(&self) -> String {
        let mut der = SPKI_PREFIX.to_vec();
        der.extend_from_slice(&self.0);
        pem::encode(&pem::Pem::new("PUBLIC KEY", der))
    }

    /// A short name to read aloud and compare: the first 8 bytes of its SHA-256, in groups of 4 hex digits.
    pub fn fingerprint(&self) -> String {
        let digest = hex::encode(&Sha256::digest(self.0)[..8]);
        digest.as_bytes().chunks(4).map(|chunk| String::from_utf8_lossy(chunk).into_owned()).collect::<Vec<_>>().join(":")
    }

    /// Whether `signature` is this key's signature of `message`.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        UnparsedPublicKey::new(&ED25519, self.0).verify(message, signature).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_signs_what_its_public_half_verifies_and_nothing_else() {
        let (key, pem) = SigningKey::generate().expect("a key");
        let again = SigningKey::from_pem(&pem).expect("its PEM reads back");
        assert_eq!(again.public(), key.public());
        let public = PublicKey::parse(&key.public().to_pem()).expect("the public PEM reads back");
        assert_eq!(public, key.public());
        assert_eq!(PublicKey::parse(&public.hex()).expect("hex reads"), public);
        let signature = key.sign(b"jornada");
        assert!(public.verifies(b"jornada", &signature));
        assert!(!public.verifies(b"jornadb", &signature));
        let (other, _) = SigningKey::generate().expect("another key");
        assert!(!other.public().verifies(b"jornada", &signature));
        assert!(PublicKey::parse(&pem).is_err(), "a private key is not a public one");
        assert!(SigningKey::from_pem(&public.to_pem()).is_err());
        assert_eq!(public.fingerprint().len(), 19);
    }

    /// `openssl genpkey -algorithm ed25519` writes PKCS#8 v1 (no public half): it reads too.
    #[test]
    fn an_openssl_key_reads() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIGmD3xU6PCm5OdbbUSHs/qOrHTjqTg8UBcPfAYbZ2P/h\n-----END PRIVATE KEY-----\n";
        let key = SigningKey::from_pem(pem).expect("an openssl key");
        assert!(key.public().verifies(b"x", &key.sign(b"x")));
    }
}
