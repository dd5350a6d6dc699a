//! `pozo-sim tournament`: a poker tournament played through the real server's Tournaments
//! service (Lotería Nacional Res. 123/2013), on a controller embedded in this process.
//!
//! From a seed: the structure set up through the two-person door (config/torneos.toml), buy-ins
//! booked one by one with names and documents drawn from the seed (Anexo IV 1.2, 1.3), a few
//! refunds while registration is open (Anexo IV 1.4), rebuys and add-ons (Anexo I art. 1 items
//! 6, 7), registration closed (art. 65), seats drawn (art. 11), the rebuy period closed and the
//! pool fixed (art. 64), eliminations — some in the same hand at different tables (art. 72), some
//! in an order that cannot be told (art. 71) — one disqualification in the money (Anexo II),
//! chips sealed between jornadas (Anexo IV 7.3.2), seats drawn again (art. 15, 88; Anexo IV 8.1),
//! and every prize paid against identity (art. 66), through Venta-Pagos from the structure's
//! threshold. The books are read back and must tie to zero, and every seat draw must check
//! offline (`pozo_core::tournament::seats::check`).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, bail, ensure};
use pozo_core::tournament::seats::{self, PlayerRef, SeatDrawHead, Seating, TableSeats};
use pozo_engine::money::{Money, format_ars};
use pozo_engine::tournament::{Item, Kind, Structure};
use pozo_proto::v1 as pb;
use pozo_proto::v1::tournament_command::Command as Op;
use prost::Message;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tonic::transport::Channel;

/// The example structures (config/torneos.toml): what `--structure` names.
pub const STRUCTURES: (&str, &str) = ("config/torneos.toml", include_str!("../../config/torneos.toml"));

/// The fewest and the most players a simulated tournament has (the example's `max_entrants`).
pub const PLAYERS_MIN: u32 = 2;
pub const PLAYERS_MAX: u32 = 200;

/// The structure played unless `--structure` names another.
pub const DEFAULT_STRUCTURE: &str = "multimesa-semanal";

/// Who does what (config/keys.toml's example keys, which the embedded controller carries).
const CASHIER: &str = "vp-ana";
const OFFICE: &str = "vp-bruno";
const DIRECTOR: &str = "sup-carla";
const APPROVER: &str = "sup-diego";

/// Seats at a table of a multi-table tournament (a Sit & Go sits its one table of up to 10).
const SEATS_PER_TABLE: u32 = 9;

const FIRST_NAMES: [&str; 16] = [
    "Ana", "Bruno", "Carla", "Diego", "Elena", "Facundo", "Graciela", "Hernán", "Inés", "Julián", "Lucía", "Martín", "Natalia",
    "Oscar", "Paula", "Ramiro",
];
const LAST_NAMES: [&str; 16] = [
    "Gómez",
    "Fernández",
    "Rodríguez",
    "López",
    "Martínez",
    "García",
    "Pérez",
    "Sosa",
    "Romero",
    "Díaz",
    "Álvarez",
    "Torres",
    "Ruiz",
    "Ramírez",
    "Acosta",
    "Benítez",
];

/// What to play.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Entrants at the close of registration: PLAYERS_MIN..=PLAYERS_MAX, at most the structure's cap.
    pub players: u32,
    /// An id of config/torneos.toml.
    pub structure: String,
}

/// One position as it ended.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Finish {
    pub order: u32,
    pub player_name: String,
    pub standing: String,
    pub position: u32,
    pub due: String,
    pub payment: String,
}

/// A seat draw and whether it checked offline.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Draw {
    pub draw: u64,
    pub reason: String,
    pub players: usize,
    pub tables: usize,
    pub checked: Result<(), String>,
}

/// What a simulated tournament did, and its books as the server states them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub tournament: String,
    pub name: String,
    pub seed: u64,
    pub entrants: u32,
    /// Purchases booked per code, refunds, and the refused operations the simulation expected.
    pub buy_ins: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub refunds: u32,
    pub refused_as_expected: u32,
    /// Each paid position's prize at the close (art. 65), first first.
    pub places: Vec<String>,
    pub sold: String,
    pub refunded: String,
    pub prizes: String,
    pub house: String,
    pub paid: String,
    pub owed: String,
    pub tied: bool,
    pub untied: String,
    /// Ties: (players, first position, last position, "art. 72" or "art. 71").
    pub ties: Vec<(Vec<u32>, u32, u32, String)>,
    /// The disqualified player, his position, what he forfeited and to whom (Anexo II).
    pub disqualified: Option<(u32, u32, String, Vec<u32>)>,
    pub seals: usize,
    pub draws: Vec<Draw>,
    /// Prizes paid at the cashier, and through Venta-Pagos confirmed by the office.
    pub paid_at_cashier: u32,
    pub paid_through_office: u32,
    pub finishes: Vec<Finish>,
    /// The journal read back with the audit's own reader (`crate::journal`): its entries, the
    /// tournament operations and seat commitments in it.
    pub journal_entries: u64,
    pub journal_tournament_ops: u64,
    pub journal_seat_commits: u64,
    /// What does not tie, or does not check: empty when all is well.
    pub problems: Vec<String>,
}

