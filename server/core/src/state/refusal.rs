//! Why a command is refused: one kind per gRPC status, and the message that names the
//! field and the rule.

use pozo_engine::EngineError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// A field breaks a rule whatever the state (credits not 1/5/10/20, unknown code).
    InvalidArgument,
    /// Not allowed in the table's current state (press after INICIAR, a gap in sequence).
    FailedPrecondition,
    /// No such table or order.
    NotFound,
    /// A sequence already used by another command, or an older one.
    AlreadyExists,
    /// The key's holder may not do this (a table key proposing a change, a person approving
    /// their own proposal: docs/operations.md §8).
    PermissionDenied,
}

impl RefusalKind {
    /// Every kind.
    pub const ALL: [RefusalKind; 5] = [
        RefusalKind::InvalidArgument,
        RefusalKind::FailedPrecondition,
        RefusalKind::NotFound,
        RefusalKind::AlreadyExists,
        RefusalKind::PermissionDenied,
    ];

    /// The kind's name, as the metrics label it (`pozo_refusals_total{kind=…}`).
    pub fn name(self) -> &'static str {
        match self {
            RefusalKind::InvalidArgument => "invalid_argument",
            RefusalKind::FailedPrecondition => "failed_precondition",
            RefusalKind::NotFound => "not_found",
            RefusalKind::AlreadyExists => "already_exists",
            RefusalKind::PermissionDenied => "permission_denied",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Refusal {
    pub kind: RefusalKind,
    /// For programs and logs: the field and the rule, in English (`key_id: …`).
    pub message: String,
    /// For people: the same refusal in the regulation's Spanish, where it is written (the
    /// pages show it instead of `message`).
    pub spanish: Option<String>,
}

impl Refusal {
    pub fn new(kind: RefusalKind, message: impl Into<String>) -> Refusal {
        Refusal { kind, message: message.into(), spanish: None }
    }

    /// The same refusal, in the words the pages show.
    #[must_use]
    pub fn castellano(mut self, text: impl Into<String>) -> Refusal {
        self.spanish = Some(text.into());
        self
    }

    /// What a person reads: the Spanish where written, else the message.
    pub fn for_people(&self) -> &str {
        self.spanish.as_deref().unwrap_or(&self.message)
    }
}

pub(in crate::state) fn invalid(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::InvalidArgument, message)
}

pub(in crate::state) fn denied(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::PermissionDenied, message)
}

pub(in crate::state) fn precondition(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::FailedPrecondition, message)
}

pub(in crate::state) fn not_found(message: impl Into<String>) -> Refusal {
    Refusal::new(RefusalKind::NotFound, message)
}

/// The one mapping of the engine's errors: a field that breaks a rule, a pool that is
/// not there, a pool whose record does not allow it now. The Spanish is told by the
/// variant and the field, and cites what the engine's message cites.
pub(in crate::state) fn engine_refusal(error: EngineError) -> Refusal {
    let kind = match &error {
        EngineError::Invalid { .. } => RefusalKind::InvalidArgument,
        EngineError::UnknownPool { .. } => RefusalKind::NotFound,
        EngineError::NotNow { .. } => RefusalKind::FailedPrecondition,
    };
    let spanish = engine_spanish(&error);
    Refusal::new(kind, error.to_string()).castellano(spanish)
}

