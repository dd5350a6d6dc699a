//! The casino a simulated night plays in: a generated layout of any number of
//! tables with their keys, or the layout and keys a running server was started
//! with. The controller embedded in the process is `pozo_server::Embedded`.

use std::path::Path;

use anyhow::Context;
use pozo_engine::rulebook::EMBEDDED;
use pozo_server::config::{Config, KEYS_EMBEDDED, Role};
use sha2::{Digest, Sha256};

/// The games a generated casino deals, in the order tables are given out:
/// (game, pool, table id prefix, seats).
pub const GAMES: [(&str, &str, &str, u32); 8] = [
    ("ruleta-americana", "iplyc-ruleta", "R", 8),
    ("blackjack", "iplyc-blackjack", "B", 7),
    ("central-poker", "iplyc-central-poker", "CP", 5),
    ("caribbean-poker", "aj-poker", "C", 7),
    ("go-poker", "aj-poker", "G", 7),
    ("draw-poker", "aj-poker", "D", 5),
    ("poker-sin-descarte", "and-carrusel", "P", 7),
    ("veintiuno", "and-bolsa", "V", 7),
];

/// The games of a generated casino on the market's rulebooks ([`Rulebooks::Market`]): as the
/// example layout `config/examples/mercado-casino.toml` deals them, the IPLyC roulette, Black Jack
/// on the four-level link and Three Card Poker (seed 003, six seats) on its progressive; then, as
/// `config/examples/mercado-enlace.toml` deals them, the three games of the cross-game link
/// `mercado-gran-sala` (LR roulette with its grillo series, LB Black Jack, LCP Three Card Poker),
/// each its own bet and paytable into one Grand, with a Major and a Mini per flor. Four tables to
/// a flor, so the link's tables fall in several flores (12 tables: LR1 in F1, LB1 and LCP1 in F2,
/// LR2, LB2 and LCP2 in F3) and each flor's Major and Mini are their own meters.
pub const MARKET_GAMES: [(&str, &str, &str, u32); 6] = [
    ("ruleta-americana", "iplyc-ruleta", "R", 8),
    ("blackjack", "mercado-blackjack", "B", 7),
    ("three-card-poker", "mercado-tcp", "CP", 6),
    ("ruleta-americana", LINK_POOL, "LR", 8),
    ("blackjack", LINK_POOL, "LB", 7),
    ("three-card-poker", LINK_POOL, "LCP", 6),
];

/// The market's cross-game link with banked levels (config/mercado.toml).
pub const LINK_POOL: &str = "mercado-gran-sala";

/// The tables the seeded simulation's market floor adds to the example layout
/// (`config/examples/mercado-casino.toml`) for the cross-game link: (id, flor, game, seats).
/// Two flores beyond the example's three, F4 with a roulette and a Black Jack table, F5 with a
/// Three Card Poker table: each flor's Major and Mini fed by its own tables.
pub const MARKET_FLOOR_LINK: [(&str, &str, &str, u32); 3] =
    [("LR1", "F4", "ruleta-americana", 8), ("LB1", "F4", "blackjack", 7), ("LCP1", "F5", "three-card-poker", 6)];

/// The market's example rulebook (docs/readings.md, "Levels"): not embedded in the controller,
/// named with `--rulebook config/mercado.toml`; the simulator carries it to play it.
pub const MARKET_RULEBOOK: (&str, &str) = ("config/mercado.toml", include_str!("../../config/mercado.toml"));

/// The market's example layout: R1–R4 IPLyC roulette, B1–B4 the link, CP1–CP4 Three Card Poker.
pub const MARKET_LAYOUT: (&str, &str) =
    ("config/examples/mercado-casino.toml", include_str!("../../config/examples/mercado-casino.toml"));

/// Which rulebooks a simulation plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rulebooks {
    /// The regulations' pools, the embedded rulebooks (IPLyC, AJ, Andalucía): every pool of one level.
    #[default]
    Regulations,
    /// The market's progressives (`config/mercado.toml`) beside the IPLyC roulette, as
    /// `config/examples/mercado-casino.toml` serves them: pools with levels, the house's level
    /// and the envy bonus.
    Market,
}