impl Report {
    /// The books tie to zero, every prize is paid and every draw checks.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// The players who collect a prize.
    pub fn paid_players(&self) -> Vec<u32> {
        self.finishes.iter().filter(|f| !f.payment.is_empty()).map(|f| f.order).collect()
    }

    /// The books as staff read them, in Spanish, amounts the Argentine way.
    pub fn spanish(&self) -> String {
        let mut out = String::new();
        let line = |out: &mut String, text: String| {
            out.push_str(&text);
            out.push('\n');
        };
        let ars = |text: &str| text.parse::<Money>().map(format_ars).unwrap_or_else(|_| text.to_owned());
        line(&mut out, format!("{} ({}), semilla {}: {} inscriptos", self.name, self.tournament, self.seed, self.entrants));
        line(
            &mut out,
            format!(
                "Compras: {} inscripciones (IN), {} recompras (RB), {} adiciones (AD); {} devueltas antes del cierre (Anexo IV 1.4)",
                self.buy_ins, self.rebuys, self.add_ons, self.refunds
            ),
        );
        let places: Vec<String> = self.places.iter().enumerate().map(|(i, p)| format!("{}.º {}", i + 1, ars(p))).collect();
        line(&mut out, format!("Premios por posición (art. 65): {}", places.join("; ")));
        for (players, first, last, article) in &self.ties {
            line(&mut out, format!("Empate {article}: jugadores {players:?} comparten las posiciones {first} a {last}"));
        }
        if let Some((player, position, forfeited, to)) = &self.disqualified {
            line(
                &mut out,
                format!(
                    "Descalificado (Anexo II): jugador {player}, posición {position}; su premio de {} repartido entre {to:?}",
                    ars(forfeited)
                ),
            );
        }
        line(&mut out, format!("Fichas precintadas (Anexo IV 7.3.2): {}", self.seals));
        line(
            &mut out,
            format!(
                "Registro leído por la auditoría: {} asientos, {} operaciones del torneo, {} compromisos de sorteo",
                self.journal_entries, self.journal_tournament_ops, self.journal_seat_commits
            ),
        );
        for draw in &self.draws {
            let verdict = match &draw.checked {
                Ok(()) => "verificado sin conexión".to_owned(),
                Err(problem) => format!("NO VERIFICA: {problem}"),
            };
            line(
                &mut out,
                format!(
                    "Sorteo {} «{}»: {} jugadores en {} {}, {verdict}",
                    draw.draw,
                    draw.reason,
                    draw.players,
                    draw.tables,
                    if draw.tables == 1 { "mesa" } else { "mesas" }
                ),
            );
        }
        line(&mut out, "Posiciones pagadas:".to_owned());
        for finish in self.finishes.iter().filter(|f| !f.payment.is_empty() || f.standing == "descalificado") {
            line(
                &mut out,
                format!(
                    "  {:>3}.º  {:<28} orden {:>3}  {:>16}  {}",
                    finish.position,
                    finish.player_name,
                    finish.order,
                    ars(&finish.due),
                    if finish.payment.is_empty() { finish.standing.as_str() } else { finish.payment.as_str() }
                ),
            );
        }
        line(&mut out, "Libros del torneo (art. 62, 63):".to_owned());
        for (what, amount) in [
            ("Recaudado", &self.sold),
            ("Devoluciones", &self.refunded),
            ("Premios", &self.prizes),
            ("Casa", &self.house),
            ("Pagado", &self.paid),
            ("Adeudado", &self.owed),
        ] {
            line(&mut out, format!("  {what:<14}{:>18}", ars(amount)));
        }
        line(
            &mut out,
            format!(
                "  Pagados en caja {}, por Venta-Pagos {}; operaciones rechazadas como se esperaba: {}",
                self.paid_at_cashier, self.paid_through_office, self.refused_as_expected
            ),
        );
        if self.ok() {
            line(&mut out, "Cuadre: recaudado = premios + casa + devoluciones, todo premio pagado: CUADRA".to_owned());
        } else {
            line(&mut out, "Cuadre: NO CUADRA".to_owned());
            for problem in &self.problems {
                line(&mut out, format!("  - {problem}"));
            }
        }
        out
    }
}

/// One `[[torneo]]` of config/torneos.toml by id, as its own text.
pub fn structure_text(id: &str) -> anyhow::Result<String> {
    let blocks = STRUCTURES.1.split("\n[[torneo]]\n").skip(1);
    let text = blocks
        .map(|block| format!("[[torneo]]\n{block}"))
        .find(|block| block.contains(&format!("\nid = \"{id}\"\n")))
        .with_context(|| format!("--structure {id}: no [[torneo]] of that id in {}", STRUCTURES.0))?;
    Ok(text)
}

