//! The poker tournaments in a jornada's evidence (Lotería Nacional Res. 123/2013, "Normas
//! generales para torneos de poker en la variante Texas Hold'em"; docs/readings.md, "The
//! tournament's prize pool"): what `pozo-server evidence` and `pozo-verifier` check beside the
//! replay of every entry, offline and without the casino's keys.
//!
//! - Every seat draw revealed in the jornada (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1): its
//!   nonce opens the commitment journaled before it, in this jornada or an earlier one (then it
//!   is in the opening state), and the seating the file claims (`closing.seat_draws`) is the one
//!   `seats::assign` gives for the players and tables listed (`pozo_core::tournament::seats::check`),
//!   the players being those in play as the core recomputes them.
//! - Every purchase's document is shown masked (Res. 123/2013 Anexo IV 1.2): at most its last 4
//!   digits. The number itself is never in the journal: only its keyed fingerprint and its seal.
//! - Every tournament's books at the close (`closing.tournaments`) are the recomputed ones, and
//!   tie: sold − refunds = prizes + house (Res. 123/2013 art. 62, 63), what was assigned and
//!   redistributed is the prizes once finished, paid + owed is what was assigned (art. 66).
//!
//! Verdicts are in Spanish and name the tournament, the draw or the book that fails.

use pozo_core::state::command::{Command, TournamentOp};
use pozo_core::state::tournament::{SeatDraw, TournamentBooks};
use pozo_core::state::{State, draw};
use pozo_core::tournament::seats::{self, PlayerRef, SeatDrawHead, Seating};
use pozo_engine::{Money, format_ars};

use crate::format::SeatDrawn;

/// The seat draws seen so far, each checked.
#[derive(Clone, Debug, Default)]
pub struct Seats {
    /// Every seat draw revealed, as recomputed, in the journal's order.
    revealed: Vec<SeatDrawn>,
}

/// `sorteo de ubicaciones 2 (jornada 2) del torneo multimesa-semanal`.
fn which(tournament: &str, draw: u64, reason: impl std::fmt::Display) -> String {
    format!("sorteo de ubicaciones {draw} ({reason}) del torneo {tournament}")
}

/// Whether a document as shown (`DNI ***5678`) hides all but at most its last 4 digits: some
/// characters masked with `*`, no digit before the last `*`, at most 4 after it (Res. 123/2013
/// Anexo IV 1.2: the number is for the receipt only, never for the journal).
pub fn masked_enough(masked: &str) -> bool {
    let digits = |text: &str| text.chars().filter(|c| c.is_numeric()).count();
    match masked.rfind('*') {
        None => false,
        Some(at) => digits(&masked[..at]) == 0 && digits(&masked[at..]) <= 4,
    }
}

/// A purchase whose document shows more than its last 4 digits: which, in Spanish (the document
/// itself is never quoted).
fn unmasked(tournament: &str, order: u32, item: &str, masked: &str) -> Option<String> {
    if masked_enough(masked) {
        return None;
    }
    let digits = |text: &str| text.chars().filter(|c| c.is_numeric()).count();
    let shown = match masked.rfind('*') {
        None => format!("no oculta nada ({} dígitos a la vista)", digits(masked)),
        Some(at) if digits(&masked[..at]) > 0 => "muestra dígitos antes de los ocultos".to_owned(),
        Some(_) => format!("muestra {} dígitos", digits(masked)),
    };
    Some(format!(
        "compra de orden {order} ({item}) del torneo {tournament}: el documento enmascarado {shown}: a lo sumo se muestran \
         sus 4 últimos (Res. 123/2013 Anexo IV 1.2); el número del documento nunca va en claro en el diario ni en la evidencia"
    ))
}

/// Every purchase of every tournament of the state the jornada opened with: its document masked.
pub fn opening_documents(state: &State) -> Result<(), String> {
    for tournament in state.tournaments().values() {
        for purchase in &tournament.purchases {
            if let Some(problem) = unmasked(&tournament.id, purchase.order, purchase.item.code(), &purchase.document_masked) {
                return Err(format!("opening: {problem}"));
            }
        }
    }
    Ok(())
}

