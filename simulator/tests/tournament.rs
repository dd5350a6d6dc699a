//! `pozo-sim tournament`: simulated poker tournaments (Res. 123/2013) through the real server, for
//! a few seeds and player counts and a Sit & Go of 10: the books tie to zero, every prize is paid,
//! every seat draw checks offline, and the positions paid are the prize table's (art. 65; art. 26).

use std::process::Command;

use pozo_sim::tournament::{Options, Report, run};

const BIN: &str = env!("CARGO_BIN_EXE_pozo-sim");

fn play(seed: u64, players: u32, structure: &str) -> Report {
    let options = Options { seed, players, structure: structure.to_owned() };
    pozo_sim::runtime().expect("a runtime").block_on(run(options)).unwrap_or_else(|error| panic!("{error:#}"))
}

/// What every simulated tournament must show, whatever its seed.
fn sound(report: &Report, players: u32, places: usize) {
    assert!(report.ok(), "{}", report.spanish());
    assert!(report.tied);
    assert_eq!(report.entrants, players);
    assert_eq!(report.places.len(), places, "the prize table's row for {players} entrants (art. 65)");
    assert_eq!(report.owed.parse::<rust_decimal::Decimal>().expect("decimal"), rust_decimal::Decimal::ZERO);
    assert_eq!(report.paid, report.prizes, "every prize paid");
    assert!(report.refunds >= 1, "a refund before the close (Anexo IV 1.4)");
    assert!(report.draws.iter().all(|draw| draw.checked.is_ok()), "every seat draw checks offline");
    assert_eq!(report.draws[0].reason, "inicio");
    // Read back by the audit's own reader: every purchase and draw in the journal, each draw committed before.
    assert!(report.journal_seat_commits as usize >= report.draws.len());
    assert!(report.journal_tournament_ops as u32 >= report.buy_ins + report.rebuys + report.add_ons + report.refunds);
    let (_, position, forfeited, shared_to) = report.disqualified.clone().expect("one disqualification (Anexo II)");
    assert!(position as usize <= places, "the disqualified player was in the money");
    assert!(forfeited.parse::<rust_decimal::Decimal>().expect("decimal") > rust_decimal::Decimal::ZERO);
    assert!(!shared_to.is_empty(), "shared among the active");
    // Who collects: the paid positions, shared among more players only by ties and the disqualification.
    let collecting = report.finishes.iter().filter(|f| f.payment.starts_with("pagado"));
    assert!(collecting.clone().all(|f| (f.position as usize) <= places), "{}", report.spanish());
    assert!(collecting.count() >= places - 1, "all but the disqualified position collect: {}", report.spanish());
    assert_eq!(report.finishes.iter().filter(|f| f.position == 1).count(), 1, "one winner");
}

#[test]
fn multi_table_tournaments_tie_to_zero_for_several_seeds_and_sizes() {
    for (seed, players, places) in [(1, 40, 5usize), (2, 12, 3), (3, 2, 2), (4, 120, 11)] {
        let report = play(seed, players, "multimesa-semanal");
        sound(&report, players, places);
        assert!(report.rebuys + report.add_ons > 0 || players < 4, "rebuys and add-ons (Anexo I art. 1 items 6, 7)");
        if players >= 20 {
            let reasons: Vec<&str> = report.draws.iter().map(|d| d.reason.as_str()).collect();
            assert!(reasons.contains(&"jornada 2") && reasons.contains(&"mesa final"), "{reasons:?}");
            assert!(report.seals > 0, "chips sealed between jornadas (Anexo IV 7.3.2)");
            let articles: Vec<&str> = report.ties.iter().map(|t| t.3.as_str()).collect();
            assert!(articles.contains(&"art. 72") && articles.contains(&"art. 71"), "{articles:?}");
        }
    }
}

#[test]
fn a_sit_and_go_of_ten_pays_three_and_of_nine_pays_two() {
    let report = play(5, 10, "sit-and-go-10");
    sound(&report, 10, 3);
    assert_eq!((report.rebuys, report.add_ons), (0, 0), "a Sit & Go offers neither");
    // 10 × 5.000 × 0,90 = 45.000: the first, 22.500, from the 20.000 threshold through Venta-Pagos.
    assert_eq!(report.places, ["22500.00", "13500.00", "9000.00"]);
    assert!(report.paid_through_office >= 1);
    let report = play(6, 9, "sit-and-go-10");
    sound(&report, 9, 2);
}