/// Plays the tournament on a new embedded controller.
pub async fn run(options: Options) -> anyhow::Result<Report> {
    let text = structure_text(&options.structure)?;
    let structure = Structure::parse(&text)?.pop().context("one structure")?;
    ensure!(
        (PLAYERS_MIN..=PLAYERS_MAX.min(structure.max_entrants())).contains(&options.players),
        "--players {}: {PLAYERS_MIN} to {} for `{}`",
        options.players,
        PLAYERS_MAX.min(structure.max_entrants()),
        options.structure
    );
    let config = pozo_server::config::Config::embedded();
    let directory = tempfile::tempdir()?;
    // The controller's randomness (here the seat draws' nonces) from the seed, as `pozo-sim run`
    // seeds its cards: the same seed plays the same tournament. `serve` draws from the OS CSPRNG.
    let serve = pozo_server::ServeOptions { cards: pozo_server::cards::CardSource::Seeded(options.seed), ..Default::default() };
    let server = pozo_server::Embedded::start(config.clone(), &directory.path().join("data"), serve).await?;
    let channel = tonic::transport::Endpoint::from_shared(server.url.clone())?.connect().await?;
    let identity =
        pb::controller_client::ControllerClient::new(channel.clone()).identify(pb::IdentifyRequest {}).await?.into_inner();
    let desk = Desk {
        channel,
        journal_id: identity.journal_id,
        installation: identity.installation,
        config,
        tournament: structure.id().to_owned(),
    };
    let played = play(&desk, &structure, &text, &options).await;
    server.stop().await?;
    played
}

/// The controller and who signs.
struct Desk {
    channel: Channel,
    journal_id: String,
    /// What the journal's first entry names as its predecessor (docs/journal.md).
    installation: String,
    config: pozo_server::config::Config,
    tournament: String,
}

impl Desk {
    fn sign(&self, key: &str, purpose: pozo_proto::Purpose, payload: Vec<u8>) -> anyhow::Result<pb::Envelope> {
        let secret = &self.config.keys.get(key).with_context(|| format!("the example key {key}"))?.secret;
        Ok(pozo_proto::sign(key, secret, purpose, &self.journal_id, payload))
    }

    async fn submit(&self, key: &str, op: Op) -> anyhow::Result<Result<pb::TournamentReply, tonic::Status>> {
        let payload = pb::TournamentCommand { command: Some(op) }.encode_to_vec();
        let envelope = self.sign(key, pozo_proto::Purpose::TournamentCommand, payload)?;
        let mut service = pb::tournaments_client::TournamentsClient::new(self.channel.clone());
        Ok(service.submit(envelope).await.map(tonic::Response::into_inner))
    }

    /// An operation that must be done: the tournament after it.
    async fn ok(&self, key: &str, op: Op) -> anyhow::Result<pb::TournamentView> {
        let shown = format!("{op:?}");
        match self.submit(key, op).await? {
            Ok(reply) => reply.tournament.context("the tournament after it"),
            Err(status) => bail!("{shown} refused: {:?} {}", status.code(), status.message()),
        }
    }

    /// An operation that must be refused with `code`.
    async fn refused(&self, key: &str, op: Op, code: tonic::Code) -> anyhow::Result<()> {
        let shown = format!("{op:?}");
        match self.submit(key, op).await? {
            Ok(_) => bail!("{shown} was done: it should have been refused"),
            Err(status) if status.code() == code => Ok(()),
            Err(status) => bail!("{shown}: refused with {:?} ({}), not {code:?}", status.code(), status.message()),
        }
    }

    async fn view(&self) -> anyhow::Result<pb::TournamentView> {
        let list = Op::List(pb::ListTournaments { tournament_id: self.tournament.clone() });
        let envelope = self.sign(
            DIRECTOR,
            pozo_proto::Purpose::TournamentCommand,
            pb::TournamentCommand { command: Some(list) }.encode_to_vec(),
        )?;
        let mut service = pb::tournaments_client::TournamentsClient::new(self.channel.clone());
        service.list(envelope).await?.into_inner().tournaments.pop().context("the tournament")
    }

    /// The structure proposed by one supervisor and approved by another (the two-person door).
    async fn set_up(&self, text: &str) -> anyhow::Result<()> {
        let change = |key: &str, command: pb::change_command::Command| {
            self.sign(key, pozo_proto::Purpose::ChangeCommand, pb::ChangeCommand { command: Some(command) }.encode_to_vec())
        };
        let mut changes = pb::changes_client::ChangesClient::new(self.channel.clone());
        let propose = pb::change_command::Command::Propose(pb::ProposeChange {
            reason: "Torneo simulado".into(),
            authorisation: "pozo-sim".into(),
            what: Some(pb::propose_change::What::Tournament(pb::TournamentStructure { text: text.to_owned() })),
        });
        let proposal = changes.propose(change(DIRECTOR, propose)?).await.context("the structure proposed")?.into_inner();
        let approve = pb::change_command::Command::Approve(pb::ApproveChange { proposal_id: proposal.proposal_id });
        changes.approve(change(APPROVER, approve)?).await.context("the structure approved")?;
        Ok(())
    }
}