impl Rulebooks {
    pub const ALL: [Rulebooks; 2] = [Rulebooks::Regulations, Rulebooks::Market];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Rulebooks::Regulations => "regulations",
            Rulebooks::Market => "market",
        }
    }

    pub fn parse(name: &str) -> Option<Rulebooks> {
        Rulebooks::ALL.into_iter().find(|rulebooks| rulebooks.name() == name)
    }

    /// The games a generated casino deals in turn: (game, pool, table id prefix, seats).
    pub fn games(self) -> &'static [(&'static str, &'static str, &'static str, u32)] {
        match self {
            Rulebooks::Regulations => &GAMES,
            Rulebooks::Market => &MARKET_GAMES,
        }
    }

    /// The rulebooks' texts: the embedded ones, or the IPLyC's and the market's (as
    /// `serve --rulebook config/iplyc.toml --rulebook config/mercado.toml`).
    pub fn texts(self) -> Vec<(String, String)> {
        let texts: Vec<(&str, &str)> = match self {
            Rulebooks::Regulations => EMBEDDED.to_vec(),
            Rulebooks::Market => {
                EMBEDDED.iter().copied().filter(|(name, _)| *name == "config/iplyc.toml").chain([MARKET_RULEBOOK]).collect()
            }
        };
        texts.into_iter().map(|(name, text)| (name.to_owned(), text.to_owned())).collect()
    }
}

/// The market's example casino as `pozo-server serve --config config/examples/mercado-casino.toml
/// --rulebook config/iplyc.toml --rulebook config/mercado.toml` serves it, with the example keys.
pub fn market_example() -> anyhow::Result<Config> {
    let mut texts = vec![(MARKET_LAYOUT.0.to_owned(), MARKET_LAYOUT.1.to_owned())];
    texts.extend(Rulebooks::Market.texts());
    Ok(Config::from_texts(texts)?.with_keys(KEYS_EMBEDDED.0, KEYS_EMBEDDED.1)?)
}

/// The seeded simulation's market floor: the market's example casino ([`market_example`]) and
/// the link's tables of [`MARKET_FLOOR_LINK`], with the example keys and a key for each of those
/// (derived like a generated casino's: they protect nothing).
pub fn market_floor() -> anyhow::Result<Config> {
    market_floor_of(MARKET_RULEBOOK.1)
}

/// The ceiling of the link's mystery level in config/mercado.toml (`must_hit_by`).
pub const MYSTERY_CEILING: &str = "60000.00";

/// [`market_floor`] with the link's mystery level "Misterioso" (reset 20.000,00) made to hit
/// below `ceiling` (`must_hit_by`, docs/readings.md, "The mystery level"): a narrow ceiling
/// hits every few rounds, so that draws, reveals and hot seats come in every seed.
pub fn market_floor_with_ceiling(ceiling: &str) -> anyhow::Result<Config> {
    let from = format!("must_hit_by = \"{MYSTERY_CEILING}\"");
    anyhow::ensure!(MARKET_RULEBOOK.1.contains(&from), "config/mercado.toml no longer has {from}");
    market_floor_of(&MARKET_RULEBOOK.1.replacen(&from, &format!("must_hit_by = \"{ceiling}\""), 1))
}

fn market_floor_of(rulebook: &str) -> anyhow::Result<Config> {
    let mut layout = MARKET_LAYOUT.1.to_owned();
    let mut keys = KEYS_EMBEDDED.1.to_owned();
    for (id, flor, game, seats) in MARKET_FLOOR_LINK {
        layout.push_str(&format!(
            "\n[[table]]\nid = \"{id}\"\nflor = \"{flor}\"\npool = \"{LINK_POOL}\"\ngame = \"{game}\"\nseats = {seats}\n"
        ));
        keys.push_str(&format!(
            "\n[[key]]\nid = \"mesa-{id}\"\nrole = \"table\"\ntable = \"{id}\"\nsecret = \"{}\"\n",
            secret(0, id)
        ));
    }
    let mut texts = vec![("pozo-sim market floor.toml".to_owned(), layout)];
    texts.extend(Rulebooks::Market.texts().into_iter().map(|(name, text)| {
        let text = if name == MARKET_RULEBOOK.0 { rulebook.to_owned() } else { text };
        (name, text)
    }));
    Ok(Config::from_texts(texts)?.with_keys("pozo-sim market floor keys.toml", &keys)?)
}

