//! `pozo-server status` (the binary) against the real controller on 127.0.0.1:0 with its pages,
//! and `GET /status` it reads (docs/operations.md §2, "Is it up?").

mod common;

use std::process::{Command, Output};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// Runs `pozo-server status --pages URL EXTRA…` off the runtime's threads.
async fn status(pages: &str, extra: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    command.args(["status", "--pages", pages]).args(extra).env("NO_COLOR", "1");
    tokio::task::spawn_blocking(move || command.output().expect("pozo-server status runs")).await.expect("joined")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_reports_the_journal_pools_tables_agents_and_pending_payouts() {
    let server = TestServer::with_pages().await;
    let pages = server.pages_url();
    let mut client = server.client().await;
    let order = client.open_b3_with_a_pending_order(2).await;

    // --json: the same document `/status` serves, read back into the status type.
    let output = status(&pages, &["--json"]).await;
    assert_eq!(output.status.code(), Some(0), "serving: exit 0; stderr: {}", String::from_utf8_lossy(&output.stderr));
    let json: pozo_server::read::status::Status = serde_json::from_slice(&output.stdout).expect("the status as JSON");
    assert!(json.serving);
    assert_eq!(json.listen, server.address.to_string(), "the gRPC address, not the pages'");
    let journal = client.journal().await;
    assert_eq!(json.journal.entries, journal.entries);
    assert_eq!(json.journal.tip, journal.tip_hash);
    assert_eq!(json.journal.journal_id, client.journal_id);
    let pool = client.pool("iplyc-blackjack").await;
    let listed = json.pools.iter().find(|listed| listed.pool == "iplyc-blackjack").expect("the pool is listed");
    let json_text = String::from_utf8_lossy(&output.stdout);
    let balance = &pool.balance.as_ref().expect("a balance").value;
    let displayed = &pool.displayed.as_ref().expect("an amount").value;
    assert_eq!(listed.balance.decimal(), balance.parse().expect("a decimal"));
    assert_eq!(listed.displayed.decimal(), displayed.parse().expect("a decimal"));
    assert!(json_text.contains(&format!("\"balance\":\"{balance}\"")), "written as the gRPC services write it: {json_text}");
    let b3 = json.tables.iter().find(|table| table.table == "B3").expect("B3 is listed");
    assert_eq!(b3.state, "apuestas", "after FINALIZAR JUEGO the table takes bets again");
    assert!(!b3.agent_connected && b3.suspended, "open with no agent watching: suspended");
    assert!(json.tables.iter().filter(|table| table.table != "B3").all(|table| table.state == "cerrada"));
    assert_eq!(json.pending_payouts.len(), 1);
    assert_eq!(json.pending_payouts[0].order_id, order);
    assert_eq!(json.pending_payouts[0].table, "B3");
    // The jornada's books tie to zero on every pool (Reports/Reconciliation).
    assert!(json.books.tied && json.books.off.is_empty(), "{:?}", json.books);
    assert!(!json.books.jornada.is_empty());

    // The text for a person: Spanish, amounts the Argentine way, the order by number.
    let output = status(&pages, &[]).await;
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(text.contains("EN SERVICIO"), "{text}");
    assert!(text.contains(&format!("{} entradas", journal.entries)), "{text}");
    assert!(text.contains(&pozo_engine::format_ars(listed.displayed)), "{text}");
    assert!(text.contains("Pagos pendientes (PENDIENTE DE PAGO): 1") && text.contains(&order), "{text}");
    assert!(text.contains("B3") && text.contains("SUSPENDIDA"), "{text}");
    assert!(text.contains(&format!("Libros de la jornada {}: cuadran en cero en todos los pozos", json.books.jornada)), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_without_a_controller_says_so_and_exits_3() {
    // A port nobody listens on: bound, then closed.
    let address = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("bound");
    let output = status(&format!("http://{address}"), &[]).await;
    assert_eq!(output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no answer from") && stderr.contains(&address.to_string()), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing on stdout when nothing answered");
}
