//! A kill -9 soak through real agents: four table agents play blackjack rounds as fast
//! as the controller answers while the `pozo-server` binary is SIGKILLed and restarted on
//! the same data directory and address, again and again. Every press an agent
//! acknowledged must be recorded exactly once; none it was told was not recorded may be.
//!
//! Bounded: [`KILLS`] kills, each after a short stretch of play; the whole test takes
//! about ten seconds and touches only loopback.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// How many times the controller is killed.
const KILLS: usize = 8;

/// The tables played (blackjack, seven seats each, in the embedded layout).
const TABLES: [&str; 4] = ["B1", "B2", "B3", "B4"];

/// How long a restarted controller may take before its agents are live again.
const BACK_WITHIN: Duration = Duration::from_secs(20);

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970").as_millis() as u64
}

/// What one table's agent saw.
#[derive(Debug, Default)]
struct Played {
    /// `press` lines acknowledged.
    acknowledged: u64,
    /// `press` lines refused with "recorded by the server; its answer could not be fetched":
    /// recorded, so counted by the server, but never acknowledged.
    recorded_unanswered: u64,
    /// `press` lines refused as not recorded (the controller died before it had them).
    not_recorded: u64,
    /// Lines answered in all.
    lines: u64,
    /// Commands in flight at a kill, settled against the server's record after it.
    settled_after_reconnection: u64,
    /// Times the agent went back to live after a kill.
    recoveries: u64,
}

/// The next line a dealer would type at this panel: open a closed table; finish a round
/// in play; otherwise sell credits to the first seat without a bet and none left, press
/// the first seat without a bet, or start the round when every seat has bet.
fn next_line(panel: &Value) -> String {
    match panel["state"].as_str().unwrap_or_default() {
        "cerrada" => return "open".to_owned(),
        "en juego" | "aceptado" => return "finish".to_owned(),
        _ => {}
    }
    for seat in seats(panel) {
        let number = seat["seat"].as_u64().unwrap_or(1);
        if seat["light"] != "on" {
            return if seat["credits"].as_u64().unwrap_or(0) == 0 {
                format!("credits {number} 20")
            } else {
                format!("press {number}")
            };
        }
    }
    "start".to_owned()
}

/// The newest live panel the agent printed.
fn latest_live(agent: &Agent) -> Option<Value> {
    agent
        .out
        .snapshot()
        .into_iter()
        .rev()
        .find(|line| is_panel(&line.value))
        .filter(|line| is_live_panel(&line.value))
        .map(|line| line.value)
}

