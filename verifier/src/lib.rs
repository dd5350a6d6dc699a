//! `pozo-verifier`: a jornada's evidence checked by anyone, offline, without the casino's keys.
//!
//! `pozo-server evidence` writes one file per jornada (docs/journal.md, "A jornada's
//! evidence"): the jornada's journal entries, the chain's anchors around them, the configuration
//! in force and the state the jornada opened with, what each entry did to the pools, the close
//! and its books, signed with the casino's Ed25519 key, whose public half the casino registers
//! with the regulator (the journal's own key is an HMAC secret an inspector never holds).
//!
//! The verifier depends on that documented format and on the pure core (`pozo-core`, which
//! depends on the rules of `pozo-engine` and does no I/O), never on the server. It checks:
//! 1. the signature, by the registered key, over the evidence's bytes as they stand;
//! 2. the hash chain from the anchor through every entry to the last hash;
//! 3. every entry recomputed by the pure core from the opening state, the rulebooks in force
//!    and the entry: what it did to every pool and, in a pool with levels, to every level
//!    (docs/readings.md, "Levels"), as the file claims, and no pool's or level's money made or
//!    lost (conservation after every entry);
//! 4. the close: every level's figures and books, every pool's, each tied to zero on its own,
//!    every poker tournament's books, tied (Res. 123/2013 art. 62, 63, 66), the state;
//! 5. every tournament seat draw revealed: its nonce opens the commitment journaled before
//!    (in an earlier jornada's entries too: the opening state holds it), and the seating claimed
//!    is the one `pozo_core::tournament::seats::check` recomputes (Res. 123/2013 art. 11, 15,
//!    88; Anexo IV 8.1); every purchase's document shown with at most its last 4 digits (Anexo
//!    IV 1.2);
//! 6. given several files, that each jornada continues the one before: the same journal, the
//!    next entry, chained to its last hash, from exactly the state it left.
//!
//! The verdict is in Spanish (or JSON), and names the first entry or link that disagrees, and the
//! pool and the level when it is a level's.
//!
//! # Layout
//! - [`format`]: the file, byte for byte; [`keys`]: the Ed25519 keys.
//! - `strict`: the file read one way only (no key twice, the documented shape).
//! - [`tournaments`]: the poker tournaments' seat draws, documents and books (Res. 123/2013).
//! - `replay`: the jornada replayed entry by entry; [`make`]: the file written from a journal
//!   (what `pozo-server evidence` calls); [`check`]: the verdict, file after file in the
//!   journal's order, in the memory of one.

pub mod check;
pub mod draws;
pub mod format;
pub mod keys;
pub mod make;
mod replay;
mod strict;
pub mod tournaments;

use serde::Serialize;

pub use check::{Checked, DrawsChecked, LevelBooks, Link, Opening, Verdict, Verifier, verify, verify_paths};
pub use keys::{PublicKey, SigningKey};

/// How far a pool of one level, or one level of a pool with levels, is from conservation, from
/// its balance, reserve and meters: zero when money in equals money held or out (docs/rules.md,
/// "Money and conservation"; every level conserves on its own, docs/readings.md, "Levels").
/// What `pozo_engine::Pool::conservation_difference` computes for each level, here for a level
/// as a snapshot or a file states it.
pub fn conservation_difference(
    balance: pozo_engine::Money,
    reserve: pozo_engine::Money,
    meters: &pozo_engine::Meters,
) -> pozo_engine::Money {
    let money_in = meters.net_contributions() + meters.net_replenishments() + meters.transfers_in + meters.adjustments_up;
    let held_or_out = balance + reserve + meters.net_awards() + meters.transfers_out + meters.adjustments_down;
    money_in - held_or_out
}

/// Which check found a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The file cannot be read as an evidence file.
    File,
    /// The signature is missing, by another key, or not of these bytes.
    Signature,
    /// The evidence does not hold together (its fields, its configuration, its opening state).
    Format,
    /// The hash chain is broken.
    Chain,
    /// An entry recomputed does not do what the file says, or is refused.
    Recomputation,
    /// The close or the books are not what the entries make, or do not tie to zero.
    Books,
    /// Two jornadas do not follow each other.
    Link,
    /// A mystery level's draw or reveal breaks a rule of the draws (docs/journal.md, "draw" and
    /// "reveal"): a reveal that does not open its commitment, a trigger out of its range, a hit
    /// moved, a second draw, a hot seat's candidates that are not the seats in force, a reveal
    /// missing. Or a tournament's seat draw whose nonce does not open the commitment journaled
    /// before it, or whose seating claimed is not the one its nonce draws (Res. 123/2013 art. 11,
    /// 15, 88; Anexo IV 8.1).
    Draw,
    /// A tournament purchase's document shown with more than its last 4 digits (Res. 123/2013
    /// Anexo IV 1.2): the number is never in the journal nor in the evidence.
    Document,
}

