//! A hot standby's takeover never redraws a mystery level (issue 44, item 5; docs/readings.md,
//! "The mystery level"; docs/journal.md, "On PostgreSQL"): a writer and its standby on one
//! shared journal — here an in-memory one behind the store traits (`Shared`, `Candidate`,
//! `Store`) with the writer's lock PostgreSQL's store gives, so that it runs without a cluster —
//! serving the market's cross-game link with the mystery level's ceiling at 20.200,00. The
//! writer draws and takes bets, then stops; the standby takes the lock over with the same open
//! draw (no second draw of the cycle), and the level's later hit reveals a trigger that opens the
//! commitment the first writer journaled.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::mystery::records as journal;
use common::mystery::{money, of_kind, open_draw, round};
use common::*;
use futures_util::future::BoxFuture;
use pozo_core::state::draw::{self, DrawHead};
use pozo_engine::Money;
use pozo_proto::v1 as pb;
use pozo_server::journal::store::{Candidate, Shared, Store, StoreError};

const POOL: &str = "mercado-gran-sala";
const CEILING: &str = "20200.00";

/// The journal both controllers reach, and who holds the writer's lock.
#[derive(Default)]
struct Journal {
    entries: BTreeMap<u64, Vec<u8>>,
    tip: Option<Vec<u8>>,
    meta: HashMap<String, Vec<u8>>,
    writer: Option<u64>,
}

type Memory = Arc<Mutex<Journal>>;

/// A controller's way to the journal: `owner` names it for the lock.
struct Database {
    memory: Memory,
    owner: u64,
}

/// A store of the journal: the writer's (holding the lock, released when dropped) or a follower's.
struct Handle {
    memory: Memory,
    owner: Option<u64>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let mut journal = self.memory.lock().expect("the journal");
        if self.owner.is_some() && journal.writer == self.owner {
            journal.writer = None;
        }
    }
}

fn fenced(first: u64) -> StoreError {
    StoreError::Fenced { first, database: "memory".into() }
}

impl Store for Handle {
    fn append(&self, entries: Vec<(u64, Vec<u8>)>, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        let mut journal = self.memory.lock().expect("the journal");
        let first = entries.first().map(|(sequence, _)| *sequence).unwrap_or(0);
        // An entry already committed, or a lock no longer ours: fenced, as PostgreSQL's store is.
        let result = if self.owner.is_none() || journal.writer != self.owner || journal.entries.contains_key(&first) {
            Err(fenced(first))
        } else {
            journal.entries.extend(entries);
            journal.tip = Some(tip);
            Ok(())
        };
        drop(journal);
        Box::pin(async move { result })
    }

    fn put_tip(&self, tip: Vec<u8>) -> BoxFuture<'_, Result<(), StoreError>> {
        self.memory.lock().expect("the journal").tip = Some(tip);
        Box::pin(async { Ok(()) })
    }

    fn tip(&self) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.memory.lock().expect("the journal").tip.clone())
    }

    fn entry(&self, sequence: u64) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.memory.lock().expect("the journal").entries.get(&sequence).cloned())
    }

    fn last(&self) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        Ok(self
            .memory
            .lock()
            .expect("the journal")
            .entries
            .iter()
            .next_back()
            .map(|(sequence, value)| (*sequence, value.clone())))
    }

    fn after(&self, after: u64) -> Box<dyn Iterator<Item = Result<(u64, Vec<u8>), StoreError>> + Send + '_> {
        let entries: Vec<_> = self
            .memory
            .lock()
            .expect("the journal")
            .entries
            .range(after + 1..)
            .map(|(sequence, value)| Ok((*sequence, value.clone())))
            .collect();
        Box::new(entries.into_iter())
    }

    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.memory.lock().expect("the journal").meta.get(key).cloned())
    }

    fn put_meta(&self, values: Vec<(&'static str, Vec<u8>)>) -> Result<(), StoreError> {
        let mut journal = self.memory.lock().expect("the journal");
        for (key, value) in values {
            journal.meta.insert(key.to_owned(), value);
        }
        Ok(())
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }
}

