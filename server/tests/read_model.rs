//! The writer's two inputs from outside the pure core, seen from its public API: the
//! clock (crate::clock), read once per batch, and the published read model
//! (crate::read), which readers take without going through the writer's queue.

use std::sync::Arc;

use pozo_engine::Money;
use pozo_server::clock::ManualClock;
use pozo_server::config::Config;
use pozo_server::state::{Applied, Command, TableCommand, TableOp};
use pozo_server::writer::{self, Handle, WriterError};

/// 2026-11-22 00:00 in the casino's zone (UTC-03:00), in Unix ms.
const LOCAL_MIDNIGHT_MS: u64 = 1_795_305_600_000 + 3 * 3_600_000;

fn at(hour: u64, minute: u64) -> u64 {
    LOCAL_MIDNIGHT_MS + (hour * 60 + minute) * 60_000
}

struct Table {
    id: &'static str,
    sequence: u64,
}

impl Table {
    async fn send(&mut self, handle: &Handle, op: TableOp) -> Result<Applied, pozo_server::state::Refusal> {
        self.sequence += 1;
        let command = Command::Table(TableCommand {
            table_id: self.id.to_owned().into(),
            sequence: self.sequence,
            payload_sha256: format!("{}-{}", self.id, self.sequence),
            op,
            card: None,
            inspector: None,
        });
        handle.submit(command).await.expect("the writer runs")
    }
}

async fn started(clock: Arc<ManualClock>) -> (tempfile::TempDir, Handle, tokio::task::JoinHandle<()>, writer::Stopper) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let data = dir.path().join("data");
    let mark = dir.path().join("data.acknowledged");
    let (handle, task, stopper) =
        writer::start(Config::embedded(), &data, None, &mark, writer::SNAPSHOT_EVERY, "prueba@local", clock, pozo_server::cards::CardSource::Os)
            .await
            .expect("started");
    (dir, handle, task, stopper)
}

#[tokio::test]
async fn every_entry_and_meter_is_booked_at_the_time_the_clock_gives_and_journal_time_never_goes_back() {
    let clock = Arc::new(ManualClock::at(at(14, 50)));
    let (_dir, handle, _task, _stopper) = started(Arc::clone(&clock)).await;
    let mut table = Table { id: "B1", sequence: 0 };
    table.send(&handle, TableOp::OpenTable).await.expect("opened");
    table.send(&handle, TableOp::SellCredits { seat: 2, credits: 5 }).await.expect("sold");
    table.send(&handle, TableOp::Press { seat: 2, credits: None }).await.expect("pressed");
    // INICIAR JUEGO registers the bet (12.5.1.1): at 15:01 by this clock, so in hour 15.
    clock.set(at(15, 1));
    table.send(&handle, TableOp::StartRound).await.expect("started");
    // A clock set back: the journal keeps its time (never earlier than the last entry).
    clock.set(at(9, 0));
    table.send(&handle, TableOp::VoidBet { seat: 3 }).await.expect_err("seat 3 has no bet: refused, nothing journaled");
    table.sequence -= 1;
    table.send(&handle, TableOp::RefundBet { seat: 2 }).await.expect("refunded");

    let times: Vec<u64> = handle.journal().read_after(0).map(|entry| entry.expect("an entry").record.time_ms).collect();
    assert_eq!(times, [at(14, 50), at(14, 50), at(14, 50), at(14, 50), at(15, 1), at(15, 1)], "genesis, 4 commands, refund");

    let model = handle.read();
    let day = model.day("2026-11-22", "B1");
    let side_bet = model.pool("iplyc-blackjack").map(|pool| pool.rules().side_bet).expect("the blackjack pool");
    assert_eq!(day.credits_sold_amount, side_bet * rust_decimal::Decimal::from(5));
    // Registered in hour 15 and refunded off hour 15, the hour it was registered in.
    assert_eq!(day.hours.get(&15).map(|(ipa, _)| *ipa), Some(Money::ZERO));
    assert!(!day.hours.contains_key(&14), "nothing was registered at 14:xx: {:?}", day.hours);
    assert_eq!(model.jornadas().collect::<Vec<_>>(), ["2026-11-22"]);
    assert_eq!(handle.now_ms(), at(9, 0), "the handle tells the same clock the writer reads");
}

#[tokio::test]
async fn readers_take_the_published_model_without_the_writer_and_an_old_one_never_changes() {
    let clock = Arc::new(ManualClock::at(at(20, 0)));
    let (_dir, handle, task, stopper) = started(clock).await;
    let mut table = Table { id: "B1", sequence: 0 };
    let genesis = handle.read();
    assert_eq!(genesis.tip.entries, 1);
    table.send(&handle, TableOp::OpenTable).await.expect("opened");
    table.send(&handle, TableOp::SellCredits { seat: 1, credits: 1 }).await.expect("sold");
    table.send(&handle, TableOp::Press { seat: 1, credits: None }).await.expect("pressed");
    table.send(&handle, TableOp::StartRound).await.expect("started");

    // Answered means published: the caller's own command is in what it reads next.
    let now = handle.read();
    assert_eq!(now.tip.entries, 5);
    assert_eq!(now.day("2026-11-22", "B1").bets, 1);
    let before = now.pool("iplyc-blackjack").expect("pool").balance();
    assert!(before > genesis.pool("iplyc-blackjack").expect("pool").balance(), "the contribution is in the pool");
    // The model taken at genesis is as it was: immutable, whatever the writer did since.
    assert_eq!(genesis.tip.entries, 1);
    assert_eq!(genesis.day("2026-11-22", "B1").bets, 0);
    assert_eq!(genesis.jornadas().count(), 0);

    // With the writer stopped, commands are refused and reads still answer the durable state.
    stopper.stop();
    task.await.expect("the writer stops cleanly");
    let refused = table.sequence + 1;
    let command = Command::Table(TableCommand {
        table_id: "B1".into(),
        sequence: refused,
        payload_sha256: "x".into(),
        op: TableOp::FinishRound,
        card: None,
        inspector: None,
    });
    assert!(matches!(handle.submit(command).await, Err(WriterError::Stopped)));
    let after = handle.read();
    assert_eq!((after.tip.entries, after.tip.hash), (now.tip.entries, now.tip.hash));
    assert_eq!(after.pool("iplyc-blackjack").expect("pool").balance(), before);
    assert_eq!(handle.durable_entries(), 5);
}