impl Check {
    /// Its name in the verdict.
    pub fn nombre(self) -> &'static str {
        match self {
            Check::File => "archivo",
            Check::Signature => "firma",
            Check::Format => "formato",
            Check::Chain => "cadena",
            Check::Recomputation => "recálculo",
            Check::Books => "libros",
            Check::Link => "enlace",
            Check::Draw => "sorteo",
            Check::Document => "documento",
        }
    }
}

/// What is wrong: which check, at which entry when it is one, in Spanish.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub check: Check,
    pub entry: Option<u64>,
    pub message: String,
}

impl Problem {
    /// `message` says what is wrong, quoting the file where it helps: whatever it quotes is
    /// made [`visible`] here, so no problem carries a control character to a terminal.
    pub fn new(check: Check, entry: Option<u64>, message: String) -> Problem {
        Problem { check, entry, message: visible(&message).into_owned() }
    }
}

/// Whether `c` acts on a terminal instead of being shown: a control character (C0, DEL, C1) or a
/// bidirectional formatting one. All are in the Basic Multilingual Plane.
pub fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character (C0 with the newline, DEL, C1) and every bidirectional
/// formatting character written as `\u{…}`: a file name, a field or a parser's message quoted in
/// a verdict cannot move the cursor, clear the screen, draw a verdict of its own or reorder what
/// the terminal shows. Whatever comes from a file or the command line passes through it.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match hidden(c) {
            true => shown.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            false => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

impl std::fmt::Display for Problem {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.entry {
            Some(entry) => write!(formatter, "{}: asiento {}: {}", self.check.nombre(), entries(entry), self.message),
            None => write!(formatter, "{}: {}", self.check.nombre(), self.message),
        }
    }
}

/// `2026-11-27` as `27/11/2026`.
pub fn fecha(jornada: &str) -> String {
    let parts: Vec<&str> = jornada.split('-').collect();
    match parts.as_slice() {
        [year, month, day] => format!("{day}/{month}/{year}"),
        _ => jornada.to_owned(),
    }
}

/// A count or an entry number with thousands grouped the Argentine way: `12.345`.
pub fn entries(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    grouped
}

/// `1 apuesta`, `2 apuestas`.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{} {}", entries(count), if count == 1 { one } else { many })
}