struct Asking {
    memory: Memory,
    owner: u64,
}

impl Candidate for Asking {
    fn try_take(&mut self) -> Result<Option<Arc<dyn Store>>, StoreError> {
        let mut journal = self.memory.lock().expect("the journal");
        match journal.writer {
            Some(writer) if writer != self.owner => Ok(None),
            _ => {
                journal.writer = Some(self.owner);
                Ok(Some(Arc::new(Handle { memory: Arc::clone(&self.memory), owner: Some(self.owner) })))
            }
        }
    }
}

impl Shared for Database {
    fn describe(&self) -> String {
        format!("the test's shared journal (controller {})", self.owner)
    }

    fn follower(&self) -> Result<Arc<dyn Store>, StoreError> {
        Ok(Arc::new(Handle { memory: Arc::clone(&self.memory), owner: None }))
    }

    fn candidate(&self) -> Box<dyn Candidate> {
        Box::new(Asking { memory: Arc::clone(&self.memory), owner: self.owner })
    }
}

async fn start_controller(memory: &Memory, owner: u64, directory: &std::path::Path) -> pozo_server::Embedded {
    let config = common::market::enlace_edited(&common::market::MERCADO.replacen(
        "must_hit_by = \"60000.00\"",
        &format!("must_hit_by = \"{CEILING}\""),
        1,
    ));
    let data = directory.join(format!("controller-{owner}"));
    let options = pozo_server::ServeOptions {
        store: Some(pozo_server::writer::StoreChoice::Shared(Arc::new(Database { memory: Arc::clone(memory), owner }))),
        ..Default::default()
    };
    pozo_server::Embedded::start(config, &data, options).await.expect("a controller of the pair started")
}

async fn client_of(server: &pozo_server::Embedded) -> Client {
    connect(&server.address.to_string()).await
}

// Proves that a standby that takes the writer's lock over keeps the open draw the first writer
// committed: the journal it writes on holds that draw entry and no second draw of its cycle, and
// the hit it reveals opens the first writer's commitment with a trigger in (from, ceiling].
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standby_takes_over_the_open_draw_and_its_hit_opens_it() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let memory: Memory = Arc::default();
    let writer = start_controller(&memory, 1, directory.path()).await;
    let standby = start_controller(&memory, 2, directory.path()).await;
    assert_eq!(memory.lock().expect("the journal").writer, Some(1), "the first controller writes");

    let mut client = client_of(&writer).await;
    client.ok("B1", open()).await;
    round(&mut client, &[1, 2]).await;
    for seat in [1, 2] {
        client.ok("B1", sell(seat, 1)).await;
        client.ok("B1", press(seat)).await;
    }
    let before = journal(&mut client).await;
    let open = open_draw(&before);
    let cycle = open["command"]["cycle"].as_u64().expect("a cycle");
    // What the standby answers its readers while the cycle is open: kept, and searched for the
    // trigger once the hit reveals it (docs/security.md, "Who can learn a trigger before its hit").
    let standby_answers = standby_reads(&standby, before.len() as u64).await;
    let sequences = client.sequences.clone();
    drop(client);
    writer.stop().await.expect("the writer stopped");

    // The standby takes the lock over (it asks every moment) and serves the table.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while memory.lock().expect("the journal").writer != Some(2) {
        assert!(tokio::time::Instant::now() < deadline, "the standby took over within 20 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut client = client_of(&standby).await;
    client.sequences = sequences;
    let mut tries = 0;
    // Its first answer may wait until it has caught up and journaled its own start.
    let reveal = loop {
        let records = journal(&mut client).await;
        if let Some(reveal) = of_kind(&records, "reveal").into_iter().find(|record| record["command"]["cycle"] == cycle) {
            break reveal.clone();
        }
        tries += 1;
        assert!(tries <= 12, "the ceiling of {CEILING} is reached within a dozen rounds");
        if tries == 1 {
            client.ok("B1", start()).await;
            client.ok("B1", finish()).await;
        } else {
            round(&mut client, &[1]).await;
        }
    };
    let records = journal(&mut client).await;
    assert_eq!(
        of_kind(&records, "draw").into_iter().filter(|record| record["command"]["cycle"] == cycle).collect::<Vec<_>>(),
        vec![&open],
        "cycle {cycle} is drawn once, by the first writer"
    );
    let trigger = money(&reveal["command"]["trigger"]);
    let head = DrawHead {
        pool: POOL.into(),
        level: "Misterioso".into(),
        cycle,
        from: money(&open["command"]["from"]),
        ceiling: money(&open["command"]["ceiling"]),
    };
    assert!(head.from < trigger && trigger <= head.ceiling, "{trigger}");
    let nonce_hex = reveal["command"]["nonce"].as_str().expect("a nonce").to_owned();
    for writing in writings(trigger) {
        assert!(!holds_number(&standby_answers, &writing), "the standby's answers held the open trigger as `{writing}`");
    }
    assert!(!standby_answers.contains(&nonce_hex), "the standby's answers held the open draw's nonce");
    assert!(
        holds_number(&format!("x {} x", pozo_engine::format_ars(trigger)), &writings(trigger)[1]),
        "the search finds a writing"
    );
    let nonce = draw::nonce_of(reveal["command"]["nonce"].as_str().expect("a nonce")).expect("32 bytes");
    assert_eq!(
        hex::encode(draw::commitment(&head, trigger, &nonce)),
        open["command"]["commitment"].as_str().expect("a commitment"),
        "the standby revealed the trigger the first writer committed to"
    );
    drop(client);
    standby.stop().await.expect("the new writer stopped");
}

