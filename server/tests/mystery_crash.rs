//! A kill -9 never redraws a mystery level (issue 44, item 5; docs/readings.md, "The mystery
//! level"): the real `pozo-server` binary serving the market's cross-game link
//! (`config/examples/mercado-enlace.toml` with `config/iplyc.toml` and `config/mercado.toml`,
//! the mystery level's ceiling brought down to 20.200,00) is killed with SIGKILL with bets in
//! force; restarted on the same directory it keeps the draw it journaled (no second draw of the
//! cycle), and the level then hits at a trigger that opens the commitment made before the kill.

mod common;

use std::path::{Path, PathBuf};

use common::mystery::records as journal;
use common::mystery::{money, of_kind, open_draw, round};
use common::*;
use pozo_core::state::draw::{self, DrawHead};
use pozo_testkit::process::ServerProcess;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");
const POOL: &str = "mercado-gran-sala";
const LEVEL: &str = "Misterioso";
/// 200,00 above the reset: ten Black Jack bets' shares (20,00 each) at most.
const CEILING: &str = "20200.00";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace").to_path_buf()
}

/// `pozo-server serve` on `data` with the link, the edited rulebook at `mercado`.
fn spawn(data: &Path, mercado: &Path, log: &Path) -> ServerProcess {
    let files = ["config/examples/mercado-enlace.toml", "config/iplyc.toml"]
        .map(|file| workspace().join(file).to_str().expect("a UTF-8 path").to_owned());
    let mercado = mercado.to_str().expect("a UTF-8 path");
    let extra = ["--config", &files[0], "--rulebook", &files[1], "--rulebook", mercado];
    ServerProcess::spawn(Path::new(BIN), data, "127.0.0.1:0", &extra, log)
}

// Proves that a controller killed with SIGKILL keeps its committed draw: after the restart the
// journal holds the same draw entry (same sequence, commitment and sealed value) and no second
// draw of its cycle, the start unsealed it (no pool held), and the level's hit after the restart
// reveals a trigger in (from, ceiling] that opens the commitment journaled before the kill.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_keeps_the_committed_draw_and_the_later_hit_opens_it() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let mercado = directory.path().join("mercado.toml");
    let text = common::market::MERCADO.replacen("must_hit_by = \"60000.00\"", &format!("must_hit_by = \"{CEILING}\""), 1);
    assert_ne!(text, common::market::MERCADO, "the example has the mystery level's ceiling");
    std::fs::write(&mercado, text).expect("the edited rulebook");

    let mut server = spawn(&data, &mercado, &directory.path().join("before-kill.log"));
    let mut client = connect(&server.address).await;
    client.ok("B1", open()).await;
    client.ok("CP1", open()).await;
    round(&mut client, &[1, 2]).await;
    // Bets in force at the kill: pressed at B1, one at CP1 begun.
    client.ok("CP1", sell(3, 1)).await;
    client.ok("CP1", press(3)).await;
    client.ok("CP1", start()).await;
    for seat in [1, 2, 3] {
        client.ok("B1", sell(seat, 1)).await;
        client.ok("B1", press(seat)).await;
    }
    let before = journal(&mut client).await;
    let draws_before: Vec<Value> = of_kind(&before, "draw").into_iter().cloned().collect();
    let open = open_draw(&before);
    let cycle = open["command"]["cycle"].as_u64().expect("a cycle");
    let sequences = client.sequences.clone();
    drop(client);
    server.kill();

    let mut server = spawn(&data, &mercado, &directory.path().join("after-kill.log"));
    let mut client = connect(&server.address).await;
    client.sequences = sequences;
    let after = journal(&mut client).await;
    assert_eq!(
        of_kind(&after, "draw").into_iter().cloned().collect::<Vec<Value>>(),
        draws_before,
        "the same draw entries stand after the kill, none added"
    );
    assert_eq!(open_draw(&after), open, "the open draw is the one journaled before the kill");
    assert!(!server.log_text().contains("cannot be unsealed"), "{}", server.log_text());

    // Play on until the open cycle's reveal: at most ten shares of 20,00 past the reset.
    let mut rounds = 0;
    client.ok("B1", start()).await;
    client.ok("B1", finish()).await;
    let reveal = loop {
        let records = journal(&mut client).await;
        if let Some(reveal) = of_kind(&records, "reveal").into_iter().find(|record| record["command"]["cycle"] == cycle) {
            break reveal.clone();
        }
        rounds += 1;
        assert!(rounds <= 12, "the ceiling of {CEILING} is reached within a dozen rounds");
        round(&mut client, &[1]).await;
    };
    let records = journal(&mut client).await;
    let drawn = of_kind(&records, "draw").into_iter().filter(|record| record["command"]["cycle"] == cycle).count();
    assert_eq!(drawn, 1, "cycle {cycle} is drawn once");
    let command = &reveal["command"];
    let trigger = money(&command["trigger"]);
    let head = DrawHead {
        pool: POOL.into(),
        level: LEVEL.into(),
        cycle,
        from: money(&open["command"]["from"]),
        ceiling: money(&open["command"]["ceiling"]),
    };
    assert!(head.from < trigger && trigger <= head.ceiling, "{trigger} in ({}, {}]", head.from, head.ceiling);
    let nonce = draw::nonce_of(command["nonce"].as_str().expect("a nonce")).expect("32 bytes");
    assert_eq!(
        hex::encode(draw::commitment(&head, trigger, &nonce)),
        open["command"]["commitment"].as_str().expect("a commitment"),
        "the trigger revealed after the kill is the one committed before it"
    );
    assert!(
        reveal["sequence"].as_u64() > before.last().and_then(|record| record["sequence"].as_u64()),
        "the hit came after the restart"
    );
    drop(client);
    assert!(server.terminate().success(), "log:\n{}", server.log_text());
    // The journal replayed by `verify` (the pure core checks every reveal against its draw).
    let output = std::process::Command::new(BIN).arg("verify").arg("--data").arg(&data).output().expect("verify runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
}