/// A player of the simulation.
#[derive(Clone, Debug)]
struct Player {
    order: u32,
    name: String,
    document: String,
}

fn purchase(tournament: &str, item: Item, order: u32, player: &Player, price: Money) -> Op {
    Op::Purchase(pb::TournamentPurchase {
        tournament_id: tournament.into(),
        item: item.code().into(),
        order,
        player_name: player.name.clone(),
        document: Some(pb::IdentityDocument { kind: "DNI".into(), number: player.document.clone() }),
        amount: Some(pb::Amount { value: price.to_string() }),
    })
}

fn prize(tournament: &str, player: u32, document: &str) -> pb::TournamentPrize {
    pb::TournamentPrize {
        tournament_id: tournament.into(),
        player,
        document: Some(pb::IdentityDocument { kind: "DNI".into(), number: document.into() }),
    }
}

fn amount(value: &Option<pb::Amount>) -> Money {
    value.as_ref().and_then(|a| a.value.parse().ok()).unwrap_or(Money::ZERO)
}

fn shown(value: &Option<pb::Amount>) -> String {
    value.as_ref().map(|a| a.value.clone()).unwrap_or_default()
}

/// `n` tables of `seats` seats each, named T1, T2, …
fn tables(n: u32, seats: u32) -> Vec<pb::TournamentTable> {
    (1..=n).map(|t| pb::TournamentTable { table: format!("T{t}"), seats: (1..=seats).collect() }).collect()
}

/// A seat draw's line checked as an inspector would, offline: the nonce opens the commitment
/// journaled before the draw, and gives the seating claimed (art. 11, 15, 88; Anexo IV 8.1).
pub fn check_draw(tournament: &str, line: &pb::TournamentSeatDrawLine) -> Result<(), String> {
    let reason = line.reason.parse().map_err(|error| format!("reason: {error}"))?;
    let head = SeatDrawHead { tournament: tournament.into(), draw: line.draw, reason };
    let bytes = |hex_text: &str, what: &str| -> Result<[u8; 32], String> {
        hex::decode(hex_text).ok().and_then(|bytes| bytes.try_into().ok()).ok_or_else(|| format!("{what}: not 32 bytes of hex"))
    };
    let commitment = bytes(&line.commitment, "commitment")?;
    let nonce = bytes(&line.nonce, "nonce")?;
    let players: Vec<PlayerRef> = line.players.iter().map(|order| PlayerRef { order: u64::from(*order) }).collect();
    let tables: Vec<TableSeats> =
        line.tables.iter().map(|t| TableSeats { table: t.table.as_str().into(), seats: t.seats.clone() }).collect();
    let claimed: Vec<Seating> = line
        .seating
        .iter()
        .map(|s| Seating { order: u64::from(s.order), table: s.table.as_str().into(), seat: s.seat })
        .collect();
    seats::check(&head, &commitment, &nonce, &players, &tables, &claimed).map_err(|error| error.to_string())?;
    let done = line.by.as_ref().map_or(0, |by| by.journal_sequence);
    if line.committed_at == 0 || line.committed_at >= done {
        return Err(format!("committed at entry {}, not before the draw (entry {done})", line.committed_at));
    }
    Ok(())
}

/// The tables a number of players needs.
fn tables_for(players: u32, seats: u32) -> u32 {
    players.div_ceil(seats).max(1)
}

