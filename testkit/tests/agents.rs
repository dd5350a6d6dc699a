//! The table agent against the real controller on loopback: lights follow acks;
//! a lost answer retried gives exactly one bet; a killed server suspends every
//! panel within a second and its restart restores them exactly; a forged key is
//! refused end to end; bad input is refused and the agent keeps going; and the
//! `pozo-agent` binary plays a round from typed lines (stdin and a Unix socket).

mod common;

use std::time::{Duration, Instant};

use common::*;
use pozo_proto::v1 as pb;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

/// The bound: from the controller's death to `suspended` on every panel.
const SUSPEND_WITHIN: Duration = Duration::from_secs(1);

// ----------------------------------------------------------------------------- 1. lights follow acks

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lights_follow_acks() {
    let server = TestServer::start().await;
    let mut direct = Direct::connect(&server.address.to_string()).await;
    let pushes = direct.watch_log("B1").await;
    let mut agent = Agent::spawn(&server.url(), "B1", table_key("B1"));

    let first = agent.live().await;
    assert_eq!(first["state"], "cerrada", "{first}");
    assert_eq!(seats(&first).len(), 7, "blackjack: 7 seats: {first}");
    assert!(seats(&first).iter().all(|seat| seat["light"] == "off"), "a closed table lights nothing: {first}");

    let open = agent.ack("open").await;
    let panel = agent.panel_at(sequence(&open)).await;
    assert!(seats(&panel).iter().all(|seat| seat["light"] == "blue"), "open: every seat may bet: {panel}");

    let sold = agent.ack("credits 3 5").await;
    let panel = agent.panel_at(sequence(&sold)).await;
    assert_eq!((light(&panel, 3), credits(&panel, 3)), ("blue", 5), "{panel}");

    let typed_at = agent.out.len();
    let press = agent.ack("press 3").await;
    let press_sequence = sequence(&press);
    let journal_sequence = press["journal_sequence"].as_u64().expect("journal_sequence");
    assert!(journal_sequence > 0, "the press is in the journal: {press}");
    assert_eq!(press_sequence, sequence(&sold) + 1, "{press}");
    let panel = agent.panel_at(press_sequence).await;
    assert_eq!((light(&panel, 3), credits(&panel, 3)), ("on", 4), "the press is acknowledged by the light: {panel}");

    // No panel showed seat 3 on before the server recorded the press.
    let lines = agent.out.snapshot();
    let ack_at = lines.iter().position(|line| is_answer_to(&line.value, "press 3")).expect("the ack");
    for (index, line) in lines.iter().enumerate().filter(|(_, line)| is_panel(&line.value)) {
        if seats(&line.value).is_empty() || light(&line.value, 3) != "on" {
            continue;
        }
        assert!(index >= typed_at, "seat 3 on before the press was typed: [{index}] {}", line.text);
        assert!(
            index > ack_at || sequence(&line.value) >= press_sequence,
            "seat 3 on in a panel before the ack and from before the press: [{index}] {}",
            line.text
        );
    }

    // The server's own record agrees.
    let view = direct.view("B1").await;
    assert_eq!(view.last_sequence, press_sequence);
    assert_eq!(view_lights_and_credits(&view), lights_and_credits(&panel), "the agent's panel is the server's table");
    assert_eq!(direct.report("B1").await.presses, 1);
    {
        let pushes = pushes.lock().expect("log").clone();
        let lit = pushes
            .iter()
            .find(|event| event.table.as_ref().is_some_and(|view| view.seats[2].light == pb::Light::On as i32))
            .expect("the server pushed seat 3 on");
        assert!(lit.journal_sequence >= journal_sequence, "pushed only once journaled: {lit:?}");
        assert_eq!(lit.table.as_ref().expect("view").last_sequence, press_sequence);
    }

    // INICIAR JUEGO: seats without a bet go off; the bet stays lit.
    let start = agent.ack("start").await;
    let panel = agent.panel_at(sequence(&start)).await;
    for seat in 1..=7 {
        let expected = if seat == 3 { "on" } else { "off" };
        assert_eq!(light(&panel, seat), expected, "after start, seat {seat}: {panel}");
    }
    // FINALIZAR JUEGO: every panel enabled again.
    let finish = agent.ack("finish").await;
    let panel = agent.panel_at(sequence(&finish)).await;
    assert!(seats(&panel).iter().all(|seat| seat["light"] == "blue"), "after finish every seat is blue: {panel}");
    assert_eq!(credits(&panel, 3), 4, "{panel}");
    assert_eq!(view_lights_and_credits(&direct.view("B1").await), lights_and_credits(&panel));

    agent.out.assert_well_formed();
    agent.stop().await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- 2. a lost answer

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_answer_retried_gives_exactly_one_bet() {
    let server = TestServer::start().await;
    let mut direct = Direct::connect(&server.address.to_string()).await;
    let proxy = Proxy::start(server.address).await;
    let mut agent = Agent::spawn(&proxy.url(), "B1", table_key("B1"));
    agent.live().await;
    agent.ack("open").await;
    let sold = agent.ack("credits 3 5").await;
    agent.panel_at(sequence(&sold)).await;
    let entries_before = direct.journal().await.entries;
    assert_eq!(direct.report("B1").await.presses, 0);

    // The press reaches the server; its answer (and everything else it sends) is lost.
    proxy.drop_answers();
    let typed = Instant::now();
    agent.type_line("press 3").await;
    let deadline = Instant::now() + WAIT;
    while direct.report("B1").await.presses != 1 {
        assert!(Instant::now() < deadline, "the server did not record the press within {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // Then every connection breaks; new ones are carried again.
    proxy.cut_all_and_forward();

    let answer = agent
        .out
        .wait_for("an ack of the press after the lost answer", WAIT, |value| kind(value) == "ack" && value["input"] == "press 3")
        .await;
    let settled = typed.elapsed();
    let press_sequence = sequence(&answer.value);
    assert_eq!(press_sequence, sequence(&sold) + 1, "{}", answer.text);

    // Later commands still line up with the server's sequence.
    let next = agent.ack("credits 4 1").await;
    assert_eq!(sequence(&next), press_sequence + 1, "{next}");
    let panel = agent.panel_at(sequence(&next)).await;

    // Exactly one bet: one ack, one press recorded, one credit fewer.
    let lines = agent.out.snapshot();
    let acks: Vec<_> = lines.iter().filter(|line| kind(&line.value) == "ack" && line.value["input"] == "press 3").collect();
    assert_eq!(acks.len(), 1, "exactly one ack of the press:\n{}", agent.out.dump(0));
    for line in lines.iter().filter(|line| kind(&line.value) == "refused" && line.value["input"] == "press 3") {
        // While the link was down the agent may say so; never that the bet was lost.
        assert_eq!(line.value["code"], "suspended", "only a suspension notice for the in-flight press: {}", line.text);
    }
    let report = direct.report("B1").await;
    assert_eq!(report.presses, 1, "the server recorded exactly one press");
    assert_eq!(direct.journal().await.entries, entries_before + 2, "the press and the credits, nothing else");
    let view = direct.view("B1").await;
    assert_eq!(view.seats[2].credits, 4, "5 credits, one bet");
    assert_eq!(view.seats[2].light, pb::Light::On as i32);
    assert_eq!((light(&panel, 3), credits(&panel, 3)), ("on", 4), "{panel}");
    assert_eq!(view_lights_and_credits(&view), lights_and_credits(&panel));
    assert!(proxy.accepted() >= 2, "the agent reconnected through the proxy");
    eprintln!("lost answer settled {settled:?} after the press was typed; ack: {}", answer.text);

    agent.out.assert_well_formed();
    agent.stop().await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- 3. the controller dies

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_server_suspends_every_panel_within_one_second_and_restart_restores_it() {
    let binary = server_binary();
    let directory = tempfile::tempdir().expect("a temporary directory");
    let data = directory.path().join("data");
    let log = directory.path().join("server.log");
    let spawn = {
        let (binary, data, log) = (binary.clone(), data.clone(), log.clone());
        move |listen: String| {
            let (binary, data, log) = (binary.clone(), data.clone(), log.clone());
            tokio::task::spawn_blocking(move || ServerProcess::spawn(&binary, &data, &listen, &[], &log))
        }
    };
    let mut server = spawn("127.0.0.1:0".to_owned()).await.expect("pozo-server");
    let address = server.address.clone();

    // Three tables, lights on and credits sold at each.
    let plays: [(&str, &[&str]); 3] = [
        ("B1", &["open", "credits 3 5", "credits 5 1", "press 3", "press 5", "credits 1 10"]),
        ("B2", &["open", "credits 2 20", "press 2"]),
        ("R1", &["open", "credits 1 5", "credits 8 1", "press 8"]),
    ];
    // Each agent reaches the server through a proxy that counts its connection attempts, so
    // the test can tell when an agent has tried again while the server is down.
    let upstream: std::net::SocketAddr = address.parse().expect("the server's address");
    let mut agents = Vec::new();
    let mut proxies = Vec::new();
    for (table, _) in &plays {
        let proxy = Proxy::start(upstream).await;
        agents.push(Agent::spawn(&proxy.url(), table, table_key(table)));
        proxies.push(proxy);
    }
    let mut direct = Direct::connect(&address).await;
    let mut before = Vec::new();
    for (agent, (table, lines)) in agents.iter_mut().zip(&plays) {
        agent.live().await;
        let mut last = 0;
        for line in *lines {
            last = sequence(&agent.ack(line).await);
        }
        let panel = agent.panel_at(last).await;
        let view = direct.view(table).await;
        assert_eq!(view.last_sequence, last);
        assert_eq!(lights_and_credits(&panel), view_lights_and_credits(&view), "{table}: the panel is the server's");
        assert!(seats(&panel).iter().any(|seat| seat["light"] == "on"), "{table}: a light on: {panel}");
        before.push(panel);
    }
    let journal_before = direct.journal().await;
    drop(direct);
    for agent in &mut agents {
        agent.out.skip_all();
    }

    // SIGKILL: every panel must say `suspended` within a second.
    let killed = Instant::now();
    server.kill();
    let mut times = Vec::new();
    for agent in &mut agents {
        let panel = agent.out.wait_for("suspended panel after the kill", WAIT, is_suspended_panel).await;
        let after = panel.at.saturating_duration_since(killed);
        assert_eq!(panel.value["state"], "suspended", "{}", panel.text);
        // Suspended: no seat invites a bet; recorded bets keep their light.
        assert!(seats(&panel.value).iter().all(|seat| seat["light"] != "blue"), "{}", panel.text);
        times.push((agent.table.clone(), after));
    }
    eprintln!("suspended after SIGKILL: {times:?}");
    for (table, after) in &times {
        assert!(*after <= SUSPEND_WITHIN, "table {table}: suspended {after:?} after the kill, over {SUSPEND_WITHIN:?}");
    }

    // While suspended every event is refused at the table and reaches nobody.
    for (agent, line) in agents.iter_mut().zip(["press 1", "credits 4 5", "start"]) {
        let refusal = agent.refused(line, "suspended").await;
        assert!(refusal["reason"].as_str().is_some_and(|reason| reason.contains("suspended")), "{refusal}");
    }
    // Each agent then fails one more whole attempt to reconnect (the proxy accepts its next
    // attempt only after the previous one failed and its pause ran out) and is still suspended.
    let attempts: Vec<usize> = proxies.iter().map(Proxy::accepted).collect();
    let deadline = Instant::now() + WAIT;
    for (proxy, before) in proxies.iter().zip(&attempts) {
        while proxy.accepted() <= *before {
            assert!(Instant::now() < deadline, "an agent did not try to reconnect: {} attempts", proxy.accepted());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    for agent in &mut agents {
        assert!(
            agent
                .out
                .snapshot()
                .iter()
                .rev()
                .find(|line| is_panel(&line.value))
                .is_some_and(|line| is_suspended_panel(&line.value)),
            "agent {}: still suspended while the server is down:\n{}",
            agent.table,
            agent.out.dump(0)
        );
    }

    // The same data, the same address.
    let restarted = Instant::now();
    let mut server = spawn(address.clone()).await.expect("pozo-server again");
    assert_eq!(server.address, address);
    for (agent, before) in agents.iter_mut().zip(&before) {
        let panel = agent.live().await;
        assert_eq!(panel["state"], before["state"], "agent {}: {panel}", agent.table);
        assert_eq!(panel["sequence"], before["sequence"], "agent {}: {panel}", agent.table);
        assert_eq!(
            lights_and_credits(&panel),
            lights_and_credits(before),
            "agent {}: every light and credit as before the kill",
            agent.table
        );
    }
    eprintln!("every panel live again {:?} after the restart", restarted.elapsed());
    let mut direct = Direct::connect(&server.address).await;
    let journal_after = direct.journal().await;
    // Only the restart's own record of its build was journaled (docs/journal.md, "build").
    assert_eq!(journal_after.entries, journal_before.entries + 1, "nothing typed while suspended reached the server");

    // And the tables play on.
    let next = agents[0].ack("press 1").await;
    assert_eq!(sequence(&next), sequence(&before[0]) + 1, "{next}");
    let panel = agents[0].panel_at(sequence(&next)).await;
    assert_eq!((light(&panel, 1), credits(&panel, 1)), ("on", 9), "{panel}");

    for agent in agents {
        agent.out.assert_well_formed();
        agent.stop().await;
    }
    server.kill();
}

// ----------------------------------------------------------------------------- 4. forged keys

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_key_is_refused_end_to_end() {
    let server = TestServer::start().await;
    let mut direct = Direct::connect(&server.address.to_string()).await;
    let directory = tempfile::tempdir().expect("a temporary directory");
    let journal_before = direct.journal().await;
    let view_before = direct.view("B1").await;

    // The right key id, a secret of the right shape that is not the table's.
    let forged = write_keys_file(directory.path(), "forged.toml", "mesa-B1", "B1", &"5a".repeat(32));
    let key = table_agent::key::load(&forged, "B1").expect("a well-formed keys file");
    assert_eq!(key.id, "mesa-B1");
    // Through a proxy that counts the agent's connections: each attempt is a new one.
    let proxy = Proxy::start(server.address).await;
    let mut agent = Agent::spawn(&proxy.url(), "B1", key);
    let refusal = agent
        .out
        .wait_for("the connection refused", WAIT, |value| kind(value) == "refused" && value["input"] == "(connect)")
        .await;
    assert_eq!(refusal.value["code"], "Unauthenticated", "{}", refusal.text);
    let reason = refusal.value["reason"].as_str().expect("a reason");
    assert!(reason.contains("mac") && reason.contains("mesa-B1"), "the reason names the MAC: {reason}");
    for line in ["open", "credits 3 5", "press 3"] {
        agent.refused(line, "suspended").await;
    }
    // It keeps trying (a key may be rotated) and keeps being refused, without repeating itself:
    // two more attempts after the one refused above, then the output is read.
    let deadline = Instant::now() + WAIT;
    while proxy.accepted() < 3 {
        assert!(Instant::now() < deadline, "the agent did not try again: {} connections", proxy.accepted());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let lines = agent.out.snapshot();
    assert!(
        lines.iter().filter(|line| is_panel(&line.value)).all(|line| is_suspended_panel(&line.value)),
        "{}",
        agent.out.dump(0)
    );
    assert_eq!(lines.iter().filter(|line| line.value["input"] == "(connect)").count(), 1, "{}", agent.out.dump(0));
    agent.out.assert_well_formed();
    agent.stop().await;

    // Another table's true key: authenticated, but not for this table.
    let secret = hex::encode(table_key("B2").secret);
    let borrowed = write_keys_file(directory.path(), "borrowed.toml", "mesa-B2", "B1", &secret);
    let mut agent = Agent::spawn(&server.url(), "B1", table_agent::key::load(&borrowed, "B1").expect("keys file"));
    let refusal = agent
        .out
        .wait_for("the connection refused", WAIT, |value| kind(value) == "refused" && value["input"] == "(connect)")
        .await;
    assert_eq!(refusal.value["code"], "PermissionDenied", "{}", refusal.text);
    let reason = refusal.value["reason"].as_str().expect("a reason");
    assert!(reason.contains("belongs to table B2, not to table B1"), "{reason}");
    agent.refused("open", "suspended").await;
    assert!(agent.out.snapshot().iter().filter(|line| is_panel(&line.value)).all(|line| is_suspended_panel(&line.value)));
    agent.out.assert_well_formed();
    agent.stop().await;

    // The server recorded nothing.
    let journal_after = direct.journal().await;
    assert_eq!((journal_after.entries, &journal_after.tip_hash), (journal_before.entries, &journal_before.tip_hash));
    assert_eq!(direct.view("B1").await, view_before);
    server.stop().await;
}

// ----------------------------------------------------------------------------- 5. bad input

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_and_the_agent_keeps_running() {
    let server = TestServer::start().await;
    let mut agent = Agent::spawn(&server.url(), "B1", table_key("B1"));
    agent.live().await;
    let cases = [
        ("jump 3", "unknown word `jump`"),
        ("press 0", "`0` is not a seat number"),
        ("press 17", "`17` is not a seat number"),
        ("press", "needs a seat number"),
        ("credits 3", "`credits SEAT N`"),
        ("credits 3 many", "`many` is not a number of credits"),
        ("start now", "unexpected `now`"),
        ("prize 2", "premio code"),
    ];
    for (line, problem) in cases {
        let refusal = agent.refused(line, "input").await;
        let reason = refusal["reason"].as_str().expect("a reason");
        assert!(reason.contains(problem), "`{line}`: the reason names the problem ({problem}): {reason}");
    }
    let long = "x".repeat(300);
    let refusal = agent.refused(&long, "input").await;
    assert!(refusal["reason"].as_str().is_some_and(|reason| reason.contains("over 256")), "{refusal}");

    // Blank lines and comments are no events: nothing answers them.
    let before = agent.out.len();
    agent.type_line("").await;
    agent.type_line("# the dealer's note").await;
    let open = agent.ack("open").await;
    assert_eq!(sequence(&open), 1, "the first command the server takes: {open}");
    assert_eq!(agent.out.snapshot()[before..].iter().filter(|line| kind(&line.value) == "refused").count(), 0);

    // A refusal by the server does not use up the sequence either.
    let refusal = agent.refused("press 3", "FailedPrecondition").await;
    assert!(refusal["reason"].as_str().is_some_and(|reason| reason.contains("no credits")), "{refusal}");
    let sold = agent.ack("credits 3 5").await;
    assert_eq!(sequence(&sold), 2, "{sold}");
    let press = agent.ack("press 3").await;
    assert_eq!(sequence(&press), 3, "{press}");
    let panel = agent.panel_at(3).await;
    assert_eq!((light(&panel, 3), credits(&panel, 3)), ("on", 4), "{panel}");

    agent.out.assert_well_formed();
    agent.stop().await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- 6. the binary

const ROUND: [&str; 7] = ["open", "credits 3 5", "press 3", "start", "prize 3 CUATRO_ASES", "accept", "finish"];

fn agent_args<'a>(server: &'a str, keys: &'a str, input: Option<&'a str>) -> Vec<&'a str> {
    let mut args = vec!["--server", server, "--table", "B1", "--key-file", keys];
    if let Some(input) = input {
        args.extend(["--input", input]);
    }
    args
}

/// Checks the round of [`ROUND`] in the output lines, from an open table.
fn check_round(lines: &[Line]) {
    let values: Vec<&Value> = lines.iter().map(|line| &line.value).collect();
    let mut acks = Vec::new();
    for input in ROUND {
        let answer = values
            .iter()
            .find(|value| is_answer_to(value, input))
            .unwrap_or_else(|| panic!("no answer to `{input}` in:\n{}", texts(lines)));
        assert_eq!(kind(answer), "ack", "`{input}`: {answer}");
        assert!(answer["journal_sequence"].as_u64().is_some_and(|entry| entry > 0), "{answer}");
        acks.push(*answer);
    }
    let sequences: Vec<u64> = acks.iter().map(|ack| sequence(ack)).collect();
    assert_eq!(sequences, (1..=ROUND.len() as u64).collect::<Vec<_>>(), "one sequence per command, in order");
    let accept = acks[5];
    let awards = accept["awards"].as_array().expect("awards");
    assert_eq!(awards.len(), 1, "{accept}");
    assert_eq!((awards[0]["seat"].as_u64(), awards[0]["code"].as_str()), (Some(3), Some("CUATRO_ASES")), "{accept}");
    assert_eq!(awards[0]["award"], "500.00", "{accept}");
    assert_eq!(awards[0]["payout_order_id"], "", "paid at the table: {accept}");

    // Seat 3 lights only from the server's record of the press: a panel may come
    // before the ack (the Watch push), never from before the press.
    let press_at = values.iter().position(|value| is_answer_to(value, "press 3")).expect("answered");
    for (index, value) in values.iter().enumerate().filter(|(_, value)| is_panel(value) && !seats(value).is_empty()) {
        if light(value, 3) == "on" {
            assert!(index > press_at || sequence(value) >= 3, "seat 3 on before the press was recorded:\n{}", texts(lines));
        }
    }
    let lit = values
        .iter()
        .find(|value| is_live_panel(value) && value["sequence"].as_u64() == Some(3))
        .unwrap_or_else(|| panic!("a panel after the press:\n{}", texts(lines)));
    assert_eq!((light(lit, 3), credits(lit, 3)), ("on", 4), "{lit}");
    let last = values.iter().rev().find(|value| is_live_panel(value)).expect("a last panel");
    assert_eq!(sequence(last), 7, "{last}");
    assert!(seats(last).iter().all(|seat| seat["light"] == "blue"), "finished: {last}");
    assert_eq!(credits(last, 3), 4, "{last}");
}

fn texts(lines: &[Line]) -> String {
    lines.iter().map(|line| format!("  {}\n", line.text)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_plays_a_blackjack_round_from_typed_lines() {
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");

    // stdin: the round typed once the panel is live, then the end of input.
    let server = TestServer::start().await;
    let url = server.url();
    let mut agent = AgentProcess::spawn(&agent_args(&url, keys, None), &directory.path().join("stdin-agent.err"));
    agent.out.wait_for("live panel", WAIT, is_live_panel).await;
    for line in ROUND {
        agent.write_line(line);
    }
    let status = agent.finish().await;
    assert!(status.success(), "pozo-agent exits 0 at the end of its input: {status}; stderr:\n{}", agent.stderr_text());
    agent.out.assert_well_formed();
    check_round(&agent.out.snapshot());
    let mut direct = Direct::connect(&server.address.to_string()).await;
    assert_eq!(direct.journal().await.entries, 1 + ROUND.len() as u64, "the genesis entry and one per line");
    server.stop().await;

    // --input unix:PATH: the agent listens; lines arrive over a connection.
    let server = TestServer::start().await;
    let url = server.url();
    let socket = directory.path().join("b1.sock");
    let input = format!("unix:{}", socket.display());
    let mut agent = AgentProcess::spawn(&agent_args(&url, keys, Some(&input)), &directory.path().join("socket-agent.err"));
    agent.out.wait_for("live panel", WAIT, is_live_panel).await;
    let mut stream = None;
    for _ in 0..500 {
        if let Ok(connected) = tokio::net::UnixStream::connect(&socket).await {
            stream = Some(connected);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut stream =
        stream.unwrap_or_else(|| panic!("the agent listens on {}; stderr:\n{}", socket.display(), agent.stderr_text()));
    stream.write_all(format!("{}\n", ROUND.join("\n")).as_bytes()).await.expect("send the lines");
    stream.shutdown().await.expect("end of this connection");
    drop(stream);
    agent.out.wait_for("the ack of finish", WAIT, |value| kind(value) == "ack" && value["input"] == "finish").await;
    agent.out.find_anywhere("the last panel", WAIT, |value| is_live_panel(value) && value["sequence"] == 7).await;
    // A second connection is served too.
    let mut stream = tokio::net::UnixStream::connect(&socket).await.expect("the agent still listens");
    stream.write_all(b"status\n").await.expect("send");
    drop(stream);
    let status_panel = agent.out.wait_for("the panel printed for `status`", WAIT, is_live_panel).await;
    assert_eq!(sequence(&status_panel.value), 7);
    agent.out.assert_well_formed();
    check_round(&agent.out.snapshot());
    drop(agent);
    server.stop().await;
}

/// 12.5.2.1: the prize data "de la siguiente manera: a) Número de Apostador ganador. b) juego
/// ganador. c) ingresar presionando el botón FINALIZAR JUEGO. d) digitar el botón ACEPTAR para
/// validar el premio"; 12.5.2.3: FINALIZAR JUEGO again when the cards go into the rack. Proves the
/// agent binary takes the dealer's buttons in the article's order: every line acknowledged, the
/// first `finish` closing the entry (no award yet), `accept` fixing the award, the second `finish`
/// ending the round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn art_12_5_2_1_the_agent_takes_the_dealers_buttons_in_the_articles_order() {
    const LINES: [&str; 8] = ["open", "credits 3 5", "press 3", "start", "prize 3 CUATRO_ASES", "finish", "accept", "finish"];
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let server = TestServer::start().await;
    let url = server.url();
    let mut agent = AgentProcess::spawn(&agent_args(&url, keys, None), &directory.path().join("agent.err"));
    agent.out.wait_for("live panel", WAIT, is_live_panel).await;
    for line in LINES {
        agent.write_line(line);
    }
    let status = agent.finish().await;
    assert!(status.success(), "pozo-agent exits 0: {status}; stderr:\n{}", agent.stderr_text());
    let lines = agent.out.snapshot();
    let answers: Vec<&Value> =
        lines.iter().map(|line| &line.value).filter(|value| matches!(kind(value), "ack" | "refused")).collect();
    let inputs: Vec<(&str, &str)> =
        answers.iter().map(|answer| (answer["input"].as_str().unwrap_or_default(), kind(answer))).collect();
    assert_eq!(inputs, LINES.iter().map(|line| (*line, "ack")).collect::<Vec<_>>(), "{}", texts(&lines));
    let entered = answers[5];
    assert!(
        entered["outcome"].as_str().is_some_and(|outcome| outcome.contains("1 premio ingresado; ACEPTAR para validarlo")),
        "{entered}"
    );
    assert!(entered["awards"].as_array().is_none_or(Vec::is_empty), "FINALIZAR JUEGO fixes no award: {entered}");
    let accepted = answers[6];
    assert_eq!(accepted["awards"][0]["award"], "500.00", "{accepted}");
    assert!(answers[7]["outcome"].as_str().is_some_and(|outcome| outcome.contains("ronda 1 terminada")), "{}", answers[7]);
    server.stop().await;
}

// ----------------------------------------------------------------------------- 7. a silent link

/// Nothing the agent sends arrives any more (a cable pulled at the switch): no
/// RST, no FIN, only silence. The keepalive must find it within the second, the
/// press caught in it must be reported as not bet, and the seat keeps its credit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_link_suspends_the_panel_within_one_second_and_the_press_lost_on_it_bets_nothing() {
    let server = TestServer::start().await;
    let mut direct = Direct::connect(&server.address.to_string()).await;
    let proxy = Proxy::start(server.address).await;
    let mut agent = Agent::spawn(&proxy.url(), "B1", table_key("B1"));
    agent.live().await;
    agent.ack("open").await;
    let sold = agent.ack("credits 3 5").await;
    let before = agent.panel_at(sequence(&sold)).await;
    let entries_before = direct.journal().await.entries;
    agent.out.skip_all();

    let silent = Instant::now();
    proxy.drop_requests();
    agent.type_line("press 3").await;
    let panel = agent.out.wait_for("suspended panel on a silent link", WAIT, is_suspended_panel).await;
    let after = panel.at.saturating_duration_since(silent);
    eprintln!("silent link: suspended after {after:?}");
    assert!(after <= SUSPEND_WITHIN, "suspended {after:?} after the link went silent, over {SUSPEND_WITHIN:?}");
    agent.refused("credits 4 5", "suspended").await;
    assert_eq!(direct.report("B1").await.presses, 0, "the press never reached the server");

    proxy.cut_all_and_forward();
    let verdict = agent
        .out
        .find_anywhere("the verdict on the lost press", WAIT, |value| {
            value["input"] == "press 3" && (kind(value) == "ack" || value["code"] == "not_recorded")
        })
        .await;
    assert_eq!(verdict.value["code"], "not_recorded", "{}", verdict.text);
    let live = agent.live().await;
    assert_eq!(lights_and_credits(&live), lights_and_credits(&before), "nothing was bet: {live}");
    assert_eq!(direct.journal().await.entries, entries_before);

    // Pressed again, it is one bet, on the next sequence.
    let press = agent.ack("press 3").await;
    assert_eq!(sequence(&press), sequence(&sold) + 1, "{press}");
    let panel = agent.panel_at(sequence(&press)).await;
    assert_eq!((light(&panel, 3), credits(&panel, 3)), ("on", 4), "{panel}");
    assert_eq!(direct.report("B1").await.presses, 1);
    agent.out.assert_well_formed();
    agent.stop().await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- 8. a frozen or stopping server

async fn server_with_an_open_table(directory: &std::path::Path) -> (ServerProcess, Agent, Value) {
    let binary = server_binary();
    let (data, log) = (directory.join("data"), directory.join("server.log"));
    let server = tokio::task::spawn_blocking(move || ServerProcess::spawn(&binary, &data, "127.0.0.1:0", &[], &log))
        .await
        .expect("pozo-server");
    let mut agent = Agent::spawn(&format!("http://{}", server.address), "B1", table_key("B1"));
    agent.live().await;
    agent.ack("open").await;
    agent.ack("credits 3 5").await;
    let press = agent.ack("press 3").await;
    let panel = agent.panel_at(sequence(&press)).await;
    agent.out.skip_all();
    (server, agent, panel)
}

/// SIGSTOP: the process is alive, its sockets open, the kernel still accepts
/// connections; it just never answers. Only the keepalive can tell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_server_suspends_the_panel_within_one_second_and_thawed_restores_it() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (mut server, mut agent, before) = server_with_an_open_table(directory.path()).await;

    let frozen = Instant::now();
    server.signal("STOP");
    let panel = agent.out.wait_for("suspended panel after SIGSTOP", WAIT, is_suspended_panel).await;
    let after = panel.at.saturating_duration_since(frozen);
    eprintln!("frozen server: suspended after {after:?}");
    agent.refused("press 1", "suspended").await;
    server.signal("CONT");
    let live = agent.live().await;
    assert_eq!(lights_and_credits(&live), lights_and_credits(&before), "{live}");
    assert_eq!(live["sequence"], before["sequence"], "{live}");
    assert!(after <= SUSPEND_WITHIN, "suspended {after:?} after SIGSTOP, over {SUSPEND_WITHIN:?}");
    agent.out.assert_well_formed();
    agent.stop().await;
    server.kill();
}

/// SIGTERM: the controller stops taking commands at once, so the panels must stop
/// inviting bets at once too (3.7.5), not when the last stream is cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_server_suspends_the_panel_within_one_second() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let (mut server, mut agent, _) = server_with_an_open_table(directory.path()).await;

    let stopping = Instant::now();
    server.signal("TERM");
    let panel = agent.out.wait_for("suspended panel after SIGTERM", WAIT, is_suspended_panel).await;
    let after = panel.at.saturating_duration_since(stopping);
    eprintln!("stopping server: suspended after {after:?}");
    let status = tokio::task::spawn_blocking(move || server.wait()).await.expect("waiting for pozo-server");
    assert!(status.success(), "a stop exits 0: {status}");
    agent.stop().await;
    assert!(after <= SUSPEND_WITHIN, "suspended {after:?} after SIGTERM, over {SUSPEND_WITHIN:?}");
}

// ----------------------------------------------------------------------------- 9. the binary's input edge cases

/// The binary, with no controller to reach: input problems are answered all the same.
fn offline_agent(directory: &std::path::Path, name: &str) -> AgentProcess {
    let keys = keys_file();
    // Port 1 on loopback: nothing listens, the agent stays suspended.
    AgentProcess::spawn(
        &["--server", "http://127.0.0.1:1", "--table", "B1", "--key-file", keys.to_str().expect("UTF-8")],
        &directory.join(format!("{name}.err")),
    )
}

/// A line that is not UTF-8 (line noise on a serial cable) is one bad line: it is
/// refused and the agent reads on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_that_is_not_utf8_is_refused_and_the_binary_keeps_reading() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let mut agent = offline_agent(directory.path(), "utf8");
    agent.out.wait_for("the first panel", WAIT, is_panel).await;
    {
        let stdin = agent.stdin.as_mut().expect("stdin");
        std::io::Write::write_all(stdin, b"press \xff\xfe\n").expect("write");
    }
    agent.write_line("jump");
    let refusal = agent.out.wait_for("a refusal", Duration::from_secs(3), |value| kind(value) == "refused").await;
    assert_eq!(refusal.value["code"], "input", "the bad line is refused as input: {}", refusal.text);
    assert_eq!(refusal.value["reason"], "a line that is not UTF-8 text", "{}", refusal.text);
    let next = agent.out.wait_for("the refusal of `jump`", WAIT, |value| is_answer_to(value, "jump")).await;
    assert_eq!(next.value["code"], "input", "{}", next.text);
    let status = agent.finish().await;
    assert!(status.success(), "{status}");
}

/// LINE_BYTES_MAX is the longest line: a line of exactly that many bytes is read
/// by the binary as the library reads it (the newline is not part of the line).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_of_the_maximum_length_is_read() {
    let longest = format!("status{}", " ".repeat(table_agent::line::LINE_BYTES_MAX - "status".len()));
    assert_eq!(longest.len(), table_agent::line::LINE_BYTES_MAX);
    assert_eq!(table_agent::line::parse(&longest), Ok(Some(table_agent::line::Input::Status)), "the library reads it");

    let directory = tempfile::tempdir().expect("a temporary directory");
    let mut agent = offline_agent(directory.path(), "longest");
    agent.out.wait_for("the first panel", WAIT, is_panel).await;
    agent.out.skip_all();
    agent.write_line(&longest);
    agent.write_line("jump");
    agent.out.wait_for("the refusal of `jump`", Duration::from_secs(3), |value| is_answer_to(value, "jump")).await;
    let lines = agent.out.snapshot();
    let refusals: Vec<_> = lines.iter().filter(|line| line.value["input"] == "status").collect();
    assert!(refusals.is_empty(), "a {}-byte line refused: {:?}", longest.len(), refusals.first().map(|line| &line.text));
    let status = agent.finish().await;
    assert!(status.success(), "{status}");
}

// ----------------------------------------------------------------------------- 7. pozo-agent status

/// Runs `pozo-agent ARGS… status EXTRA…` (the binary) off the runtime's threads.
async fn agent_status(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_testkit-pozo-agent")).args(&args).output().expect("pozo-agent runs")
    })
    .await
    .expect("joined")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_status_reads_the_table_with_the_agents_key_and_says_when_it_cannot() {
    let server = TestServer::start().await;
    let url = format!("http://{}", server.address);
    let keys = keys_file().display().to_string();
    // A bet at B1 through a running agent, then `status` as a technician would run it.
    let mut agent = Agent::spawn(&url, "B1", table_key("B1"));
    agent.live().await;
    for line in ["open", "credits 3 5"] {
        agent.ack(line).await;
    }
    let last = sequence(&agent.ack("press 3").await);
    let status = |extra: &[&str]| {
        let mut args: Vec<String> =
            ["--server", &url, "--table", "B1", "--key-file", &keys, "status"].map(str::to_owned).to_vec();
        args.extend(extra.iter().map(|item| (*item).to_owned()));
        args
    };
    let output = agent_status(status(&["--json"])).await;
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["table"], "B1");
    assert_eq!(report["key_id"], "mesa-B1");
    assert_eq!(report["state"], "apuestas");
    assert_eq!(report["last_sequence"], last, "the same record the agent's panel shows");
    assert_eq!(report["seats"][2]["light"], "on", "{report}");
    assert_eq!(report["seats"][2]["credits"], 4);
    let text = agent_status(status(&[])).await;
    let text = String::from_utf8_lossy(&text.stdout).to_string();
    assert!(text.contains("mesa B1") && text.contains("CONECTADA") && text.contains("puesto 3: luz on, créditos 4"), "{text}");

    // A key the controller does not hold for B1: refused by the controller (exit 2), the reason printed.
    let directory = tempfile::tempdir().expect("a directory");
    let wrong = write_keys_file(directory.path(), "wrong.toml", "mesa-B1", "B1", &"5a".repeat(32));
    let output = agent_status(
        ["--server", &url, "--table", "B1", "--key-file", &wrong.display().to_string(), "status"].map(str::to_owned).to_vec(),
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("refused"), "{}", String::from_utf8_lossy(&output.stderr));

    // Nothing listening: no answer (exit 3).
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("bound");
    let output = agent_status(
        ["--server", &format!("http://{closed}"), "--table", "B1", "--key-file", &keys, "status"].map(str::to_owned).to_vec(),
    )
    .await;
    assert_eq!(output.status.code(), Some(3), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no answer from"));

    agent.stop().await;
    server.stop().await;
}

// ----------------------------------------------------------------------------- 10. the two traps at start (issue 42, point 14)

/// The agent's first panel shows what the controller's view (`pozo.v1.TableView`) shows of each
/// seat: the seat's light as the agent prints it, then credits, stake, grillos, closed, absent.
fn panel_seats(panel: &Value) -> Vec<(String, u64, u64, [u64; 3], bool, bool)> {
    seats(panel)
        .iter()
        .map(|seat| {
            let number = |field: &str| seat[field].as_u64().unwrap_or_else(|| panic!("`{field}` in {seat}"));
            let flag = |field: &str| seat[field].as_bool().unwrap_or_else(|| panic!("`{field}` in {seat}"));
            (
                seat["light"].as_str().expect("a light").to_owned(),
                number("credits"),
                number("stake"),
                [number("bronze"), number("silver"), number("gold")],
                flag("closed"),
                flag("absent"),
            )
        })
        .collect()
}

// Proves docs/agent.md §1's promise: a `--server` without `http://` (`127.0.0.1:50051`, as the
// server prints its address) stops the agent at start with exit 2 and a message naming
// `--server` and the form it needs, for the agent and for `pozo-agent status`; before the fix the
// agent ran on, `suspended` for ever with no reason given, and ended 0 with its input.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_address_without_its_scheme_stops_the_agent_at_start() {
    let server = TestServer::start().await;
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let bare = server.address.to_string();
    let mut agent = AgentProcess::spawn(&agent_args(&bare, keys, None), &directory.path().join("bare.err"));
    let status = agent.finish().await;
    let said = agent.stderr_text();
    assert_eq!(status.code(), Some(2), "a bad --server is an error at start: {status}; stderr:\n{said}");
    assert!(said.contains(&format!("--server {bare}: not a controller's URL")) && said.contains("http://HOST:PORT"), "{said}");
    assert!(agent.out.snapshot().is_empty(), "nothing printed, not even a panel:\n{}", texts(&agent.out.snapshot()));
    let mut args: Vec<String> = agent_args(&bare, keys, None).into_iter().map(str::to_owned).collect();
    args.push("status".into());
    let checked = agent_status(args).await;
    let said = String::from_utf8_lossy(&checked.stderr);
    assert_eq!(checked.status.code(), Some(2), "{said}");
    assert!(said.contains("not a controller's URL"), "{said}");
    let mut direct = Direct::connect(&bare).await;
    assert_eq!(direct.journal().await.entries, 1, "nothing reached the controller: the genesis entry only");
    server.stop().await;
}

// Proves that lines piped to an agent just started (`printf 'open\n…' | pozo-agent …`) are played
// once its first connection is made, not refused as "controller unreachable" before it has
// tried: the whole round is acknowledged in order (before the fix every line was refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_piped_to_a_fresh_agent_are_played_once_it_has_connected() {
    let server = TestServer::start().await;
    let keys = keys_file();
    let keys = keys.to_str().expect("a UTF-8 path");
    let directory = tempfile::tempdir().expect("a temporary directory");
    let url = server.url();
    let mut agent = AgentProcess::spawn(&agent_args(&url, keys, None), &directory.path().join("piped.err"));
    for line in ROUND {
        agent.write_line(line);
    }
    let status = agent.finish().await;
    assert!(status.success(), "{status}; stderr:\n{}", agent.stderr_text());
    agent.out.assert_well_formed();
    check_round(&agent.out.snapshot());
    server.stop().await;
}

// ----------------------------------------------------------------------------- 11. the panel shows what the view shows (issue 42, point 15)

// Proves that the agent's panel shows of each seat what the controller's gRPC view shows: the
// stake of a bet of several credits (AJ 2.5.4.1: "seleccionando el monto de su apuesta,
// expresado en créditos"), a seat closed to the progressive (AJ 2.5.6.1: "deberá ser cerrada, no
// pudiendo participar en el pozo progresivo") and an absent player (3.7.1: "Cuando una
// indisposición le impida al Apostador jugar las 3 bolas consecutivas"), whose lamp is dark with
// his two silvers kept, not lit like a present player's (before the fix the panel had no stake,
// closed or absent, and the absent seat read `"light":"on"` with 2 silver).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agents_panel_shows_the_stake_a_closed_seat_and_an_absent_player_as_the_view_does() {
    let server = TestServer::start().await;
    let url = server.url();
    let mut direct = Direct::connect(&server.address.to_string()).await;
    let mut lines_and_views = Vec::new();
    for (table, lines) in [
        ("C1", &["open", "credits 2 20", "press 2 5"][..]),
        ("G1", &["open", "credits 3 5", "credits 1 5", "close-seat 3"][..]),
        ("R1", &["open", "credits 1 1", "press 1", "start", "prize 1 GRILLO_BRONCE", "accept", "finish", "absent 1"][..]),
    ] {
        let mut agent = Agent::spawn(&url, table, table_key(table));
        agent.live().await;
        let mut last = 0;
        for line in lines {
            last = sequence(&agent.ack(line).await);
        }
        let panel = agent.panel_at(last).await;
        let view = direct.view(table).await;
        assert_eq!(view.last_sequence, last, "{table}: the view of the same record");
        let from_view: Vec<_> = view
            .seats
            .iter()
            .map(|seat| {
                let lamp = if seat.absent { "off".to_owned() } else { light_name(seat.light).to_owned() };
                (
                    lamp,
                    u64::from(seat.credits),
                    u64::from(seat.stake),
                    [seat.bronze, seat.silver, seat.gold].map(u64::from),
                    seat.closed,
                    seat.absent,
                )
            })
            .collect();
        assert_eq!(panel_seats(&panel), from_view, "{table}: the panel's seats are the view's: {panel}");
        lines_and_views.push((table, panel, view));
        agent.stop().await;
    }
    let [(_, c1, _), (_, g1, _), (_, r1, r1_view)] = &lines_and_views[..] else { unreachable!("three tables") };
    let seat_of = |panel: &Value, number: u64| seat(panel, number).clone();
    let two = seat_of(c1, 2);
    assert_eq!((two["light"].as_str(), two["stake"].as_u64(), two["credits"].as_u64()), (Some("on"), Some(5), Some(15)), "{c1}");
    let three = seat_of(g1, 3);
    assert_eq!((three["light"].as_str(), three["closed"].as_bool()), (Some("off"), Some(true)), "{g1}");
    assert_eq!(seat_of(g1, 1)["light"], "blue", "the other seats play on: {g1}");
    let one = seat_of(r1, 1);
    assert_eq!((one["absent"].as_bool(), one["silver"].as_u64()), (Some(true), Some(2)), "{r1}");
    assert_eq!(one["light"], "off", "his grillos are kept, not played: his lamp is dark: {r1}");
    assert_eq!(r1_view.seats[0].light, pb::Light::On as i32, "the view keeps his grillos recorded (11.11.5)");
    server.stop().await;
}