/// An engine error as the dealer reads it: by its variant and the last part of its field
/// (`winners[1].code` is a code), naming the box the message names and ending with the
/// articles it cites.
fn engine_spanish(error: &EngineError) -> String {
    let (invalid, field, problem) = match error {
        EngineError::UnknownPool { pool, known } => return format!("El pozo {pool} no existe; los pozos son: {known}."),
        EngineError::Invalid { field, problem } => (true, field, problem),
        EngineError::NotNow { field, problem } => (false, field, problem),
    };
    let leaf = field.rsplit('.').next().unwrap_or(field).split('[').next().unwrap_or_default();
    let seat = seat_named(problem);
    let text = match (invalid, leaf, seat) {
        (true, "bet" | "credits", _) => "La apuesta no es una de las que acepta el pozo".to_owned(),
        (true, "seat", Some(seat)) => format!("El box {seat} no es una posición de la mesa"),
        (true, "code", Some(seat)) => match quoted(problem)[..] {
            [marked] => format!("Box {seat}: ya tiene {marked} en esta jugada; una combinación se marca una sola vez"),
            [marked, other, ..] => {
                format!("Box {seat}: ya tiene {marked} en esta jugada; {other} no puede darse en la misma mano")
            }
            [] => format!("Box {seat}: esa combinación no puede marcarse en esta mano"),
        },
        (true, "code", None) => match quoted(problem)[..] {
            [code, pool, ..] => format!("El premio {code} no está en la tabla de premios del pozo {pool}"),
            _ => "Ese premio no está en la tabla de premios del pozo".to_owned(),
        },
        (true, "high", _) => {
            "Hay varios premios de la misma combinación: cada uno necesita su carta más alta, y se paga primero la más alta"
                .to_owned()
        }
        (true, "winners", _) => "La cantidad de premios de la jugada no es válida".to_owned(),
        (true, "contribution", _) => "El aporte no coincide con el que esa apuesta registró en el pozo".to_owned(),
        (true, "award", Some(seat)) => format!("Box {seat}: no tiene ese premio en esta jugada"),
        (true, "amount", _) => "El monto no es válido".to_owned(),
        (true, "pool", _) => "La jugada se liquidó en otro pozo".to_owned(),
        (true, "rulebooks", _) => {
            "Un pozo en juego falta en los reglamentos nuevos: un pozo se retira, nunca se quita".to_owned()
        }
        (true, ..) => "El pozo no acepta ese dato".to_owned(),
        (false, "bet", _) => "Se revertiría más de lo que se apostó en el pozo".to_owned(),
        (false, "award", Some(seat)) => format!("Box {seat}: ese premio ya fue rechazado"),
        (false, "award", None) => {
            "Un premio de esa jugada ya no está en la tabla de premios del pozo: sus reglas cambiaron".to_owned()
        }
        (false, "amount", _) => "El pozo no permite mover ese monto ahora".to_owned(),
        (false, "pool", _) => match quoted(problem).first() {
            Some(pool) => format!("El pozo {pool} está retirado: su dinero pasó a otro pozo y ya no se mueve dinero en él"),
            None => "El pozo está retirado: su dinero pasó a otro pozo y ya no se mueve dinero en él".to_owned(),
        },
        (false, ..) => "El pozo no permite esta operación ahora".to_owned(),
    };
    with_citation(text, problem)
}

/// `text` closed with the articles `english` cites, in parentheses, and a full stop.
pub(in crate::state) fn with_citation(text: String, english: &str) -> String {
    let cited = cited(english);
    if cited.is_empty() { format!("{text}.") } else { format!("{text} ({}).", cited.join("; ")) }
}

/// The articles an English message cites: each parenthesized group, up to a `:` (what
/// follows lists codes), less a group that opens with a lowercase word (`(difference …)`)
/// and the English words after a leading article number (`(4.3.2 reverses …)`).
pub(in crate::state) fn cited(english: &str) -> Vec<String> {
    let mut groups = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (index, character) in english.char_indices() {
        match character {
            '(' => {
                if depth == 0 {
                    start = index + 1;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    groups.push(&english[start..index]);
                }
            }
            _ => {}
        }
    }
    groups
        .into_iter()
        .filter_map(|group| {
            let head = group.split(':').next().unwrap_or_default().trim();
            let english_word = |word: &&str| word.len() > 1 && word.chars().all(|character| character.is_ascii_lowercase());
            let first = head.split_whitespace().next()?;
            if english_word(&first) {
                return None;
            }
            if !first.starts_with(|character: char| character.is_ascii_digit()) {
                return Some(head.to_owned());
            }
            let words: Vec<&str> = head.split_whitespace().take_while(|word| !english_word(word)).collect();
            Some(words.join(" "))
        })
        .collect()
}

/// The box an engine message names (`seat 3 …`).
fn seat_named(problem: &str) -> Option<&str> {
    let after = problem.split("seat ").nth(1)?;
    let digits = after.split(|character: char| !character.is_ascii_digit()).next()?;
    (!digits.is_empty()).then_some(digits)
}