async fn play(desk: &Desk, structure: &Structure, text: &str, options: &Options) -> anyhow::Result<Report> {
    let t = desk.tournament.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut refused = 0u32;
    desk.set_up(text).await?;

    // Names and documents drawn from the seed; documents unique.
    let mut documents = BTreeSet::new();
    let mut person = |rng: &mut ChaCha8Rng, order: u32| loop {
        let document = rng.random_range(20_000_000u32..50_000_000).to_string();
        if documents.insert(document.clone()) {
            let name = format!(
                "{} {}",
                FIRST_NAMES[rng.random_range(0..FIRST_NAMES.len())],
                LAST_NAMES[rng.random_range(0..LAST_NAMES.len())]
            );
            return Player { order, name, document };
        }
    };

    // Res. 123/2013 Anexo IV 1.2, 1.3: registration, one buy-in each, one by one, each its order number.
    let buy_in = structure.buy_in().price;
    let mut next_order = 0u32;
    let mut entrants: BTreeMap<u32, Player> = BTreeMap::new();
    let (mut buy_ins, mut rebuys, mut add_ons, mut refunds) = (0u32, 0u32, 0u32, 0u32);
    for _ in 0..options.players {
        next_order += 1;
        let player = person(&mut rng, next_order);
        desk.ok(CASHIER, purchase(&t, Item::BuyIn, player.order, &player, buy_in)).await?;
        buy_ins += 1;
        entrants.insert(player.order, player);
    }
    // Res. 123/2013 Anexo I art. 1: a second buy-in of the same document is refused (one each).
    let first = entrants.values().next().cloned().context("a player")?;
    desk.refused(CASHIER, purchase(&t, Item::BuyIn, next_order + 1, &first, buy_in), tonic::Code::AlreadyExists).await?;
    refused += 1;
    // Res. 123/2013 Anexo IV 1.4: some players ask for their money back before the close; others
    // take their seats.
    let asked = rng.random_range(1..=(options.players / 10).clamp(1, 4));
    for _ in 0..asked {
        let orders: Vec<u32> = entrants.keys().copied().collect();
        let order = orders[rng.random_range(0..orders.len())];
        desk.ok(CASHIER, Op::Refund(pb::TournamentRefund { tournament_id: t.clone(), order })).await?;
        entrants.remove(&order);
        refunds += 1;
        next_order += 1;
        let player = person(&mut rng, next_order);
        desk.ok(CASHIER, purchase(&t, Item::BuyIn, player.order, &player, buy_in)).await?;
        buy_ins += 1;
        entrants.insert(player.order, player);
    }
    // Res. 123/2013 Anexo I art. 1 item 6: rebuys while registration is open.
    let mut bought: BTreeMap<(u32, Item), u32> = BTreeMap::new();
    let mut buy = async |rng: &mut ChaCha8Rng, item: Item, chance: f64, next_order: &mut u32| -> anyhow::Result<u32> {
        let Some(offer) = structure.offer(item) else { return Ok(0) };
        let mut count = 0;
        for player in entrants.values() {
            let had = bought.get(&(player.order, item)).copied().unwrap_or(0);
            if had < offer.per_player && rng.random_bool(chance) {
                *next_order += 1;
                desk.ok(CASHIER, purchase(&t, item, *next_order, player, offer.price)).await?;
                bought.insert((player.order, item), had + 1);
                count += 1;
            }
        }
        Ok(count)
    };
    rebuys += buy(&mut rng, Item::Rebuy, 0.25, &mut next_order).await?;

    // Res. 123/2013 art. 65: registration closes; no more buy-ins, no more refunds (Anexo IV 1.4).
    let view = desk.ok(DIRECTOR, Op::CloseRegistration(pb::TournamentClose { tournament_id: t.clone() })).await?;
    ensure!(view.entrants == options.players, "{} entrants at the close, not {}", view.entrants, options.players);
    let last = entrants.keys().next_back().copied().context("a player")?;
    desk.refused(
        CASHIER,
        Op::Refund(pb::TournamentRefund { tournament_id: t.clone(), order: last }),
        tonic::Code::FailedPrecondition,
    )
    .await?;
    refused += 1;

    // Res. 123/2013 art. 11: the first seat draw.
    let seats_per_table = if structure.kind() == Kind::SitAndGo { structure.max_entrants() } else { SEATS_PER_TABLE };
    let mut in_tables = tables_for(options.players, seats_per_table);
    draw(desk, "inicio", in_tables, seats_per_table).await?;

    // Res. 123/2013 Anexo I art. 1 items 6, 7: more rebuys and the add-ons until the period closes.
    rebuys += buy(&mut rng, Item::Rebuy, 0.15, &mut next_order).await?;
    add_ons += buy(&mut rng, Item::AddOn, 0.5, &mut next_order).await?;
    let view = desk.ok(DIRECTOR, Op::CloseRebuys(pb::TournamentClose { tournament_id: t.clone() })).await?;
    ensure!(view.pool_fixed, "the pool is fixed once the rebuy period closes (art. 64)");
    // Res. 123/2013 art. 64: the pool fixed, a rebuy after the close is refused.
    if let Some(offer) = structure.offer(Item::Rebuy) {
        desk.refused(
            CASHIER,
            purchase(&t, Item::Rebuy, next_order + 1, &first_active(&entrants)?, offer.price),
            tonic::Code::FailedPrecondition,
        )
        .await?;
        refused += 1;
    }
    let places = view.places.len() as u32;
    let mut view = view;

    // Play: eliminations until one is left.
    let mut seating = seating_of(&view);
    let mut active: Vec<u32> = entrants.keys().copied().collect();
    let (mut hand, mut jornada_two, mut done72, mut done71, mut disqualified) = (0u64, false, false, false, false);
    let multi = structure.kind() == Kind::Multimesa;
    while active.len() > 1 {
        let k = active.len() as u32;
        // Res. 123/2013 Anexo II: a player in the money disqualified, at two left if not before.
        if !disqualified && k == 2 {
            let order = active[rng.random_range(0..active.len())];
            view = disqualify(desk, &t, order).await?;
            break;
        }
        // Res. 123/2013 Anexo IV 7.3.2, art. 88: the first jornada ends at half the field, chips
        // sealed, seats drawn again.
        if multi && !jornada_two && k <= options.players / 2 {
            for order in &active {
                let chips = rng.random_range(1_000u64..200_000);
                desk.ok(
                    DIRECTOR,
                    Op::SealChips(pb::TournamentChipSeal {
                        tournament_id: t.clone(),
                        player: *order,
                        chips,
                        receipt: format!("PR-{:04}", order),
                        jornada: 1,
                    }),
                )
                .await?;
            }
            in_tables = tables_for(k, seats_per_table);
            view = draw(desk, "jornada 2", in_tables, seats_per_table).await?;
            seating = seating_of(&view);
            jornada_two = true;
        }
        // Res. 123/2013 art. 88; Anexo IV 8.1: fewer tables as the field shrinks.
        let fewer = [("tres mesas", 3u32), ("dos mesas", 2), ("mesa final", 1)]
            .into_iter()
            .rfind(|(_, n)| in_tables > *n && k <= n * seats_per_table);
        if let Some((reason, n)) = fewer.filter(|_| multi) {
            in_tables = n;
            view = draw(desk, reason, n, seats_per_table).await?;
            seating = seating_of(&view);
        }
        hand += rng.random_range(1..=12u64);
        // Res. 123/2013 art. 72, 71: two out at once at different tables, art. 72 first, then art. 71.
        let at: BTreeSet<&str> = active.iter().filter_map(|o| seating.get(o).map(String::as_str)).collect();
        // Each kind at least once while two tables or more play (at the latest just before the
        // final table), then now and then.
        let pending = !done72 || !done71;
        let tie = at.len() >= 2
            && k >= 4
            && if pending { k <= seats_per_table + 3 || rng.random_bool(0.3) } else { rng.random_bool(0.08) };
        let out: Vec<u32> = if tie {
            let one = active[rng.random_range(0..active.len())];
            let others: Vec<u32> = active.iter().copied().filter(|o| seating.get(o) != seating.get(&one)).collect();
            vec![one, others[rng.random_range(0..others.len())]]
        } else {
            vec![active[rng.random_range(0..active.len())]]
        };
        let simultaneous = tie && (!done72 || (done71 && rng.random_bool(0.5)));
        let table: Vec<&str> = out.iter().filter_map(|o| seating.get(o).map(String::as_str)).collect();
        view = desk
            .ok(
                DIRECTOR,
                Op::Eliminate(pb::TournamentElimination {
                    tournament_id: t.clone(),
                    players: out.clone(),
                    table: table.join(" y "),
                    hand,
                    simultaneous,
                }),
            )
            .await?;
        if tie {
            if simultaneous { done72 = true } else { done71 = true }
        }
        active.retain(|o| !out.contains(o));
        // Res. 123/2013 Anexo II: one out in the money, not yet paid, disqualified while others play on.
        let in_money = out.len() == 1 && k <= places;
        if !disqualified && in_money && active.len() >= 2 {
            view = disqualify(desk, &t, out[0]).await?;
            disqualified = true;
        }
    }
    ensure!(view.phase == "FINALIZADO", "the tournament is over when one is left, not {}", view.phase);

    // Res. 123/2013 art. 66: prizes paid against identity; another document refused, then his own.
    let (mut at_cashier, mut through_office) = (0u32, 0u32);
    let mut wrong_tried = false;
    let due: Vec<(u32, Money)> = view.players.iter().map(|p| (p.order, amount(&p.due))).collect();
    for (order, owed) in due {
        let player = entrants.get(&order).context("an entrant")?;
        let standing = view.players.iter().find(|p| p.order == order).map(|p| p.standing.clone()).unwrap_or_default();
        if standing == "descalificado" {
            desk.refused(CASHIER, Op::PayPrize(prize(&t, order, &player.document)), tonic::Code::FailedPrecondition).await?;
            refused += 1;
            continue;
        }
        if owed == Money::ZERO {
            continue;
        }
        if !wrong_tried {
            let other = entrants.values().find(|p| p.order != order).context("another player")?;
            desk.refused(CASHIER, Op::PayPrize(prize(&t, order, &other.document)), tonic::Code::PermissionDenied).await?;
            refused += 1;
            wrong_tried = true;
        }
        let after = desk.ok(CASHIER, Op::PayPrize(prize(&t, order, &player.document))).await?;
        let payment = after.players.iter().find(|p| p.order == order).map(|p| p.payment.clone()).unwrap_or_default();
        if payment == "PENDIENTE DE PAGO" {
            // Another person of the Venta-Pagos office confirms (not who asked for it).
            desk.refused(CASHIER, Op::ConfirmPrize(prize(&t, order, &player.document)), tonic::Code::PermissionDenied).await?;
            refused += 1;
            desk.ok(OFFICE, Op::ConfirmPrize(prize(&t, order, &player.document))).await?;
            through_office += 1;
        } else {
            at_cashier += 1;
        }
    }

    // The books, read back.
    let view = desk.view().await?;
    let books = view.books.clone().context("the books")?;
    let mut problems = Vec::new();
    let (sold, refunded, prizes, house) =
        (amount(&books.sold), amount(&books.refunds), amount(&books.prizes), amount(&books.house));
    let (paid, owed) = (amount(&books.paid), amount(&books.owed));
    if !books.tied {
        problems.push(format!("the server's books do not tie: {}", books.untied));
    }
    if sold != prizes + house + refunded {
        problems.push(format!("collected {sold} ≠ prizes {prizes} + house {house} + refunds {refunded}"));
    }
    if paid != prizes || owed != Money::ZERO {
        problems.push(format!("paid {paid} of prizes {prizes}, {owed} owed"));
    }
    for player in &view.players {
        if amount(&player.due) > Money::ZERO && !player.payment.starts_with("pagado") {
            problems.push(format!("player {}: {} due, `{}`", player.order, shown(&player.due), player.payment));
        }
    }
    // Res. 123/2013 art. 62; Anexo IV 6: the pool computed here from what was booked, apart from the server:
    // each item's net collection times its share, rounded up to the payout unit.
    let unit = structure.payout_unit().decimal();
    let mut expected_sold = rust_decimal::Decimal::ZERO;
    let mut exact_prizes = rust_decimal::Decimal::ZERO;
    for (item, bought, returned) in [(Item::BuyIn, buy_ins, refunds), (Item::Rebuy, rebuys, 0), (Item::AddOn, add_ons, 0)] {
        if let Some(offer) = structure.offer(item) {
            let price = offer.price.decimal();
            expected_sold += price * rust_decimal::Decimal::from(bought);
            exact_prizes += price * rust_decimal::Decimal::from(bought - returned) * offer.to_prizes;
        }
    }
    let expected_prizes = Money::from((exact_prizes / unit).ceil() * unit);
    if sold != Money::from(expected_sold) || prizes != expected_prizes {
        problems.push(format!(
            "the server's sold {sold} and prizes {prizes}, not the {expected_sold} and {expected_prizes} booked (art. 62)"
        ));
    }
    let sum_places: Money = view.places.iter().map(|p| amount(&Some(p.clone()))).sum();
    if sum_places != prizes {
        problems.push(format!("the places add up to {sum_places}, not the prizes {prizes} (art. 65)"));
    }
    let draws: Vec<Draw> = view
        .seat_draws
        .iter()
        .map(|line| Draw {
            draw: line.draw,
            reason: line.reason.clone(),
            players: line.players.len(),
            tables: line.tables.len(),
            checked: check_draw(&t, line),
        })
        .collect();
    for draw in &draws {
        if let Err(problem) = &draw.checked {
            problems.push(format!("seat draw {} ({}): {problem}", draw.draw, draw.reason));
        }
    }
    let journal = read_journal(desk, &view).await?;
    problems.extend(journal.problems);
    let ties = view
        .eliminations
        .iter()
        .filter(|e| e.players.len() > 1)
        .map(|e| (e.players.clone(), e.first, e.last, if e.tie.contains("72") { "art. 72" } else { "art. 71" }.to_owned()))
        .collect();
    let disqualified = view.disqualifications.first().map(|d| (d.player, d.position, shown(&d.forfeited), d.shared_to.clone()));
    let mut finishes: Vec<Finish> = view
        .players
        .iter()
        .map(|p| Finish {
            order: p.order,
            player_name: p.player_name.clone(),
            standing: p.standing.clone(),
            position: p.position,
            due: shown(&p.due),
            payment: p.payment.clone(),
        })
        .collect();
    finishes.sort_by_key(|f| (f.position, f.order));
    Ok(Report {
        tournament: t,
        name: view.name.clone(),
        seed: options.seed,
        entrants: view.entrants,
        buy_ins,
        rebuys,
        add_ons,
        refunds,
        refused_as_expected: refused,
        places: view.places.iter().map(|p| p.value.clone()).collect(),
        sold: shown(&books.sold),
        refunded: shown(&books.refunds),
        prizes: shown(&books.prizes),
        house: shown(&books.house),
        paid: shown(&books.paid),
        owed: shown(&books.owed),
        tied: books.tied,
        untied: books.untied.clone(),
        ties,
        disqualified,
        seals: view.seals.len(),
        draws,
        paid_at_cashier: at_cashier,
        paid_through_office: through_office,
        finishes,
        journal_entries: journal.entries,
        journal_tournament_ops: journal.tournament_ops,
        journal_seat_commits: journal.seat_commits,
        problems,
    })
}