/// A seat draw as the state keeps it, as the file claims it.
fn drawn(entry: u64, tournament: &str, draw: &SeatDraw) -> SeatDrawn {
    SeatDrawn {
        entry,
        tournament: tournament.to_owned(),
        draw: draw.draw,
        reason: draw.reason,
        commitment: draw.commitment.clone(),
        committed_at: draw.committed_at,
        nonce: draw.nonce.clone(),
        players: draw.players.clone(),
        tables: draw.tables.clone(),
        seating: draw.seating.clone(),
    }
}

impl Seats {
    pub fn new() -> Seats {
        Seats::default()
    }

    /// Checks entry `command` on the `state` before it is applied: a purchase's document masked,
    /// a seat draw's nonce opening the commitment journaled before. `Err` says which rule it
    /// breaks, in Spanish, and whether it is a draw's (`true`) or a document's (`false`).
    pub fn before(&self, state: &State, command: &Command) -> Result<(), (bool, String)> {
        let Command::Tournament(command) = command else {
            return Ok(());
        };
        match &command.op {
            TournamentOp::Purchase { tournament, item, order, document_masked, .. } => {
                match unmasked(tournament, *order, item.code(), document_masked) {
                    Some(problem) => Err((false, problem)),
                    None => Ok(()),
                }
            }
            TournamentOp::DrawSeats { tournament, reason, nonce, .. } => {
                let Some(open) = state.tournaments().get(tournament).and_then(|t| t.seat_commitment.as_ref()) else {
                    // No such tournament, or nothing committed: the core refuses it, and says why.
                    return Ok(());
                };
                let what = which(tournament, open.draw, reason);
                let Some(nonce) = draw::nonce_of(nonce) else {
                    return Err((true, format!("{what}: el nonce revelado no son 64 dígitos hexadecimales")));
                };
                let head = SeatDrawHead { tournament: tournament.clone(), draw: open.draw, reason: *reason };
                if hex::encode(seats::commitment(&head, &nonce)) != open.commitment {
                    return Err((
                        true,
                        format!(
                            "{what}: el nonce revelado no abre el compromiso del asiento {}: las ubicaciones no se fijaron \
                             antes de conocerse los jugadores (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1)",
                            crate::entries(open.at)
                        ),
                    ));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Notes entry `sequence`, applied (`state` after it): a seat draw revealed, as recomputed.
    pub fn after(&mut self, state: &State, sequence: u64, command: &Command) {
        if let Command::Tournament(command) = command
            && let TournamentOp::DrawSeats { tournament, .. } = &command.op
            && let Some(draw) = state.tournaments().get(tournament).and_then(|t| t.seat_draws.last())
        {
            self.revealed.push(drawn(sequence, tournament, draw));
        }
    }

    /// Every seat draw revealed so far, as recomputed.
    pub fn revealed(&self) -> &[SeatDrawn] {
        &self.revealed
    }
}

/// A seat draw the file claims, checked against the one recomputed from the journal (`None`:
/// the journal reveals no such draw): the claim's nonce opens the commitment journaled, its
/// seating is the one the nonce draws for the players and tables it lists (`seats::check`), and
/// it is the recomputed one, field by field. `Err` in Spanish, naming the draw.
pub fn check_claimed(claimed: &SeatDrawn, recomputed: Option<&SeatDrawn>) -> Result<(), String> {
    let what = which(&claimed.tournament, claimed.draw, claimed.reason);
    let Some(recomputed) = recomputed else {
        return Err(format!("closing.seat_draws: {what}: el asiento {} no revela ese sorteo", crate::entries(claimed.entry)));
    };
    let head = SeatDrawHead { tournament: claimed.tournament.clone(), draw: claimed.draw, reason: claimed.reason };
    let Some(commitment) = draw::nonce_of(&recomputed.commitment) else {
        return Err(format!("{what}: el compromiso del asiento {} no se lee", crate::entries(recomputed.committed_at)));
    };
    let Some(nonce) = draw::nonce_of(&claimed.nonce) else {
        return Err(format!("{what}: el nonce no son 64 dígitos hexadecimales"));
    };
    let players: Vec<PlayerRef> = claimed.players.iter().map(|order| PlayerRef { order: *order }).collect();
    if let Err(rule) = seats::check(&head, &commitment, &nonce, &players, &claimed.tables, &claimed.seating) {
        return Err(format!("{what}: {}", spanish_seating(&head, &commitment, &nonce, &players, claimed, &rule)));
    }
    if claimed != recomputed {
        let (a, b) = (serde_json::to_value(claimed).unwrap_or_default(), serde_json::to_value(recomputed).unwrap_or_default());
        let field = crate::check::first_difference_of(&a, &b).unwrap_or_default();
        return Err(format!(
            "{what}: el archivo no dice lo que el asiento {} recalculado da ({field}): el sorteo se hizo con los jugadores \
             en juego y las mesas que el diario dice",
            crate::entries(recomputed.entry)
        ));
    }
    Ok(())
}

/// Why `seats::check` refused a claimed draw (`rule`, its English), in Spanish: the nonce does
/// not open the commitment, the lists are not a draw's, or the first player seated elsewhere
/// than the nonce puts him.
fn spanish_seating(
    head: &SeatDrawHead,
    commitment: &[u8; 32],
    nonce: &[u8; 32],
    players: &[PlayerRef],
    claimed: &SeatDrawn,
    rule: &str,
) -> String {
    if seats::commitment(head, nonce) != *commitment {
        return format!(
            "el nonce no abre el compromiso del asiento {}: las ubicaciones no se fijaron antes de conocerse los jugadores \
             (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1)",
            crate::entries(claimed.committed_at)
        );
    }
    let expected = match seats::assign(nonce, players, &claimed.tables) {
        Ok(expected) => expected,
        Err(error) => return format!("los jugadores y las mesas listados no son los de un sorteo: {}", error.for_people()),
    };
    let at = |seating: &Seating| format!("mesa {} asiento {}", seating.table, seating.seat);
    for seating in &expected {
        match claimed.seating.iter().find(|claim| claim.order == seating.order) {
            None => return format!("el jugador de orden {} no tiene ubicación en el archivo", seating.order),
            Some(claim) if claim != seating => {
                return format!(
                    "el archivo ubica al jugador de orden {} en {}, y el sorteo lo pone en {} (Res. 123/2013 art. 11; \
                     Anexo IV 8.1)",
                    seating.order,
                    at(claim),
                    at(seating)
                );
            }
            Some(_) => {}
        }
    }
    match claimed.seating.iter().find(|claim| !expected.iter().any(|seating| seating.order == claim.order)) {
        Some(extra) => format!("el archivo ubica al jugador de orden {}, que no está entre los sorteados", extra.order),
        None => format!("la ubicación no es la del sorteo ({rule})"),
    }
}

/// How a tournament's books fail to tie, in Spanish (what `TournamentBooks::untied` finds);
/// `None` when they tie (Res. 123/2013 art. 62, 63, 66).
pub fn descuadre(books: &TournamentBooks) -> Option<String> {
    let why = books.untied()?;
    let out = books.assigned + books.redistributed;
    if books.sold - books.refunds != books.prizes + books.house {
        return Some(format!(
            "vendido {} − devoluciones {} no es premios {} + casa {} (Res. 123/2013 art. 62, 63)",
            format_ars(books.sold),
            format_ars(books.refunds),
            format_ars(books.prizes),
            format_ars(books.house)
        ));
    }
    if out > books.prizes || (books.finished && out != books.prizes) {
        return Some(format!(
            "asignado {} + redistribuido {} {} los premios {}{}",
            format_ars(books.assigned),
            format_ars(books.redistributed),
            if out > books.prizes { "superan" } else { "no son" },
            format_ars(books.prizes),
            if books.finished { " de un torneo finalizado (Res. 123/2013 art. 65; Anexo II)" } else { "" }
        ));
    }
    if books.owed < Money::ZERO || books.paid + books.owed > out {
        return Some(format!(
            "pagado {} + adeudado {} no es lo asignado y redistribuido, {} (Res. 123/2013 art. 66)",
            format_ars(books.paid),
            format_ars(books.owed),
            format_ars(out)
        ));
    }
    Some(why)
}

/// A tournament's books as a verdict line: sold per item, refunds, prizes, house, rounding,
/// assigned, redistributed, paid, owed.
pub fn libros(books: &TournamentBooks) -> String {
    let items = books
        .by_item
        .iter()
        .map(|item| {
            let refunded = match item.refunded.is_zero() {
                true => String::new(),
                false => format!(", devuelto {}", format_ars(item.refunded)),
            };
            format!("{} {}{refunded}", item.item.code(), format_ars(item.sold))
        })
        .collect::<Vec<_>>()
        .join("; ");
    format!(
        "vendido {} ({items}), devoluciones {}, premios {}, casa {}, redondeo {}, asignado {}, redistribuido {}, pagado {}, \
         adeudado {}{}",
        format_ars(books.sold),
        format_ars(books.refunds),
        format_ars(books.prizes),
        format_ars(books.house),
        format_ars(books.rounding),
        format_ars(books.assigned),
        format_ars(books.redistributed),
        format_ars(books.paid),
        format_ars(books.owed),
        if books.finished { "; finalizado" } else { "" }
    )
}

/// `2 sorteos de ubicaciones revelados, todos conformes`.
pub fn summary(revealed: u64) -> String {
    format!("{}, todos conformes", crate::plural(revealed, "sorteo de ubicaciones revelado", "sorteos de ubicaciones revelados"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_shows_at_most_its_last_four_digits() {
        for shown in ["DNI ***5678", "DNI ***678", "PAS ***AB12", "DNI ********"] {
            assert!(masked_enough(shown), "{shown}");
        }
        for unmasked in ["DNI 12345678", "DNI *2345678", "DNI 1***5678", "DNI ***45678", "DNI 1234", ""] {
            assert!(!masked_enough(unmasked), "{unmasked}");
        }
    }

    #[test]
    fn a_refusal_says_what_the_mask_shows_and_never_the_document() {
        let said = |masked: &str| unmasked("T", 3, "IN", masked).expect("refused");
        assert!(
            said("DNI *2345678").contains("el documento enmascarado muestra 7 dígitos: a lo sumo"),
            "{}",
            said("DNI *2345678")
        );
        assert!(said("DNI 1***5678").contains("muestra dígitos antes de los ocultos"));
        assert!(said("DNI 12345678").contains("no oculta nada (8 dígitos a la vista)"));
        for masked in ["DNI *2345678", "DNI 1***5678", "DNI 12345678"] {
            assert!(!said(masked).contains("2345678") && !said(masked).contains("5678"), "{}", said(masked));
        }
        assert_eq!(unmasked("T", 3, "IN", "DNI ***5678"), None);
    }

    fn books() -> TournamentBooks {
        use pozo_core::state::tournament::ItemBooks;
        use pozo_engine::tournament::Item;
        let money = |text: &str| text.parse::<Money>().expect("an amount");
        TournamentBooks {
            tournament: "T".into(),
            by_item: vec![ItemBooks { item: Item::BuyIn, sold: money("100.00"), refunded: money("0") }],
            sold: money("100.00"),
            refunds: money("0"),
            prizes: money("80.00"),
            house: money("20.00"),
            rounding: money("0"),
            assigned: money("60.00"),
            redistributed: money("20.00"),
            paid: money("50.00"),
            owed: money("30.00"),
            finished: true,
        }
    }

    #[test]
    fn books_that_tie_have_no_reason_and_each_broken_rule_is_named_in_spanish() {
        assert_eq!(descuadre(&books()), None);
        let money = |text: &str| text.parse::<Money>().expect("an amount");
        let sold = TournamentBooks { sold: money("110.00"), ..books() };
        assert_eq!(
            descuadre(&sold).as_deref(),
            Some("vendido $ 110,00 − devoluciones $ 0,00 no es premios $ 80,00 + casa $ 20,00 (Res. 123/2013 art. 62, 63)")
        );
        let short = TournamentBooks { redistributed: money("10.00"), owed: money("20.00"), ..books() };
        assert!(descuadre(&short).expect("untied").starts_with("asignado $ 60,00 + redistribuido $ 10,00 no son los premios"));
        let over = TournamentBooks { redistributed: money("30.00"), ..books() };
        assert!(descuadre(&over).expect("untied").contains("superan los premios $ 80,00"));
        let owed = TournamentBooks { owed: money("40.00"), ..books() };
        assert_eq!(
            descuadre(&owed).as_deref(),
            Some("pagado $ 50,00 + adeudado $ 40,00 no es lo asignado y redistribuido, $ 80,00 (Res. 123/2013 art. 66)")
        );
        // Each of them is what the core finds untied.
        for broken in [sold, short, over, owed] {
            assert!(broken.untied().is_some());
        }
    }

    /// A draw of `players` over two tables of nine, as the journal would reveal it.
    fn honest(index: u8, players: u64) -> SeatDrawn {
        use pozo_core::tournament::seats::{SeatDrawReason, TableSeats};
        use sha2::Digest;
        let nonce: [u8; 32] = sha2::Sha256::digest([index]).into();
        let head = SeatDrawHead { tournament: "T".into(), draw: 1, reason: SeatDrawReason::Inicio };
        let refs: Vec<PlayerRef> = (1..=players).map(|order| PlayerRef { order }).collect();
        let tables: Vec<TableSeats> =
            ["T1", "T2"].iter().map(|table| TableSeats { table: (*table).into(), seats: (1..=9).collect() }).collect();
        let seating = seats::assign(&nonce, &refs, &tables).expect("seats enough");
        SeatDrawn {
            entry: 9,
            tournament: "T".into(),
            draw: 1,
            reason: SeatDrawReason::Inicio,
            commitment: hex::encode(seats::commitment(&head, &nonce)),
            committed_at: 4,
            nonce: hex::encode(nonce),
            players: (1..=players).collect(),
            tables,
            seating,
        }
    }

    #[test]
    fn every_honest_draw_checks_and_every_two_players_swapped_is_named() {
        for index in 0..8 {
            for players in [2, 7, 11, 18] {
                let drawn = honest(index, players);
                assert_eq!(check_claimed(&drawn, Some(&drawn)), Ok(()));
                for a in 0..drawn.seating.len() {
                    for b in a + 1..drawn.seating.len() {
                        let mut swapped = drawn.clone();
                        let (first, second) = (drawn.seating[a].clone(), drawn.seating[b].clone());
                        (swapped.seating[a].table, swapped.seating[a].seat) = (second.table, second.seat);
                        (swapped.seating[b].table, swapped.seating[b].seat) = (first.table, first.seat);
                        let why = check_claimed(&swapped, Some(&drawn)).expect_err("a seating swapped");
                        assert!(
                            why.starts_with(
                                "sorteo de ubicaciones 1 (inicio) del torneo T: el archivo ubica al jugador de orden "
                            )
                        );
                        assert!(why.contains(", y el sorteo lo pone en mesa "), "{why}");
                    }
                }
                let mut other = drawn.clone();
                let last = if other.nonce.ends_with('0') { '1' } else { '0' };
                other.nonce = format!("{}{last}", &other.nonce[..63]);
                let why = check_claimed(&other, Some(&drawn)).expect_err("another nonce");
                assert!(why.contains("el nonce no abre el compromiso del asiento 4"), "{why}");
                let mut fewer = drawn.clone();
                fewer.players.pop();
                fewer.seating.retain(|seating| seating.order != players);
                assert!(check_claimed(&fewer, Some(&drawn)).is_err(), "a player left out of the draw");
            }
        }
        assert!(check_claimed(&honest(0, 3), None).expect_err("no such draw").contains("el asiento 9 no revela ese sorteo"));
    }

    #[test]
    fn the_summary_counts_in_spanish() {
        assert_eq!(summary(1), "1 sorteo de ubicaciones revelado, todos conformes");
        assert_eq!(summary(2), "2 sorteos de ubicaciones revelados, todos conformes");
    }
}