/// The names an engine message quotes, in order (`pool `x` is retired`).
fn quoted(problem: &str) -> Vec<&str> {
    problem.split('`').skip(1).step_by(2).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the one mapping of the engine's errors to refusal kinds (and so to gRPC codes):
    // a bad field, an unknown pool and a state that does not allow it are told apart.
    #[test]
    fn engine_errors_map_to_their_own_refusal_kinds() {
        let cases = [
            (EngineError::invalid("bet", "must be greater than zero, found 0"), RefusalKind::InvalidArgument),
            (EngineError::UnknownPool { pool: "x".into(), known: "y".into() }, RefusalKind::NotFound),
            (EngineError::not_now("award", "seat 2 `P` was already rejected"), RefusalKind::FailedPrecondition),
        ];
        for (error, kind) in cases {
            let text = error.to_string();
            let refusal = engine_refusal(error);
            assert_eq!(refusal.kind, kind, "{text}");
            assert_eq!(refusal.message, text, "the message names the field and the rule");
        }
    }

    // Proves every engine error reads in Spanish for the dealer, naming the box, citing what
    // the English cites (a rulebook's article as it is written too) and nothing in English.
    #[test]
    fn engine_errors_read_in_spanish_with_the_articles_they_cite() {
        let cases = [
            (
                EngineError::invalid("bet", "50.00 is not the stipulated side bet of pool `b`: only 10.00 is played (11.4.1)"),
                "(11.4.1).",
            ),
            (EngineError::invalid("contribution", "does not match (4.3.2 reverses the recorded contribution)"), "(4.3.2)."),
            (
                EngineError::invalid(
                    "winners[1].code",
                    "seat 2 already has `A` in this round; `B` cannot (11, 12: exclusive codes)",
                ),
                "ya tiene A en esta jugada; B no puede darse en la misma mano (11, 12).",
            ),
            (
                EngineError::invalid(
                    "winners[0].bet",
                    "20.00 is not the stipulated side bet of pool `v`: only 10.00 is played (Veintiuno e))",
                ),
                "(Veintiuno e).",
            ),
            (EngineError::not_now("amount", "more would be given back than this pool ever awarded (3.7.3)"), "(3.7.3)."),
            (EngineError::not_now("award", "seat 2 `P` was already rejected"), "Box 2: ese premio ya fue rechazado."),
            (
                EngineError::not_now("pool", "pool `x` is retired: its money went to another pool and no money moves in it"),
                "pozo x está retirado",
            ),
            (EngineError::UnknownPool { pool: "x".into(), known: "y, z".into() }, "El pozo x no existe; los pozos son: y, z."),
            (
                EngineError::invalid("winners[0].code", "`FOO` is not in the paytable of pool `p` (3, 4: A, B)"),
                "El premio FOO no está en la tabla de premios del pozo p (3, 4).",
            ),
        ];
        for (error, expected) in cases {
            let refusal = engine_refusal(error);
            let spanish = refusal.spanish.as_deref().unwrap_or_else(|| panic!("no Spanish for {}", refusal.message));
            assert!(spanish.contains(expected), "{spanish} (from {})", refusal.message);
            assert!(!spanish.contains('`') && spanish.ends_with('.'), "{spanish}");
        }
    }

    // Proves the refusals a dealer meets at a table read in Spanish: real commands driven
    // into their refusals each carry a Spanish text that cites the article(s) its English
    // cites, names no field and quotes nothing; a refusal left in English fails here.
    #[test]
    fn table_refusals_carry_spanish_citing_the_same_articles() {
        use std::sync::Arc;

        use crate::config::Config;
        use crate::state::{Command, Context, State, TableOp};

        let config = Arc::new(Config::embedded());
        let mut state = State::new(Arc::clone(&config));
        state.apply(&Command::genesis(&config, "", None, None), Context { sequence: 1, time_ms: 0 }).expect("genesis");
        let mut next = 1u64;
        let mut apply = |state: &mut State, table: &str, sequence: Option<u64>, op: TableOp| {
            let command = Command::dealer(table, sequence.unwrap_or(next), format!("{table}-{next}-{op:?}"), op);
            let journal = state.journal_sequence() + 1;
            let result = state.apply(&command, Context { sequence: journal, time_ms: 1_795_360_000_000 });
            if result.is_ok() && table == "B1" {
                next += 1;
            }
            result
        };
        // What each refusal must cite: the articles of its English, none where it cites none.
        let mut refused: Vec<(Refusal, &[&str])> = Vec::new();
        let mut expect_refusal = |result: Result<_, Refusal>, articles: &'static [&'static str]| {
            refused.push((result.expect_err("a refusal"), articles));
        };
        expect_refusal(apply(&mut state, "B1", None, TableOp::Press { seat: 2, credits: None }), &["4.6"]);
        apply(&mut state, "B1", None, TableOp::OpenTable).expect("opened");
        expect_refusal(apply(&mut state, "B1", None, TableOp::SellCredits { seat: 2, credits: 3 }), &["12.5.3.3"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::Press { seat: 9, credits: None }), &[]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::Press { seat: 2, credits: None }), &["12.5.3.4"]);
        apply(&mut state, "B1", None, TableOp::SellCredits { seat: 2, credits: 5 }).expect("sold");
        apply(&mut state, "B1", None, TableOp::Press { seat: 2, credits: None }).expect("pressed");
        expect_refusal(apply(&mut state, "B1", None, TableOp::Press { seat: 2, credits: None }), &["11.4"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::Accept), &["12.5.2.1"]);
        apply(&mut state, "B1", None, TableOp::StartRound).expect("started");
        expect_refusal(apply(&mut state, "B1", None, TableOp::Press { seat: 3, credits: None }), &["12.5.1.1"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::StartRound), &["12.5.2.3"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::CloseTable), &["4.7.7"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::VoidBet { seat: 2 }), &["4.3.2", "11.8.1.2"]);
        expect_refusal(apply(&mut state, "B1", None, TableOp::EnterPrize { seat: 2, code: "NO_SUCH".into(), high: None }), &[]);
        expect_refusal(
            apply(&mut state, "B1", None, TableOp::EnterPrize { seat: 3, code: "TRES_SIETES".into(), high: None }),
            &["11.11.5"],
        );
        apply(&mut state, "B1", None, TableOp::EnterPrize { seat: 2, code: "TRES_SIETES".into(), high: None }).expect("entered");
        // The engine's refusal: one hand, one combination of each exclusive group (the pool's articles).
        expect_refusal(
            apply(&mut state, "B1", None, TableOp::EnterPrize { seat: 2, code: "CUATRO_ASES".into(), high: None }),
            &["11, 12"],
        );
        let ahead = state.table("B1").expect("a table of the layout").last_sequence + 6;
        expect_refusal(apply(&mut state, "B1", Some(ahead), TableOp::Accept), &[]);
        expect_refusal(apply(&mut state, "ZZ", Some(1), TableOp::OpenTable), &[]);
        apply(&mut state, "R1", Some(1), TableOp::OpenTable).expect("roulette opened");
        expect_refusal(apply(&mut state, "R1", Some(2), TableOp::RequestGoldTurn), &["3.1.3", "3.7.1.2"]);
        expect_refusal(apply(&mut state, "R1", Some(2), TableOp::CustodyPrize { seat: 1 }), &["11.8.3", "15.14.5.2"]);

        assert_eq!(refused.len(), 17, "every refusal above was met");
        for (refusal, articles) in &refused {
            let english = &refusal.message;
            let spanish = refusal.spanish.as_deref().unwrap_or_else(|| panic!("no Spanish for `{english}`"));
            for article in *articles {
                assert!(english.contains(article), "the English cites {article}: {english}");
                assert!(spanish.contains(article), "the Spanish cites {article} as the English does: {spanish}");
            }
            if !articles.is_empty() {
                assert!(spanish.ends_with(").") && spanish.contains('('), "the articles close the Spanish: {spanish}");
            }
            assert!(spanish.ends_with('.'), "a sentence: {spanish}");
            assert!(!spanish.contains('`'), "nothing quoted in backticks: {spanish}");
            assert!(spanish.starts_with(|first: char| first.is_uppercase()), "no field prefix: {spanish}");
            for field in ["seat:", "credits:", "code:", "table_id:", "sequence:", "high:", "prizes:", "winners", "custody_id:"] {
                assert!(!spanish.contains(field), "no field name `{field}`: {spanish}");
            }
            assert_ne!(spanish, english.as_str(), "Spanish, not the English again");
        }
    }
}