fn first_active(entrants: &BTreeMap<u32, Player>) -> anyhow::Result<Player> {
    entrants.values().next().cloned().context("a player")
}

/// The director asks for a seat draw over `n` tables; the controller reveals the nonce it committed to.
async fn draw(desk: &Desk, reason: &str, n: u32, seats: u32) -> anyhow::Result<pb::TournamentView> {
    desk.ok(
        DIRECTOR,
        Op::DrawSeats(pb::TournamentSeatDraw {
            tournament_id: desk.tournament.clone(),
            reason: reason.into(),
            tables: tables(n, seats),
        }),
    )
    .await
}

async fn disqualify(desk: &Desk, tournament: &str, order: u32) -> anyhow::Result<pb::TournamentView> {
    desk.ok(
        DIRECTOR,
        Op::Disqualify(pb::TournamentDisqualification {
            tournament_id: tournament.into(),
            player: order,
            reason: "Colusión comprobada por el director (simulación)".into(),
        }),
    )
    .await
}

/// Each player's table in the last seat draw.
fn seating_of(view: &pb::TournamentView) -> BTreeMap<u32, String> {
    view.seat_draws.last().map(|line| line.seating.iter().map(|s| (s.order, s.table.clone())).collect()).unwrap_or_default()
}

/// The journal as the audit reads it.
struct JournalRead {
    entries: u64,
    tournament_ops: u64,
    seat_commits: u64,
    problems: Vec<String>,
}

