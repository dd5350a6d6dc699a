//! The [`Handle`] the rest of the server talks to the writer through, the requests it
//! queues, why a request gets no answer, and the limits of the queue and the batches.

use std::collections::BTreeMap;
use std::sync::Arc;

use pozo_engine::TableId;
use tokio::sync::{mpsc, oneshot, watch};

use crate::clock::Clock;
use crate::config::Config;
use crate::journal::{Identity, Journal};
use crate::read::ReadModel;
use crate::read::metrics::Metrics;
use crate::read::signs::{DisplayPush, TablePush};
use crate::read::status::Role;
use pozo_core::state::{Applied, Command, Refusal};

/// Requests waiting for the writer; senders wait when it is full (backpressure).
pub(crate) const QUEUE_CAPACITY: usize = 8192;

/// The most requests applied and flushed together.
pub const BATCH_MAX: usize = 1024;

/// A snapshot every this many entries by default, so a restart replays at most that many.
pub const SNAPSHOT_EVERY: u64 = 10_000;

/// A command waiting for the writer, with where its answer goes.
pub(super) struct Request {
    pub(super) command: Command,
    pub(super) reply: oneshot::Sender<Result<Applied, Refusal>>,
}

/// Why a request got no answer from the writer.
#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    #[error("the controller is stopping")]
    Stopped,
    /// A hot standby (docs/journal.md, "On PostgreSQL"): commands go to the writer.
    #[error(
        "this controller is the standby: another controller is the journal's writer and takes the commands; \
         send them there (docs/operations.md §16)"
    )]
    Standby,
}

/// Why the writer stopped the controller other than by a storage failure: the writer
/// task's panic payload, so that `serve` maps a fail-stop to its exit status by type
/// (docs/operations.md §15), never by matching a message.
#[derive(Debug)]
pub(crate) enum FailStop {
    /// A standby found the writer's journal damaged: it exits as for a journal refused.
    JournalDamaged(String),
}

/// Every table's panel watch, by table, shared by the writer (which wires tables a change
/// adds and drops those it retires) and the handle.
pub(super) type TablePanels = Arc<std::sync::RwLock<BTreeMap<TableId, watch::Receiver<TablePush>>>>;

/// A key that signs commands. A table agent's has its MAC for table commands on this journal:
/// keyed with its secret and fed the envelope's prefix once (`pozo_proto::envelope_mac`), then
/// cloned and fed each press's payload (`grpc::auth`).
pub(crate) struct SigningKey {
    pub(crate) key: crate::config::Key,
    pub(crate) table_mac: Option<pozo_proto::Hmac<pozo_proto::Sha256>>,
}

impl SigningKey {
    pub(super) fn new(key: &crate::config::Key, journal_id: &str) -> Box<SigningKey> {
        let table_mac = (key.role == pozo_core::config::Role::Table)
            .then(|| pozo_proto::envelope_mac(&key.secret, pozo_proto::Purpose::TableCommand, journal_id));
        Box::new(SigningKey { key: key.clone(), table_mac })
    }
}

/// How the rest of the server talks to the writer.
#[derive(Clone)]
pub struct Handle {
    pub(super) requests: mpsc::Sender<Request>,
    /// Every table's panel, by table: an approved change adds and retires tables.
    pub(super) tables: TablePanels,
    pub(super) display: watch::Receiver<DisplayPush>,
    /// The keys that sign commands (from the keys file at start; a change never touches them),
    /// each table key with its MAC for table commands: hashed, looked up on every press (an
    /// ordered map walked a tree of large nodes). Boxed: the table's empty slots stay small.
    pub(super) keys: Arc<std::collections::HashMap<String, Box<SigningKey>>>,
    /// The journal to read from: the standby's reading connection, then the writer's.
    pub(super) journal: watch::Receiver<Journal>,
    pub(super) identity: Arc<Identity>,
    pub(super) journal_id: Arc<str>,
    pub(super) model: watch::Receiver<Arc<ReadModel>>,
    pub(super) role: watch::Receiver<Role>,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) metrics: Arc<Metrics>,
    /// The keys of tournament players' documents (never logged).
    pub(super) identity_keys: Arc<pozo_core::tournament::identity::IdentityKeys>,
}

impl Handle {
    /// The writer takes commands: false once it has stopped.
    pub(crate) fn is_serving(&self) -> bool {
        !self.requests.is_closed()
    }

    /// What `/metrics` shows (crate::read::metrics).
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The entries durable and acknowledged so far.
    pub fn durable_entries(&self) -> u64 {
        self.model.borrow().tip.entries
    }

    /// Now, by the controller's clock (crate::clock): the writer's time.
    pub fn now_ms(&self) -> u64 {
        self.clock.now_ms()
    }

    /// The state as of the last durable batch (crate::read): never waits for the writer.
    pub fn read(&self) -> Arc<ReadModel> {
        Arc::clone(&self.model.borrow())
    }

    /// The journal's identity (docs/security.md).
    pub(crate) fn identity_keys(&self) -> &pozo_core::tournament::identity::IdentityKeys {
        &self.identity_keys
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// What every envelope must be signed for: `<installation>-<epoch>`.
    pub fn journal_id(&self) -> &str {
        &self.journal_id
    }

    /// The writer, or a hot standby following the writer's journal.
    pub fn role(&self) -> Role {
        *self.role.borrow()
    }

    /// Changes of [`Handle::role`]: a standby becomes the writer once, when it takes over.
    pub(crate) fn role_changes(&self) -> watch::Receiver<Role> {
        self.role.clone()
    }

    /// Applies a command; answered once it is durable. A standby refuses it at once.
    pub async fn submit(&self, command: Command) -> Result<Result<Applied, Refusal>, WriterError> {
        if self.role() == Role::Standby {
            return Err(WriterError::Standby);
        }
        let started = std::time::Instant::now();
        let (reply, answer) = oneshot::channel();
        self.requests.send(Request { command, reply }).await.map_err(|_| WriterError::Stopped)?;
        let answer = answer.await.map_err(|_| WriterError::Stopped)?;
        self.metrics.answered(started.elapsed());
        Ok(answer)
    }

    pub fn table(&self, id: &str) -> Option<watch::Receiver<TablePush>> {
        self.tables.read().expect("the panels' lock is never poisoned").get(id).cloned()
    }

    pub fn display(&self) -> watch::Receiver<DisplayPush> {
        self.display.clone()
    }

    /// The key `id`, if the keys file has it.
    pub fn key(&self, id: &str) -> Option<&crate::config::Key> {
        self.keys.get(id).map(|signing| &signing.key)
    }

    /// The key `id`, if the keys file has it, with its MAC for table commands if a table's.
    pub(crate) fn signing_key(&self, id: &str) -> Option<&SigningKey> {
        self.keys.get(id).map(|signing| &**signing)
    }

    /// Every key, in no order.
    pub fn keys(&self) -> impl Iterator<Item = &crate::config::Key> {
        self.keys.values().map(|signing| &signing.key)
    }

    /// The configuration in force, as of the last durable batch (approved changes change it).
    pub fn config(&self) -> Arc<Config> {
        Arc::clone(&self.model.borrow().config)
    }

    /// The journal, for reading entries; only those up to the durable tip
    /// ([`Handle::durable_entries`]) are answered: a batch being written is not yet durable.
    pub fn journal(&self) -> Journal {
        self.journal.borrow().clone()
    }
}

/// Stops the writer: it finishes the batch in hand, answers it, and closes the journal.
pub struct Stopper(pub(super) watch::Sender<bool>);

impl Stopper {
    pub fn stop(&self) {
        let _ = self.0.send(true);
    }
}
