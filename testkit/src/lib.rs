//! The Pozo test kit: what the integration tests of every crate share.
//!
//! # Layout
//! - [`process`]: `pozo-server serve` as a child process (spawned, signalled, killed with
//!   SIGKILL), for the tests that need the real binary: the server's crash and damage
//!   tests, the browser suite, and the agent tests here.
//! - [`postgres`]: a throw-away PostgreSQL cluster for the PostgreSQL suite.
//! - `src/bin/`: the controller's and the agent's command lines built into this package,
//!   so that its own tests (`tests/agents.rs`, `tests/agent_tls.rs`: the agent against a
//!   controller it can kill) reach both binaries through `CARGO_BIN_EXE_*`.

pub mod postgres;
pub mod process;

/// The embedded IPLyC rulebook, whole, with a second Black Jack pool `iplyc-blackjack-vip`
/// ("… (VIP)", its minimum `minimum`) after the first: what a change adding a pool proposes
/// (docs/operations.md §8). Returns the file's name and its text.
pub fn rulebook_with_a_vip_blackjack_pool(minimum: &str) -> (String, String) {
    let (name, text) = pozo_server::config::Config::embedded()
        .texts
        .iter()
        .find(|(name, _)| name.ends_with("iplyc.toml"))
        .cloned()
        .expect("the IPLyC rulebook");
    let from = text.find("[[pool]]\nid = \"iplyc-blackjack\"").expect("its pool");
    let to = text.find("[[pool]]\nid = \"iplyc-central-poker\"").expect("the next");
    let block = text[from..to]
        .replace("id = \"iplyc-blackjack\"", "id = \"iplyc-blackjack-vip\"")
        .replace("name = \"Black Jack Carta Descubierta Poceado\"", "name = \"Black Jack Carta Descubierta Poceado (VIP)\"")
        .replace("minimum = \"5000.00\"", &format!("minimum = \"{minimum}\""));
    assert!(block.contains("iplyc-blackjack-vip") && block.contains(minimum), "{block}");
    let text = format!("{text}\n{block}");
    (name, text)
}