/// Reads the whole journal with the audit's own reader (`crate::journal`, written from
/// docs/journal.md): every link's hash, every tournament operation and seat commitment decoded;
/// each seat draw shown was committed in an earlier `seat_commit` entry with the same commitment
/// and revealed by a `draw_seats` entry with the same nonce (Res. 123/2013 art. 11, 15, 88;
/// Anexo IV 8.1), and every purchase shown is one `purchase` entry (Anexo IV 1.3).
async fn read_journal(desk: &Desk, view: &pb::TournamentView) -> anyhow::Result<JournalRead> {
    use crate::journal::{Chain, Command, TournamentOp};
    let secret = &desk.config.keys.get(DIRECTOR).context("the director's key")?.secret;
    let credential = pozo_proto::ReadCredential::new(DIRECTOR, secret, &desk.journal_id);
    let mut reports =
        pb::reports_client::ReportsClient::with_interceptor(desk.channel.clone(), credential).max_decoding_message_size(64 << 20);
    let mut chain = Chain::new(&desk.installation);
    let (mut tournament_ops, mut purchases) = (0u64, 0usize);
    let mut commits: BTreeMap<u64, (u64, String)> = BTreeMap::new();
    let mut reveals: BTreeMap<u64, String> = BTreeMap::new();
    let mut problems = Vec::new();
    'pages: loop {
        let page = reports.entries(pb::JournalEntriesRequest { after: chain.entries(), limit: 0 }).await?.into_inner();
        if page.entries.is_empty() {
            break;
        }
        for entry in page.entries {
            let record = match chain.next(entry.sequence, &entry.previous_hash, &entry.hash, entry.record_json.as_bytes()) {
                Ok(record) => record,
                Err(broken) => {
                    problems.push(broken.to_string());
                    break 'pages;
                }
            };
            match record.command {
                Command::SeatCommit { tournament, draw, commitment, .. } if tournament == desk.tournament => {
                    commits.insert(draw, (record.sequence, commitment));
                }
                Command::Tournament { op, .. } => {
                    tournament_ops += 1;
                    match op {
                        TournamentOp::Purchase { tournament, .. } if tournament == desk.tournament => purchases += 1,
                        TournamentOp::DrawSeats { tournament, nonce, .. } if tournament == desk.tournament => {
                            reveals.insert(record.sequence, nonce);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
    for line in &view.seat_draws {
        let done = line.by.as_ref().map_or(0, |by| by.journal_sequence);
        match commits.get(&line.draw) {
            Some((at, commitment)) if *at == line.committed_at && *at < done && *commitment == line.commitment => {}
            other => problems.push(format!("seat draw {}: the journal's commitment is {other:?}", line.draw)),
        }
        if reveals.get(&done) != Some(&line.nonce) {
            problems.push(format!("seat draw {}: entry {done} of the journal does not reveal its nonce", line.draw));
        }
    }
    if purchases != view.purchases.len() {
        problems.push(format!("{purchases} purchases in the journal, {} shown (Anexo IV 1.3)", view.purchases.len()));
    }
    Ok(JournalRead { entries: chain.entries(), tournament_ops, seat_commits: commits.len() as u64, problems })
}
