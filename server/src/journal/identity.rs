//! Who a journal is and how its entries are named: the [`Identity`] drawn at genesis
//! (moved on by each restore) and the [`Hash`] that chains one entry to the next.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A SHA-256 hash.
pub type Hash = [u8; 32];

/// Who a journal is: an installation id drawn at genesis, and the epoch, moved on by
/// each restore from a backup. Every signed envelope names `journal_id()`, so one
/// captured on another journal, or before a restore, is refused (docs/security.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// 16 random bytes, hex.
    pub installation: String,
    pub epoch: u32,
}

/// The seeded simulation's installations (`pozo-sim vopr`): drawn from its seed, not the OS.
static SIMULATED: std::sync::Mutex<Option<(u64, u64)>> = std::sync::Mutex::new(None);

impl Identity {
    /// A new installation, epoch 1, from the operating system's CSPRNG (or, in the seeded
    /// simulation, from its seed: [`Identity::seed_for_simulation`]).
    pub fn generate() -> Identity {
        let mut bytes = [0u8; 16];
        let mut simulated = SIMULATED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match simulated.as_mut() {
            Some((seed, drawn)) => {
                *drawn += 1;
                let digest = Sha256::new()
                    .chain_update(b"pozo.vopr identity\0")
                    .chain_update(seed.to_be_bytes())
                    .chain_update(drawn.to_be_bytes())
                    .finalize();
                bytes.copy_from_slice(&digest[..16]);
            }
            None => getrandom::fill(&mut bytes).expect("the operating system's random source"),
        }
        Identity { installation: hex::encode(bytes), epoch: 1 }
    }

    /// From now on this process draws new installations from `seed`: the seeded simulation's,
    /// so that one seed is one journal id. Never for a controller that serves.
    pub fn seed_for_simulation(seed: u64) {
        *SIMULATED.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((seed, 0));
    }

    /// `<installation>-<epoch>`: what envelopes are signed for.
    pub fn journal_id(&self) -> String {
        format!("{}-{}", self.installation, self.epoch)
    }

    /// The predecessor hash of entry 1: SHA-256 of "pozo.v1 genesis", a zero byte and
    /// the installation id. A journal cannot be passed off as another installation's.
    pub fn genesis_previous(&self) -> Hash {
        Sha256::new().chain_update(b"pozo.v1 genesis\0").chain_update(self.installation.as_bytes()).finalize().into()
    }
}
