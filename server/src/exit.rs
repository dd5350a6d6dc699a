//! How `pozo-server` ends: one exit status per class of failure, so that a supervisor (systemd,
//! a script, a person at 3 a.m.) can tell what to do without reading the message first.
//! The table is in docs/operations.md §15.

use crate::config::ConfigError;
use crate::journal::JournalError;
use crate::journal::mark::MarkError;
use crate::journal::recovery::RecoveryError;
use crate::journal::store::StoreError;

/// A class of failure and its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitClass {
    /// 1: the command ran and found a problem (`verify`), or the controller is not serving (`status`).
    Problem,
    /// 2: bad input: an option (a `--data` that is a file, not a directory), the layout, the keys,
    /// a rulebook, a round file. Fix the input.
    BadInput,
    /// 3: no controller answered (`status`).
    Unreachable,
    /// 4: another `pozo-server` holds the data directory.
    Locked,
    /// 5: the journal is refused: damaged, shortened, replaced, lost or of an earlier format.
    /// Restore the last backup (§6, §7); restarting cannot help.
    JournalRefused,
    /// 6: the storage failed: reading or writing the data directory or the mark (disk full,
    /// permissions, a failing disk). The controller stops rather than answer what is not durable.
    Storage,
    /// 7: the network: the address of `--listen` or `--pages` cannot be listened on. Both are
    /// bound before the journal is opened or begun, so nothing has been written.
    Network,
}

impl ExitClass {
    pub const fn code(self) -> u8 {
        match self {
            ExitClass::Problem => 1,
            ExitClass::BadInput => 2,
            ExitClass::Unreachable => 3,
            ExitClass::Locked => 4,
            ExitClass::JournalRefused => 5,
            ExitClass::Storage => 6,
            ExitClass::Network => 7,
        }
    }

    /// The class of a failure, from the typed errors in its chain; bad input when none says otherwise.
    pub fn of(error: &anyhow::Error) -> ExitClass {
        for cause in error.chain() {
            if let Some(store) = cause.downcast_ref::<StoreError>() {
                return ExitClass::of_store(store);
            }
            // `JournalError::Store` is transparent: the store's error is not a cause of its own.
            if let Some(journal) = cause.downcast_ref::<JournalError>() {
                return match journal {
                    JournalError::Store(store) => ExitClass::of_store(store),
                    JournalError::Corrupt { .. } => ExitClass::JournalRefused,
                };
            }
            if let Some(recovery) = cause.downcast_ref::<RecoveryError>() {
                return ExitClass::of_recovery(recovery);
            }
            if let Some(mark) = cause.downcast_ref::<MarkError>() {
                return match mark {
                    MarkError::Io { .. } => ExitClass::Storage,
                    _ => ExitClass::JournalRefused,
                };
            }
            if cause.is::<JournalRefused>() {
                return ExitClass::JournalRefused;
            }
            if cause.is::<StorageFailed>() {
                return ExitClass::Storage;
            }
            if cause.is::<ListenFailed>() {
                return ExitClass::Network;
            }
            if cause.is::<ConfigError>() {
                return ExitClass::BadInput;
            }
        }
        ExitClass::BadInput
    }

    /// The class of a journal that could not be recovered: its storage failing, or the journal itself.
    pub(crate) fn of_recovery(recovery: &RecoveryError) -> ExitClass {
        match recovery {
            RecoveryError::Storage(JournalError::Store(store)) => ExitClass::of_store(store),
            RecoveryError::Mark(MarkError::Io { .. }) => ExitClass::Storage,
            _ => ExitClass::JournalRefused,
        }
    }

    fn of_store(store: &StoreError) -> ExitClass {
        match store {
            StoreError::Locked { .. } | StoreError::WriterElsewhere { .. } => ExitClass::Locked,
            StoreError::Address { .. } => ExitClass::BadInput,
            StoreError::Io { .. }
            | StoreError::Sled(sled::Error::Io(_))
            | StoreError::Postgres { .. }
            | StoreError::Migrations { .. } => ExitClass::Storage,
            _ => ExitClass::JournalRefused,
        }
    }
}

/// The data directory or the mark cannot be served from (the message says why and what to do).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct JournalRefused(pub String);

/// The journal's storage failed while serving.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct StorageFailed(pub String);

/// An address could not be listened on.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ListenFailed(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_class_has_its_own_status_and_typed_errors_find_their_class() {
        let classes = [
            ExitClass::Problem,
            ExitClass::BadInput,
            ExitClass::Unreachable,
            ExitClass::Locked,
            ExitClass::JournalRefused,
            ExitClass::Storage,
            ExitClass::Network,
        ];
        let codes: std::collections::BTreeSet<u8> = classes.iter().map(|class| class.code()).collect();
        assert_eq!(codes.len(), classes.len(), "distinct statuses");
        let of = |error: anyhow::Error| ExitClass::of(&error);
        assert_eq!(of(StoreError::Locked { directory: "d".into() }.into()), ExitClass::Locked);
        let locked = JournalError::Store(StoreError::Locked { directory: "d".into() });
        assert_eq!(of(anyhow::Error::new(locked).context("opening")), ExitClass::Locked, "through the journal's error");
        let io = std::io::Error::other("disk full");
        assert_eq!(of(StoreError::Io { path: "d".into(), error: io }.into()), ExitClass::Storage);
        assert_eq!(of(StoreError::Run { first: 1, problem: "torn" }.into()), ExitClass::JournalRefused);
        assert_eq!(of(anyhow::Error::new(JournalRefused("gone".into())).context("--data d")), ExitClass::JournalRefused);
        assert_eq!(of(ListenFailed("--listen".into()).into()), ExitClass::Network);
        assert_eq!(of(anyhow::anyhow!("--round: not JSON")), ExitClass::BadInput);
    }
}
