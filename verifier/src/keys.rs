//! The casino's evidence key: Ed25519 (RFC 8032), by `ring`.
//!
//! The private half is a PKCS#8 file in PEM (`-----BEGIN PRIVATE KEY-----`), made by
//! `pozo-server evidence-key` or by `openssl genpkey -algorithm ed25519`; it stays with the
//! casino. The public half is what the casino registers with the regulator: a PEM
//! `PUBLIC KEY` (SubjectPublicKeyInfo, as `openssl pkey -pubout` writes) or its 32 bytes in hex.

use ring::rand::SystemRandom;
use ring::signature::{ED25519, Ed25519KeyPair, KeyPair, UnparsedPublicKey};
use sha2::{Digest, Sha256};

/// The encodings of the Ed25519 points of small order (1, 2, 4 or 8), and of the non-canonical
/// encodings of such points (`p`, `p + 1`), with the sign bit of x cleared: libsodium's
/// blocklist (`has_small_order` in `crypto_core/ed25519/ref10/ed25519_ref10.c`). A key or an `R`
/// among them lets anyone sign: with the identity as key, `R` = identity and `S` = 0 verify any
/// message (`[S]B = R + [k]A`), so such a key signs nothing of the casino's.
const SMALL_ORDER: [[u8; 32]; 7] = [
    // 0 (order 4)
    [0; 32],
    // 1, the identity (order 1)
    [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    // order 8
    [
        0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0, 0xd5, 0xdf, 0xac, 0x05,
        0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05,
    ],
    // order 8
    [
        0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10, 0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa,
        0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77, 0x92, 0xac, 0x03, 0x7a,
    ],
    // p - 1 (order 2)
    [
        0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ],
    // p, a non-canonical 0 (order 4)
    [
        0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ],
    // p + 1, a non-canonical identity (order 1)
    [
        0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ],
];

/// The order of the base point, `L = 2^252 + 27742317777372353535851937790883648493`, little-endian.
const ORDER: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0x10,
];

/// Whether `point` encodes a point of small order (libsodium's blocklist, either sign of x).
fn small_order(point: &[u8; 32]) -> bool {
    let mut unsigned = *point;
    unsigned[31] &= 0x7f;
    SMALL_ORDER.contains(&unsigned)
}

/// Whether `point`'s y is not below `p = 2^255 - 19`: an encoding no honest signer writes.
fn non_canonical(point: &[u8; 32]) -> bool {
    point[31] & 0x7f == 0x7f && point[1..31].iter().all(|byte| *byte == 0xff) && point[0] >= 0xed
}

/// Whether a little-endian scalar is below `L`, as RFC 8032 §5.1.7 requires of `S`.
fn canonical_scalar(scalar: &[u8]) -> bool {
    scalar.iter().rev().zip(ORDER.iter().rev()).find(|(a, b)| a != b).is_some_and(|(a, b)| a < b)
}

/// What is wrong with `point` as a public key or a signature's `R`, if anything.
fn refused(point: &[u8; 32]) -> Option<&'static str> {
    if small_order(point) {
        Some("es un punto de orden pequeño: con ella cualquiera firma sin secreto alguno")
    } else if non_canonical(point) {
        Some("no está en su codificación canónica (y ≥ p)")
    } else {
        None
    }
}

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
        // `from_pem` refuses a key whose public half anyone could sign with.
        Ok((SigningKey::from_pem(&pem)?, pem))
    }

    /// The key of a PKCS#8 PEM file's text.
    pub fn from_pem(text: &str) -> Result<SigningKey, String> {
        let block = pem::parse(text.trim()).map_err(|error| format!("not a PEM file: {error}"))?;
        if block.tag() != "PRIVATE KEY" {
            return Err(format!("a PEM `{}`, not a `PRIVATE KEY` (PKCS#8, Ed25519)", block.tag()));
        }
        // PKCS#8 v2 carries the public half (ring's, ours); v1 does not (openssl's): both read.
        let key = Ed25519KeyPair::from_pkcs8(block.contents())
            .or_else(|_| Ed25519KeyPair::from_pkcs8_maybe_unchecked(block.contents()))
            .map(SigningKey)
            .map_err(|_| "not an Ed25519 private key (PKCS#8)".to_owned())?;
        match refused(&key.public().0) {
            Some(_) => Err("its public half is a small-order or non-canonical point: anyone could sign as it".to_owned()),
            None => Ok(key),
        }
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
        let key = <[u8; 32]>::try_from(bytes.as_slice()).map_err(|_| "an Ed25519 public key is 32 bytes".to_owned())?;
        match refused(&key) {
            Some(why) => Err(format!("la clave {} {why}", hex::encode(key))),
            None => Ok(PublicKey(key)),
        }
    }

    /// What is wrong with this key, if anything: a small-order or non-canonical point (a
    /// [`PublicKey`] built from its bytes directly is not checked until it verifies).
    pub fn weakness(&self) -> Option<&'static str> {
        refused(&self.0)
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

    /// Whether `signature` is this key's signature of `message`: never for a key or an `R` of
    /// small order or not canonical, nor for an `S` not below `L` (RFC 8032 §5.1.7), whatever
    /// `ring` accepts.
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(r) = <[u8; 32]>::try_from(signature.get(..32).unwrap_or_default()) else {
            return false;
        };
        refused(&self.0).is_none()
            && refused(&r).is_none()
            && signature.len() == 64
            && canonical_scalar(&signature[32..])
            && UnparsedPublicKey::new(&ED25519, self.0).verify(message, signature).is_ok()
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

    // A small-order key (each of libsodium's blocklist, with either sign bit) or a
    // non-canonical one is refused as a key, and signs nothing: with the identity as key, the
    // "signature" R = identity, S = 0 of any message, which needs no secret, does not verify.
    #[test]
    fn a_key_anyone_can_sign_with_is_refused() {
        for point in SMALL_ORDER.iter().chain(std::iter::once(&[0xffu8; 32])) {
            for sign in [0, 0x80] {
                let mut key = *point;
                key[31] |= sign;
                let refused = PublicKey::parse(&hex::encode(key));
                assert!(refused.is_err(), "{} is refused", hex::encode(key));
                assert!(PublicKey(key).weakness().is_some());
            }
        }
        let identity = PublicKey(SMALL_ORDER[1]);
        let mut forged = SMALL_ORDER[1].to_vec();
        forged.extend_from_slice(&[0; 32]);
        assert!(!identity.verifies(b"cualquier cosa", &forged), "R = identity, S = 0 signs nothing");
        // S = L is the same signature as S = 0 to a lax check: refused.
        let (key, _) = SigningKey::generate().expect("a key");
        let mut signature = key.sign(b"x");
        assert!(key.public().verifies(b"x", &signature));
        signature[32..].copy_from_slice(&ORDER);
        assert!(!key.public().verifies(b"x", &signature));
        assert!(canonical_scalar(&[0; 32]) && !canonical_scalar(&ORDER) && !canonical_scalar(&[0xff; 32]));
    }

    /// `openssl genpkey -algorithm ed25519` writes PKCS#8 v1 (no public half): it reads too.
    #[test]
    fn an_openssl_key_reads() {
        let pem = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIGmD3xU6PCm5OdbbUSHs/qOrHTjqTg8UBcPfAYbZ2P/h\n-----END PRIVATE KEY-----\n";
        let key = SigningKey::from_pem(pem).expect("an openssl key");
        assert!(key.public().verifies(b"x", &key.sign(b"x")));
    }
}