#[test]
fn the_same_seed_plays_the_same_tournament() {
    let one = play(7, 30, "multimesa-semanal");
    let two = play(7, 30, "multimesa-semanal");
    assert_eq!(one.spanish(), two.spanish());
    assert_ne!(one.spanish(), play(8, 30, "multimesa-semanal").spanish());
}

#[test]
fn the_command_prints_the_books_in_spanish_and_refuses_a_bad_size() {
    let output = Command::new(BIN).args(["tournament", "--seed", "3", "--players", "25"]).output().expect("pozo-sim runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    for line in ["Libros del torneo", "Recaudado", "Premios", "Casa", "CUADRA", "verificado sin conexión", "$ "] {
        assert!(text.contains(line), "{line} in {text}");
    }
    for players in ["1", "201"] {
        let bad = Command::new(BIN).args(["tournament", "--players", players]).output().expect("pozo-sim runs");
        assert_eq!(bad.status.code(), Some(2), "--players {players}");
    }
    let bad = Command::new(BIN).args(["tournament", "--structure", "sit-and-go-10", "--players", "11"]).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2), "a Sit & Go seats at most 10");
}

/// The simulator's offline check of a seat draw (art. 11, 15, 88; Anexo IV 8.1) accepts the
/// seating the nonce gives under the commitment journaled before, and refuses another nonce,
/// another seating, and a commitment made after the draw.
#[test]
fn the_offline_check_of_a_seat_draw_refuses_what_the_nonce_does_not_give() {
    use pozo_core::tournament::seats::{self, PlayerRef, SeatDrawHead, TableSeats};
    use pozo_proto::v1 as pb;
    let nonce = [7u8; 32];
    let head = SeatDrawHead { tournament: "multimesa-semanal".into(), draw: 2, reason: "jornada 2".parse().expect("a reason") };
    let players: Vec<PlayerRef> = (1..=12).map(|order| PlayerRef { order }).collect();
    let tables = [
        TableSeats { table: "T1".into(), seats: (1..=9).collect() },
        TableSeats { table: "T2".into(), seats: (1..=9).collect() },
    ];
    let seating = seats::assign(&nonce, &players, &tables).expect("a seating");
    let line = pb::TournamentSeatDrawLine {
        draw: 2,
        reason: "jornada 2".into(),
        commitment: hex::encode(seats::commitment(&head, &nonce)),
        committed_at: 40,
        nonce: hex::encode(nonce),
        players: (1..=12).collect(),
        tables: tables.iter().map(|t| pb::TournamentTable { table: t.table.to_string(), seats: t.seats.clone() }).collect(),
        seating: seating
            .iter()
            .map(|s| pb::TournamentSeating { order: s.order as u32, table: s.table.to_string(), seat: s.seat })
            .collect(),
        by: Some(pb::TournamentActor { journal_sequence: 55, ..Default::default() }),
    };
    let check = |line: &pb::TournamentSeatDrawLine| pozo_sim::tournament::check_draw("multimesa-semanal", line);
    assert_eq!(check(&line), Ok(()));
    let mut other = line.clone();
    other.nonce = hex::encode([8u8; 32]);
    assert!(check(&other).is_err(), "another nonce");
    let mut other = line.clone();
    let first = other.seating[0].order;
    other.seating[0].order = other.seating[1].order;
    other.seating[1].order = first;
    assert!(check(&other).is_err(), "another seating");
    let mut other = line.clone();
    other.committed_at = 60;
    assert!(check(&other).is_err(), "committed after the draw");
    assert!(check_in("another-tournament", &line).is_err(), "another tournament's commitment");
}

fn check_in(tournament: &str, line: &pozo_proto::v1::TournamentSeatDrawLine) -> Result<(), String> {
    pozo_sim::tournament::check_draw(tournament, line)
}