/// The lines of a pool's or a level's books that move money besides the usual ones.
fn moved_lines(books: &pozo_engine::Reconciliation) -> [(&'static str, pozo_engine::Money); 6] {
    [
        ("transferencias recibidas", books.transfers_in),
        ("transferencias enviadas", books.transfers_out),
        ("ajustes a favor", books.adjustments_up),
        ("ajustes en contra", books.adjustments_down),
        ("premios reintegrados (3.7.3)", books.awards_reclaimed),
        ("reposiciones retiradas", books.replenishments_withdrawn),
    ]
}

/// The verdict as an inspector reads it.
pub fn castellano(verdict: &Verdict) -> String {
    use pozo_engine::format_ars;
    let mut text = String::new();
    for file in &verdict.files {
        let state = if file.problem.is_some() { "NO VERIFICADA" } else { "VERIFICADA" };
        let jornada = if file.jornada.is_empty() { "?".to_owned() } else { fecha(&file.jornada) };
        text.push_str(&format!("Evidencia {}: jornada {}: {state}\n", visible(&file.file), visible(&jornada)));
        if !file.journal_id.is_empty() {
            text.push_str(&format!(
                "  diario {}, asientos {} a {} ({}){}\n",
                visible(&file.journal_id),
                entries(file.first_entry),
                entries(file.last_entry),
                plural(file.last_entry.saturating_sub(file.first_entry).saturating_add(1), "asiento", "asientos"),
                if file.complete { "" } else { "; jornada en curso cuando se hizo: puede no tener todos sus asientos" }
            ));
        }
        if !file.signed_by.is_empty() {
            text.push_str(&format!("  firmada por la clave {}\n", visible(&file.signed_by)));
        }
        if file.problem.is_none() && file.opening == Opening::NotProven {
            text.push_str(&format!(
                "  su estado de apertura (el posterior al asiento {}) se cree por la firma: este archivo solo no lo prueba; \
                 lo prueba la evidencia de la jornada anterior, que debe cerrar con ese estado (o el diario)\n",
                entries(file.first_entry.saturating_sub(1))
            ));
        }
        match &file.problem {
            Some(problem) => text.push_str(&format!("  {}\n", visible(&problem.to_string()))),
            None => {
                text.push_str("  cadena de hashes íntegra; cada asiento recalculado da lo que el archivo dice\n");
                if let Some(draws) = file.draws.as_ref().filter(|draws| draws.committed + draws.revealed > 0) {
                    text.push_str(&format!("  sorteos: {}\n", draws.summary()));
                    for hit in &draws.hits {
                        text.push_str(&format!(
                            "    acierto del nivel {} del pozo {} (ciclo {}, asiento {}): disparador {}, alcanzado por el aporte \
                             del asiento {} de {} asiento {}{}\n",
                            visible(&hit.level),
                            visible(&hit.pool),
                            entries(hit.cycle),
                            entries(hit.entry),
                            format_ars(hit.trigger),
                            entries(hit.after),
                            visible(hit.winner.table.as_ref()),
                            hit.winner.seat,
                            hit.hot_seat.as_ref().map_or_else(String::new, |hot| format!(
                                "; asiento caliente: {} asiento {}",
                                visible(hot.table.as_ref()),
                                hot.seat
                            ))
                        ));
                    }
                }
                if !file.seat_draws.is_empty() {
                    text.push_str(&format!("  ubicaciones: {}\n", tournaments::summary(file.seat_draws.len() as u64)));
                    for draw in &file.seat_draws {
                        text.push_str(&format!(
                            "    sorteo de ubicaciones {} ({}) del torneo {} (asiento {}): abre el compromiso del asiento {}; \
                             {} en {}\n",
                            draw.draw,
                            draw.reason,
                            visible(&draw.tournament),
                            entries(draw.entry),
                            entries(draw.committed_at),
                            plural(draw.players.len() as u64, "jugador", "jugadores"),
                            plural(draw.tables.len() as u64, "mesa", "mesas")
                        ));
                    }
                }
                for books in &file.tournaments {
                    text.push_str(&format!("  torneo {}: {}: cuadra\n", visible(&books.tournament), tournaments::libros(books)));
                }
                for (pool, books) in &file.reconciliation {
                    if books.opening_balance + books.opening_reserve == books.closing_balance + books.closing_reserve
                        && books.bets == 0
                        && books.hits == 0
                    {
                        continue;
                    }
                    text.push_str(&format!(
                        "  pozo {}: apertura {}, aportes {} ({}), reposiciones {}, premios {} ({}), \
                         devueltos {}, cierre {}: cuadra en cero\n",
                        visible(pool.as_ref()),
                        format_ars(books.opening_balance + books.opening_reserve),
                        format_ars(books.contributions),
                        plural(books.bets, "apuesta", "apuestas"),
                        format_ars(books.replenishments),
                        format_ars(books.awards),
                        entries(books.hits),
                        format_ars(books.awards_returned),
                        format_ars(books.closing_balance + books.closing_reserve),
                    ));
                    let moved = moved_lines(books);
                    for (line, amount) in moved.into_iter().filter(|(_, amount)| !amount.is_zero()) {
                        text.push_str(&format!("    además, {line}: {}\n", format_ars(amount)));
                    }
                    // A pool with levels: each level's own books, every one tied to zero
                    // (docs/readings.md, "Levels").
                    for level in file.levels.get(pool).into_iter().flatten() {
                        let books = &level.books;
                        text.push_str(&format!(
                            "    nivel {}: apertura {}, aportes {}, reposiciones {}, premios {} ({}), devueltos {}, \
                             cierre {}: cuadra en cero\n",
                            visible(&level.level),
                            format_ars(books.opening_balance + books.opening_reserve),
                            format_ars(books.contributions),
                            format_ars(books.replenishments),
                            format_ars(books.awards),
                            entries(books.hits),
                            format_ars(books.awards_returned),
                            format_ars(books.closing_balance + books.closing_reserve),
                        ));
                        for (line, amount) in moved_lines(books).into_iter().filter(|(_, amount)| !amount.is_zero()) {
                            text.push_str(&format!("      además, {line}: {}\n", format_ars(amount)));
                        }
                    }
                }
            }
        }
    }
    for link in &verdict.links {
        match &link.problem {
            None => text.push_str(&format!(
                "Las jornadas {} y {} se enlazan.\n",
                visible(&fecha(&link.from)),
                visible(&fecha(&link.to))
            )),
            Some(problem) => text.push_str(&format!("{}\n", visible(&problem.to_string()))),
        }
    }
    match (&verdict.problem, verdict.conforme) {
        (_, true) => text.push_str("VEREDICTO: CONFORME\n"),
        (Some((file, problem)), false) => {
            text.push_str(&format!("VEREDICTO: NO CONFORME: {}: {}\n", visible(file), visible(&problem.to_string())))
        }
        (None, false) => text.push_str("VEREDICTO: NO CONFORME: ningún archivo\n"),
    }
    text
}
