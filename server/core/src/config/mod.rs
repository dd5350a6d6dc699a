//! The configuration a server runs: the casino layout (flores, tables, the pool
//! each table feeds) and the rulebooks, validated together at start-up; and the
//! keys, read from their own file and checked against the layout.
//!
//! The texts themselves are kept: the journal's first entry records them, so the
//! journal always says which rules its pools were kept under, `verify` needs no
//! other file, and a server restarted with different settings refuses to start
//! ("settings do not change while a pool is live", docs/operations.md §8). The keys are
//! neither hashed nor journaled: a key is rotated by a restart.

//!
//! # Layout
//! - `error`: [`ConfigError`], naming the file and the field.
//! - `layout`: the layout as written (flores, salons, tables) and its limits.
//! - `keys`: the keys file, roles, the journal key, and their checks.
//! - `validate`: the layout checked against the rulebooks; the salons resolved.
//! - `validated`: [`Config`], all of it read together.
//! - `change`: a configuration changed on a live journal, and what changed, in plain words.
//! - `edit`: the edits a supervisor asks for, written into the files in place.
//!
//! This file only declares the modules and re-exports what the rest of the core and the
//! server use.

mod change;
mod edit;
mod error;
mod keys;
mod layout;
mod validate;
mod validated;

pub use change::{CHANGED_FILES_MAX, Difference, Subject, money_level};
pub use edit::{EDITS_MAX, Edit, POOL_SETTINGS, PRIZE_SETTINGS};
pub use error::ConfigError;
pub use keys::{
    ARGON2ID, JOURNAL_KEY_RECORD, JournalKey, KEYS_EMBEDDED, Key, KeyConfig, KeyRecord, KeysFile, PIN_DIGITS, Role, fingerprint,
};
pub use layout::{CONFIG_FILE_BYTES_MAX, LAYOUT_EMBEDDED, Layout, Salon, SalonConfig, TABLES_MAX, TableConfig};
pub use validated::Config;
pub use validated::stable_name;

#[cfg(test)]
mod tests {
    use super::layout::IMPLICIT_SALON;
    use super::*;
    use pozo_engine::PoolId;
    use pozo_engine::rulebook::EMBEDDED;

    #[test]
    fn the_embedded_layout_is_valid() {
        let config = Config::embedded();
        assert_eq!(config.layout.tables.len(), 17);
        assert_eq!(config.hash.len(), 64);
        assert!(config.keys.values().any(|key| key.role == Role::Office));
    }

    #[test]
    fn a_layout_without_salons_is_one_salon_named_after_the_casino() {
        let config = Config::embedded();
        let [salon] = config.salons() else { panic!("one implicit salon: {:?}", config.salons()) };
        assert_eq!((salon.id.as_str(), salon.name.as_str()), (IMPLICIT_SALON, "Casino de ejemplo"));
        assert_eq!(salon.tables.len(), config.layout.tables.len());
        let every: Vec<PoolId> = config.rulebooks.pools().map(|rules| rules.id.clone()).collect();
        assert_eq!(salon.pools, every, "every pool of the embedded layout has a table");
        assert!(config.layout.tables.iter().all(|table| config.salon_of(table) == IMPLICIT_SALON));
    }

    #[test]
    fn a_table_on_a_pool_that_does_not_link_its_game_is_refused() {
        let (name, text) = LAYOUT_EMBEDDED;
        let text = text.replacen("game = \"ruleta-americana\"", "game = \"blackjack\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused");
        assert!(error.to_string().contains("table[0].game: pool `iplyc-ruleta` links ruleta-americana tables"), "{error}");
    }

    #[test]
    fn an_unknown_game_is_refused_with_its_line_and_the_known_ones() {
        let (name, text) = LAYOUT_EMBEDDED;
        let line = text.lines().position(|line| line.trim() == "game = \"ruleta-americana\"").expect("a roulette table") + 1;
        let text = text.replacen("game = \"ruleta-americana\"", "game = \"baccarat\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused").to_string();
        assert!(error.starts_with(&format!("{name}: not a valid configuration file: line {line}: ")), "{error}");
        assert!(error.contains("unknown game `baccarat` (known: ruleta-americana, blackjack, central-poker,"), "{error}");
    }

    #[test]
    fn an_unknown_time_zone_is_refused() {
        let (name, text) = LAYOUT_EMBEDDED;
        let text = text.replacen("time_zone = \"America/Argentina/Buenos_Aires\"", "time_zone = \"America/Atlantis\"", 1);
        let mut texts = vec![(name.to_owned(), text)];
        texts.extend(EMBEDDED.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())));
        let error = Config::from_texts(texts).expect_err("refused");
        assert_eq!(
            error.to_string(),
            "config/casino.toml: time_zone: unknown time zone `America/Atlantis` \
             (an IANA name, such as `America/Argentina/Buenos_Aires` or `Europe/Madrid`)"
        );
    }

    /// A page password must be an Argon2id hash in PHC form: anything else is refused at load,
    /// naming the key's field.
    #[test]
    fn a_page_password_that_is_not_an_argon2id_phc_hash_is_refused() {
        let good = "$argon2id$v=19$m=19456,t=2,p=1$+U6Vp1t+lj/XZNerJfYPcg$NXV+e9nCapnIeHkxaT+DgCFRdJpN/WgdoVd8mtQdoDE";
        let (name, text) = KEYS_EMBEDDED;
        assert!(text.contains(good));
        let refusal = |password: &str| {
            let text = text.replace(good, password);
            let refused = Config::embedded().with_keys(name, &text).expect_err("refused");
            refused.to_string()
        };
        let not_phc = refusal("ana-ejemplo");
        assert!(not_phc.contains("].password") && not_phc.contains("not a PHC password hash ("), "{not_phc}");
        let argon2i = refusal("$argon2i$v=19$m=19456,t=2,p=1$+U6Vp1t+lj/XZNerJfYPcg$NXV+e9nCapnIeHkxaT+DgCFRdJpN/WgdoVd8mtQdoDE");
        assert!(argon2i.contains("`argon2i` hash; Pozo takes Argon2id"), "{argon2i}");
        assert!(Config::embedded().with_keys(name, text).is_ok());
    }

    #[test]
    fn no_secret_appears_in_the_debug_of_the_configuration() {
        let (name, text) = KEYS_EMBEDDED;
        let config = Config::embedded();
        let printed = format!("{config:?}");
        let parsed: KeysFile = toml::from_str(text).expect("the embedded keys");
        assert!(!parsed.keys.is_empty(), "{name}");
        for key in &parsed.keys {
            assert!(printed.contains(&key.id), "the key ids are shown");
            let bytes = hex::decode(&key.secret).expect("hex");
            assert!(!printed.contains(&key.secret), "the secret of `{}` is printed", key.id);
            assert!(!printed.contains(&format!("{bytes:?}")), "the secret bytes of `{}` are printed", key.id);
            assert!(!format!("{key:?}").contains(&key.secret));
        }
    }
}
