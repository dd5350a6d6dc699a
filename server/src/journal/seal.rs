//! The seal: HMAC-SHA256 under the journal key, bound to one journal's identity. The
//! journal's tip record, its snapshots and the acknowledgement mark each carry one, so
//! whoever can write the data directory but lacks the key cannot rewrite history
//! unnoticed (docs/security.md).

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::identity::{Hash, Identity};
use crate::config::JournalKey;

/// Seals with the journal key, for one journal identity.
#[derive(Clone)]
pub struct Sealer {
    key: JournalKey,
    pub(super) installation: [u8; 16],
    pub(super) epoch: u32,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer").field("epoch", &self.epoch).finish_non_exhaustive()
    }
}

impl Sealer {
    pub fn new(key: &JournalKey, identity: &Identity) -> Result<Sealer, String> {
        let installation: [u8; 16] = hex::decode(&identity.installation)
            .ok()
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| format!("identity: installation `{}` is not 16 bytes of hex", identity.installation))?;
        Ok(Sealer { key: key.clone(), installation, epoch: identity.epoch })
    }

    pub(super) fn mac(&self, context: &[u8], body: &[u8]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key.0).expect("HMAC takes keys of any length");
        mac.update(context);
        mac.update(body);
        mac.finalize().into_bytes().into()
    }

    /// The key a mystery level's draw is sealed under (crate::writer::draws): HMAC(journal key,
    /// "pozo.v1.draw-key" 0). Not bound to the installation, so that a restore, a standby and a
    /// journal opened from its predecessor's closing statement read the draws the key sealed.
    pub(crate) fn draw_key(&self) -> [u8; 32] {
        self.mac(b"pozo.v1.draw-key\0", &[])
    }

    /// The keys a tournament player's document is fingerprinted and sealed under
    /// (`pozo_core::tournament::identity`): derived from the journal key, not the installation.
    pub(crate) fn identity_keys(&self) -> pozo_core::tournament::identity::IdentityKeys {
        pozo_core::tournament::identity::IdentityKeys::derive(&self.key)
    }

    /// The seal of the journal's tip: HMAC(journal key, "pozo.v1.tip" 0, installation, epoch, sequence, hash).
    pub(crate) fn tip_seal(&self, sequence: u64, hash: &Hash) -> [u8; 32] {
        let mut body = Vec::with_capacity(60);
        body.extend_from_slice(&self.installation);
        body.extend_from_slice(&self.epoch.to_be_bytes());
        body.extend_from_slice(&sequence.to_be_bytes());
        body.extend_from_slice(hash);
        self.mac(b"pozo.v1.tip\0", &body)
    }

    /// The seal of a stored snapshot: HMAC(journal key, "pozo.v1.snapshot" 0, installation,
    /// the stored bytes). No epoch: a restore keeps the snapshot's seal valid.
    pub(crate) fn snapshot_seal(&self, bytes: &[u8]) -> [u8; 32] {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key.0).expect("HMAC takes keys of any length");
        mac.update(b"pozo.v1.snapshot\0");
        mac.update(&self.installation);
        mac.update(bytes);
        mac.finalize().into_bytes().into()
    }
}