/// What the standby answers a supervisor while it follows, as text: Reports/Pool, Pools/Status,
/// the reconciliation, the liability and the journal's entries, once it has caught up to `entries`.
async fn standby_reads(standby: &pozo_server::Embedded, entries_expected: u64) -> String {
    let mut client = client_of(standby).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while client.journal().await.entries < entries_expected {
        assert!(tokio::time::Instant::now() < deadline, "the standby caught up within 20 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut text = format!("{:?}", client.pool(POOL).await);
    let status = client.pools.status(pb::PoolStatusRequest::default()).await.expect("Pools/Status").into_inner();
    text.push_str(&format!("{status:?}"));
    let books = client.books().await;
    text.push_str(&format!("{books:?}"));
    let owed = client.reports.liability(pb::LiabilityRequest::default()).await.expect("the liability").into_inner();
    text.push_str(&format!("{owed:?}"));
    for record in journal(&mut client).await {
        text.push_str(&record.to_string());
    }
    text
}

/// The trigger as an amount is written: plain ("20057.13"), the Argentine way ("20.057,13"),
/// with a decimal comma alone ("20057,13"), and in centavos ("2005713").
fn writings(trigger: Money) -> Vec<String> {
    let plain = pozo_engine::money::plain_text(trigger);
    let ars = pozo_engine::format_ars(trigger).trim_start_matches("$").trim().to_owned();
    let (units, cents) = plain.split_once('.').expect("two decimals");
    vec![plain.clone(), ars, format!("{units},{cents}"), format!("{units}{cents}")]
}

/// `text` holds `number` with no digit (nor a digit's separator and digit) either side.
fn holds_number(text: &str, number: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(number).any(|(at, _)| {
        let before = at.checked_sub(1).map(|index| bytes[index]);
        let after = bytes.get(at + number.len()).copied();
        let digit = |byte: Option<u8>| byte.is_some_and(|byte| byte.is_ascii_digit());
        let separated = |first: Option<u8>, second: Option<u8>| matches!(first, Some(b'.' | b',')) && digit(second);
        !digit(before)
            && !digit(after)
            && !separated(after, bytes.get(at + number.len() + 1).copied())
            && !separated(before, at.checked_sub(2).map(|index| bytes[index]))
    })
}