/// The Venta-Pagos office key of a generated casino.
pub const OFFICE_KEY_ID: &str = "venta-pagos-sim";

/// The supervisor key of a generated casino: the audit reads reports and the journal with it.
pub const SUPERVISOR_KEY_ID: &str = "supervisor-sim";

/// The most tables a generated casino has (the server's own bound).
pub const TABLES_MAX: usize = pozo_server::config::TABLES_MAX;

/// The layout and keys texts of a generated casino of `tables` tables: the games
/// of [`GAMES`] in turn, four tables to a flor, keys derived from `seed` (they
/// protect nothing: the embedded server listens on loopback only).
pub fn generated_texts(tables: usize, seed: u64) -> (String, String) {
    generated_texts_of(Rulebooks::Regulations, tables, seed)
}

/// [`generated_texts`] for the games of `rulebooks` ([`Rulebooks::games`]).
pub fn generated_texts_of(rulebooks: Rulebooks, tables: usize, seed: u64) -> (String, String) {
    let games = rulebooks.games();
    let mut layout = String::from(
        "# A casino generated by pozo-sim for a simulated night.\n\
         casino = \"Noche simulada\"\n\
         time_zone = \"America/Argentina/Buenos_Aires\"\n\
         jornada_starts_hour = 6\n\
",
    );
    let mut keys = String::from("# Keys generated by pozo-sim from the seed: loopback only, they protect nothing.\n");
    let mut counts = vec![0usize; games.len()];
    for index in 0..tables {
        let kind = index % games.len();
        counts[kind] += 1;
        let (game, pool, prefix, seats) = games[kind];
        let id = format!("{prefix}{}", counts[kind]);
        layout.push_str(&format!(
            "\n[[table]]\nid = \"{id}\"\nflor = \"F{}\"\npool = \"{pool}\"\ngame = \"{game}\"\nseats = {seats}\n",
            index / 4 + 1
        ));
        keys.push_str(&format!(
            "\n[[key]]\nid = \"mesa-{id}\"\nrole = \"table\"\ntable = \"{id}\"\nsecret = \"{}\"\n",
            secret(seed, &id)
        ));
    }
    keys.push_str(&format!(
        "\n[[key]]\nid = \"{OFFICE_KEY_ID}\"\nrole = \"office\"\nname = \"Cajero simulado\"\nsecret = \"{}\"\n",
        secret(seed, OFFICE_KEY_ID)
    ));
    keys.push_str(&format!(
        "\n[[key]]\nid = \"{SUPERVISOR_KEY_ID}\"\nrole = \"supervisor\"\nname = \"Auditor simulado\"\nsecret = \"{}\"\n",
        secret(seed, SUPERVISOR_KEY_ID)
    ));
    keys.push_str(&format!("\n[[key]]\nid = \"journal\"\nrole = \"journal\"\nsecret = \"{}\"\n", secret(seed, "journal")));
    (layout, keys)
}

fn secret(seed: u64, id: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"pozo-sim key");
    hasher.update(seed.to_be_bytes());
    hasher.update(id.as_bytes());
    hex::encode(hasher.finalize())
}

/// A generated casino of `tables` tables with the embedded rulebooks.
pub fn generated(tables: usize, seed: u64) -> anyhow::Result<Config> {
    generated_of(Rulebooks::Regulations, tables, seed)
}

/// A generated casino of `tables` tables playing `rulebooks`.
pub fn generated_of(rulebooks: Rulebooks, tables: usize, seed: u64) -> anyhow::Result<Config> {
    anyhow::ensure!((1..=TABLES_MAX).contains(&tables), "--tables: 1 to {TABLES_MAX}");
    let (layout, keys) = generated_texts_of(rulebooks, tables, seed);
    let mut texts = vec![("pozo-sim casino.toml".to_owned(), layout)];
    texts.extend(rulebooks.texts());
    Ok(Config::from_texts(texts)?.with_keys("pozo-sim keys.toml", &keys)?)
}

