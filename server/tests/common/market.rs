//! The market's example configurations (docs/readings.md, "Levels"): the rulebooks
//! `config/iplyc.toml` and `config/mercado.toml` with one of the market's example layouts and
//! the example keys.

use pozo_server::config::{Config, KEYS_EMBEDDED};

/// `layout` (name, text) with the IPLyC and market rulebooks and the example keys.
fn with_market_rulebooks(layout: (&str, &str)) -> Config {
    with_market_rulebook(layout, MERCADO)
}

/// The market's rulebook as `config/mercado.toml` has it.
pub const MERCADO: &str = include_str!("../../../config/mercado.toml");

/// [`mercado`] with the market's rulebook text `mercado` (the example's, edited by a test).
#[allow(dead_code)] // Not every test binary edits the rulebook.
pub fn mercado_edited(mercado: &str) -> Config {
    with_market_rulebook(
        ("config/examples/mercado-casino.toml", include_str!("../../../config/examples/mercado-casino.toml")),
        mercado,
    )
}

fn with_market_rulebook(layout: (&str, &str), mercado: &str) -> Config {
    let texts = [layout, ("config/iplyc.toml", include_str!("../../../config/iplyc.toml")), ("config/mercado.toml", mercado)];
    let texts = texts.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
    Config::from_texts(texts).and_then(|config| config.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)).expect("the market's example")
}

/// Three Card Poker at CP1–CP4, the four-level Black Jack link at B1–B4 (`config/examples/mercado-casino.toml`).
pub fn mercado() -> Config {
    with_market_rulebooks(("config/examples/mercado-casino.toml", include_str!("../../../config/examples/mercado-casino.toml")))
}

/// The cross-game link with banked levels: roulettes at F1, Black Jack at F2, Three Card Poker at
/// F3, all feeding `mercado-gran-sala` (`config/examples/mercado-enlace.toml`).
pub fn enlace() -> Config {
    with_market_rulebooks(("config/examples/mercado-enlace.toml", include_str!("../../../config/examples/mercado-enlace.toml")))
}

/// [`enlace`] with the market's rulebook text `mercado` (the example's, edited by a test).
#[allow(dead_code)] // Not every test binary edits the rulebook.
pub fn enlace_edited(mercado: &str) -> Config {
    with_market_rulebook(
        ("config/examples/mercado-enlace.toml", include_str!("../../../config/examples/mercado-enlace.toml")),
        mercado,
    )
}

/// The market's rulebook with the spades Mini Royal's envy bonus across the link, raised to
/// 150.000,00 (over the Three Card Poker file's Venta-Pagos threshold, so each award is an order).
#[allow(dead_code)] // Not every test binary plays the link's envy.
pub fn mercado_envy_across_the_link() -> String {
    let from = "amount = \"50000.00\", scope = \"table\", paid_by = \"house\" }";
    assert_eq!(MERCADO.matches(from).count(), 1, "the example's spades Mini Royal has an envy bonus of the table's scope");
    MERCADO.replacen(from, "amount = \"150000.00\", scope = \"link\", paid_by = \"house\" }", 1)
}