/// Waits (bounded) until the agent's newest panel is live again: read from the whole
/// output, so a panel printed before the wait began is not missed.
async fn until_live(agent: &Agent, played: &mut Played) {
    let deadline = Instant::now() + BACK_WITHIN;
    while latest_live(agent).is_none() {
        assert!(
            Instant::now() < deadline,
            "agent {}: not live again within {BACK_WITHIN:?}:\n{}",
            agent.table,
            agent.out.dump(0)
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    played.recoveries += 1;
}

/// Plays until `stop`, following the panel; counts what happened to every press.
async fn play(mut agent: Agent, stop: Arc<AtomicBool>) -> (Agent, Played) {
    let mut played = Played::default();
    agent.live().await;
    while !stop.load(Ordering::SeqCst) {
        let panel = match latest_live(&agent) {
            Some(panel) => panel,
            None => {
                // Suspended: wait for the controller to be back.
                until_live(&agent, &mut played).await;
                continue;
            }
        };
        let line = next_line(&panel);
        let mut answer = agent.answer(&line).await;
        played.lines += 1;
        let provisional = |answer: &Value| {
            kind(answer) == "refused"
                && answer["code"] == "suspended"
                && answer["reason"].as_str().is_some_and(|reason| reason.contains("checked against the server's record"))
        };
        let mut skip = 0;
        while provisional(&answer) {
            // Not the final word (docs/agent.md §6): the command is settled after the reconnection,
            // and the link may be lost again before it is (another kill): then a second provisional
            // answer comes, and the settlement after it.
            skip += 1;
            answer = agent
                .out
                .wait_for(&format!("the settlement of `{line}`"), BACK_WITHIN, |value| is_answer_to(value, &line))
                .await
                .value;
            played.settled_after_reconnection += 1;
            assert!(skip <= KILLS, "agent {}: `{line}` never settled", agent.table);
        }
        let press = line.starts_with("press");
        match kind(&answer) {
            "ack" => {
                if press {
                    played.acknowledged += 1;
                }
                // The panel of this answer (the push may come before or after it).
                agent.panel_at(sequence(&answer)).await;
            }
            "refused" => {
                let reason = answer["reason"].as_str().unwrap_or_default();
                match answer["code"].as_str().unwrap_or_default() {
                    "suspended" if reason.contains("recorded by the server") => {
                        played.recorded_unanswered += u64::from(press);
                    }
                    "not_recorded" => played.not_recorded += u64::from(press),
                    _ => {}
                }
                if answer["code"] == "suspended" || answer["code"] == "not_recorded" {
                    // Live again before deciding again.
                    until_live(&agent, &mut played).await;
                }
            }
            other => panic!("agent {}: `{line}` answered with {other}: {answer}", agent.table),
        }
    }
    (agent, played)
}

// Proves, through real agents, that kill -9 of the controller under load loses no
// acknowledged press and doubles none: after KILLS kills and restarts on the same
// data, the server's press count of every table is exactly what its agent was told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_under_load_through_agents_loses_and_doubles_nothing() {
    let began = Instant::now();
    let started_ms = now_ms();
    let binary = server_binary();
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let spawn = |listen: String, round: usize| {
        let (binary, data, log) = (binary.clone(), data.clone(), directory.path().join(format!("server-{round}.log")));
        // A small snapshot interval: recovery is snapshot + replay, not replay alone.
        tokio::task::spawn_blocking(move || ServerProcess::spawn(&binary, &data, &listen, &["--snapshot-every", "200"], &log))
    };
    let mut server = spawn("127.0.0.1:0".to_owned(), 0).await.expect("pozo-server");
    let address = server.address.clone();
    let url = format!("http://{address}");

    let stop = Arc::new(AtomicBool::new(false));
    let players: Vec<_> =
        TABLES.iter().map(|table| tokio::spawn(play(Agent::spawn(&url, table, table_key(table)), Arc::clone(&stop)))).collect();

    let mut entries_at_kill = Vec::new();
    for round in 1..=KILLS {
        // Let them play a little, differently each time.
        tokio::time::sleep(Duration::from_millis(250 + 70 * round as u64)).await;
        let mut direct = Direct::connect(&address).await;
        let before = direct.journal().await.entries;
        drop(direct);
        tokio::time::sleep(Duration::from_millis(40)).await;
        server.kill();
        entries_at_kill.push(before);
        server = spawn(address.clone(), round).await.expect("pozo-server again");
        assert_eq!(server.address, address, "restarted on the same address");
    }
    // A last stretch of play after the last restart, then every agent stops at its next answer.
    tokio::time::sleep(Duration::from_millis(500)).await;
    stop.store(true, Ordering::SeqCst);
    let mut results = Vec::new();
    for player in players {
        let (agent, played) = tokio::time::timeout(BACK_WITHIN, player).await.expect("the player stops").expect("the player");
        results.push((agent, played));
    }

    let mut direct = Direct::connect(&address).await;
    let journal = direct.journal().await;
    // The jornadas the soak ran in (a jornada may have ended during it).
    let config = pozo_server::config::Config::embedded();
    let jornadas: std::collections::BTreeSet<String> =
        [started_ms, now_ms()].into_iter().map(|ms| pozo_server::state::jornada_and_hour(&config, ms).0).collect();
    let mut total = 0;
    for (agent, played) in &results {
        let mut recorded = 0;
        for jornada in &jornadas {
            recorded += direct.report_of(&agent.table, jornada).await.presses;
        }
        eprintln!("{}: {played:?}, recorded {recorded}", agent.table);
        assert!(played.acknowledged > 0, "{}: nothing was played", agent.table);
        assert_eq!(
            recorded,
            played.acknowledged + played.recorded_unanswered,
            "{}: every acknowledged press recorded exactly once, and none refused as not recorded ({played:?})",
            agent.table
        );
        total += played.acknowledged;
    }
    let recoveries: u64 = results.iter().map(|(_, played)| played.recoveries).sum();
    assert!(recoveries >= KILLS as u64, "the agents went through the kills: {recoveries} recoveries for {KILLS} kills");
    assert!(entries_at_kill.windows(2).all(|pair| pair[0] <= pair[1]), "the journal only grew: {entries_at_kill:?}");
    eprintln!(
        "soak: {KILLS} kills, {total} acknowledged presses, {} journal entries, {recoveries} recoveries, {:?}",
        journal.entries,
        began.elapsed()
    );
    for (agent, _) in results {
        agent.out.assert_well_formed();
        agent.stop().await;
    }
    server.kill();
}