/// The layout and keys of a running server (the embedded example ones where none is given).
pub fn from_files(layout: Option<&Path>, keys: Option<&Path>) -> anyhow::Result<Config> {
    pozo_server::config::load(layout, &[], keys)
}

/// The key table `table` signs with.
pub fn table_key(config: &Config, table: &str) -> anyhow::Result<table_agent::key::Key> {
    let key = config
        .keys
        .values()
        .find(|key| key.role == Role::Table && key.table.as_deref() == Some(table))
        .with_context(|| format!("no key for table {table}"))?;
    Ok(table_agent::key::Key { id: key.id.clone(), secret: key.secret.clone() })
}

/// A Venta-Pagos operator's key (the first in the keys).
pub fn office_key(config: &Config) -> anyhow::Result<(String, Vec<u8>)> {
    let key = config.keys.values().find(|key| key.role == Role::Office).context("no office key in the keys")?;
    Ok((key.id.clone(), key.secret.clone()))
}

/// A supervisor's key (the first in the keys): what the audit reads reports and the journal with.
pub fn supervisor_key(config: &Config) -> anyhow::Result<(String, Vec<u8>)> {
    let key = config.keys.values().find(|key| key.role == Role::Supervisor).context("no supervisor key in the keys")?;
    Ok((key.id.clone(), key.secret.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_casino_is_a_valid_configuration_with_every_game() {
        let config = generated(64, 7).expect("valid");
        assert_eq!(config.layout.tables.len(), 64);
        for (game, _, _, _) in GAMES {
            assert_eq!(config.layout.tables.iter().filter(|table| table.game.name() == game).count(), 8, "{game}");
        }
        assert_eq!(config.layout.tables[8].id, "R2");
        assert!(table_key(&config, "V8").is_ok());
        assert!(office_key(&config).is_ok());
        assert!(supervisor_key(&config).is_ok());
        assert_eq!(generated(64, 7).expect("valid").hash, config.hash, "the same casino from the same seed");
        assert!(generated(0, 7).is_err());
    }

    #[test]
    fn a_generated_market_casino_plays_the_link_and_three_card_poker() {
        let config = generated_of(Rulebooks::Market, 12, 7).expect("valid");
        let pools: Vec<&str> = config.layout.tables.iter().map(|table| table.pool.as_str()).collect();
        assert_eq!(&pools[..3], ["iplyc-ruleta", "mercado-blackjack", "mercado-tcp"]);
        assert_eq!(config.layout.tables.iter().filter(|table| table.game.name() == "three-card-poker").count(), 4);
        assert_eq!(config.rulebooks.pool("mercado-blackjack").expect("the link").level_count(), 5, "four and the house's");
        // The cross-game link: each of its games at two tables, in three flores.
        let link: Vec<(&str, &str)> = config
            .layout
            .tables
            .iter()
            .filter(|table| table.pool.as_str() == LINK_POOL)
            .map(|table| (table.id.as_str(), table.flor.as_str()))
            .collect();
        assert_eq!(link, [("LR1", "F1"), ("LB1", "F2"), ("LCP1", "F2"), ("LR2", "F3"), ("LB2", "F3"), ("LCP2", "F3")]);
        let floor = market_floor().expect("the seeded simulation's market floor");
        assert_eq!(floor.layout.tables.len(), 15);
        assert!(table_key(&floor, "LCP1").is_ok() && table_key(&floor, "CP4").is_ok());
        assert!(config.rulebooks.pool("aj-poker").is_none(), "only the IPLyC's and the market's rulebooks");
        assert_ne!(config.hash, generated(12, 7).expect("valid").hash);
        let example = market_example().expect("the market's example");
        assert_eq!(example.layout.tables.len(), 12);
        assert_eq!(Rulebooks::parse("market"), Some(Rulebooks::Market));
        assert_eq!(Rulebooks::parse("mercado"), None);
    }
}
