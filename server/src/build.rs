//! The controller's build: its version and the SHA-256 of its own executable, read once per
//! process. Every journal records the builds that wrote to it (docs/operations.md §8, "Upgrades").

use std::sync::OnceLock;

use pozo_core::state::Build;
use sha2::{Digest, Sha256};

/// This process's build. An executable that cannot be read (deleted while running) is named
/// by its version and `unreadable:` with the reason, never guessed.
pub fn current() -> &'static Build {
    static BUILD: OnceLock<Build> = OnceLock::new();
    BUILD.get_or_init(|| Build { version: env!("CARGO_PKG_VERSION").to_owned(), sha256: executable_sha256() })
}

fn executable_sha256() -> String {
    let hashed = std::env::current_exe().and_then(|path| {
        let mut file = std::fs::File::open(path)?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let read = std::io::Read::read(&mut file, &mut buffer)?;
            if read == 0 {
                return Ok(hex::encode(hasher.finalize()));
            }
            hasher.update(&buffer[..read]);
        }
    });
    hashed.unwrap_or_else(|error| format!("unreadable: {error}"))
}
