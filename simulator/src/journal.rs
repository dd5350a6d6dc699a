//! The journal as `docs/journal.md` describes it, read by a decoder of the audit's own.
//!
//! The audit must not trust the server's types: a field the server's encoder and decoder
//! both got wrong would look right to a reader built from them. This module is written
//! from the document alone: its own record types, its own hash chain, and it refuses
//! what the document does not describe (an unknown kind, op or field, an amount that is
//! not a decimal string), so a change of the format that skipped the document fails here.

use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};
use sha2::{Digest, Sha256};

/// A SHA-256 hash.
pub type Hash = [u8; 32];

/// The hash entry 1 names as its predecessor: SHA-256("pozo.v1 genesis" ‖ 0x00 ‖ installation).
pub fn genesis_previous(installation: &str) -> Hash {
    Sha256::new().chain_update(b"pozo.v1 genesis\0").chain_update(installation.as_bytes()).finalize().into()
}

/// An entry's hash: SHA-256(previous entry's hash ‖ the record's bytes as stored).
pub fn entry_hash(previous: &Hash, record: &[u8]) -> Hash {
    Sha256::new().chain_update(previous).chain_update(record).finalize().into()
}

/// One entry's record.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub sequence: u64,
    pub time_ms: u64,
    pub command: Command,
}

/// The ten kinds of command, told apart by `kind`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    Genesis {
        config_hash: String,
        texts: Vec<(String, String)>,
        #[serde(default)]
        keys: Vec<Key>,
        #[serde(default)]
        by: String,
        #[serde(default)]
        build: Option<Build>,
    },
    Table {
        table_id: String,
        sequence: u64,
        payload_sha256: String,
        op: TableOp,
        card: Option<Card>,
    },
    Office {
        key_id: String,
        operator_name: String,
        op: OfficeOp,
    },
    Keys {
        keys: Vec<Key>,
        by: String,
    },
    Change {
        key_id: String,
        op: ChangeOp,
    },
    Build {
        build: Build,
        by: String,
    },
    /// A mystery level's draw: its head and the commitment to its trigger and nonce, the two
    /// sealed under the journal key (docs/journal.md, "draw").
    Draw {
        pool: String,
        level: String,
        cycle: u64,
        #[serde(deserialize_with = "decimal_string")]
        from: Decimal,
        #[serde(deserialize_with = "decimal_string")]
        ceiling: Decimal,
        commitment: String,
        sealed: String,
    },
    /// A mystery level's hit: the trigger and nonce revealed (docs/journal.md, "reveal").
    Reveal {
        pool: String,
        level: String,
        cycle: u64,
        #[serde(deserialize_with = "decimal_string")]
        trigger: Decimal,
        nonce: String,
        after: u64,
        #[serde(default)]
        eligible: Vec<Seat>,
    },
    /// The controller's commitment to a tournament's next seat draw (Res. 123/2013 art. 11, 15,
    /// 88; Anexo IV 8.1): the nonce revealed by the `draw_seats` it opens, sealed here.
    SeatCommit {
        tournament: String,
        draw: u64,
        commitment: String,
        sealed: String,
    },
    /// An operation on a poker tournament (Res. 123/2013), with who did it.
    Tournament {
        key_id: String,
        operator_name: String,
        op: TournamentOp,
    },
}

/// A tournament operation, told apart by `op`; each names its `tournament`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum TournamentOp {
    /// A purchase booked one by one (Res. 123/2013 Anexo IV 1.2, 1.3): the transaction code
    /// `item` is `IN`, `RB` or `AD`; the document masked, fingerprinted and sealed.
    Purchase {
        tournament: String,
        item: Item,
        order: u32,
        player_name: String,
        document_masked: String,
        document_fingerprint: String,
        document_sealed: String,
        #[serde(deserialize_with = "decimal_string")]
        amount: Decimal,
    },
    /// Refunded before registration closes (Anexo IV 1.4).
    Refund { tournament: String, order: u32 },
    /// Registration closed (art. 65).
    CloseRegistration { tournament: String },
    /// The rebuy and add-on period over: the pool fixed (art. 64).
    CloseRebuys { tournament: String },
    /// Players out (art. 71, 72 when several).
    Eliminate { tournament: String, players: Vec<u32>, table: String, hand: u64, simultaneous: bool },
    /// A player disqualified (Anexo II).
    Disqualify { tournament: String, player: u32, reason: String },
    /// Chips counted and sealed against a receipt (Anexo IV 7.3.2).
    SealChips { tournament: String, player: u32, chips: u64, receipt: String, jornada: u32 },
    /// A prize paid (or, over the Venta-Pagos threshold, asked for) against identity (art. 66).
    PayPrize { tournament: String, player: u32, document_fingerprint: String },
    /// A prize asked for at the cashier, confirmed by the Venta-Pagos office (art. 66).
    ConfirmPrize { tournament: String, player: u32, document_fingerprint: String },
    /// Tables and seats drawn with the committed nonce (art. 11, 15, 88; Anexo IV 8.1).
    DrawSeats {
        tournament: String,
        reason: String,
        tables: Vec<TournamentTable>,
        #[serde(default)]
        nonce: String,
    },
}

/// A tournament's transaction code (Res. 123/2013 Anexo IV 1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Item {
    #[serde(rename = "IN")]
    BuyIn,
    #[serde(rename = "RB")]
    Rebuy,
    #[serde(rename = "AD")]
    AddOn,
}

/// A table of a seat draw and its seats.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentTable {
    pub table: String,
    pub seats: Vec<u32>,
}

/// A seat of a link: a hot seat's candidate.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    pub table: String,
    pub seat: u32,
}

/// A draw's commitment as docs/journal.md ("draw") defines it: SHA-256 of "pozo.v1.mystery" 0,
/// the pool and the level each as its length (8 bytes, big-endian) and its UTF-8 bytes, the
/// cycle (8 bytes), `from`, `ceiling` and the trigger each as its centavos (a signed 16-byte
/// integer, big-endian), and the 32-byte nonce. `None` for an amount not in whole centavos.
pub fn commitment(pool: &str, level: &str, cycle: u64, amounts: [Decimal; 3], nonce: &[u8; 32]) -> Option<Hash> {
    let mut hash = Sha256::new();
    hash.update(b"pozo.v1.mystery\0");
    for text in [pool, level] {
        hash.update((text.len() as u64).to_be_bytes());
        hash.update(text.as_bytes());
    }
    hash.update(cycle.to_be_bytes());
    for amount in amounts {
        let centavos = amount.checked_mul(Decimal::ONE_HUNDRED)?;
        if !centavos.fract().is_zero() {
            return None;
        }
        let centavos: i128 = centavos.trunc().mantissa() / 10_i128.pow(centavos.trunc().scale());
        hash.update(centavos.to_be_bytes());
    }
    hash.update(nonce);
    Some(hash.finalize().into())
}

/// A build that wrote to the journal: its version and the SHA-256 of its executable.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    pub version: String,
    pub sha256: String,
}

/// A change or a money movement: proposed, approved or withdrawn (docs/journal.md).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum ChangeOp {
    Propose { proposed: Proposed, reason: String, authorisation: String },
    Approve { proposal_id: String },
    Withdraw { proposal_id: String, reason: String },
}

/// What a proposal asks for, told apart by `what`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case", deny_unknown_fields)]
pub enum Proposed {
    Configuration {
        files: Vec<(String, String)>,
        #[serde(default)]
        effect: Option<Effect>,
    },
    Transfer {
        from: String,
        to: String,
        #[serde(deserialize_with = "decimal_string")]
        amount: Decimal,
    },
    RetirePool {
        pool: String,
        to: String,
    },
    Adjust {
        pool: String,
        #[serde(deserialize_with = "decimal_string")]
        amount: Decimal,
    },
    /// A poker tournament set up: one `[[torneo]]` (Res. 123/2013 Anexo I art. 1).
    Tournament {
        text: String,
    },
}

/// When a money setting of a live pool takes effect, told apart by `at`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "at", rename_all = "snake_case", deny_unknown_fields)]
pub enum Effect {
    NextTopPrize,
    Jornada { jornada: String },
}

/// What a table agent asked, told apart by `op`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum TableOp {
    OpenTable,
    CloseTable,
    SellCredits {
        seat: u32,
        credits: u32,
    },
    RefundCredits {
        seat: u32,
    },
    Press {
        seat: u32,
        #[serde(default)]
        credits: Option<u32>,
    },
    StartRound,
    EnterPrize {
        seat: u32,
        code: String,
        high: Option<String>,
    },
    Accept,
    FinishRound,
    VoidBet {
        seat: u32,
    },
    CarryBets,
    RefundBet {
        seat: u32,
    },
    LastRound,
    RequestGoldTurn,
    CloseSeat {
        seat: u32,
    },
    OpenSeat {
        seat: u32,
    },
    PlayerAbsent {
        seat: u32,
    },
    PlayerReturns {
        seat: u32,
    },
    GrillosPlayed {
        seat: u32,
        code: String,
        played: u32,
    },
    AnnulSeries {
        seat: u32,
        #[serde(default)]
        series: Option<String>,
    },
    CustodyBet {
        seat: u32,
    },
    CustodyPrize {
        seat: u32,
    },
    ReleaseCustody {
        custody_id: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    pub rank: String,
    pub suit: String,
}

/// A Venta-Pagos decision, told apart by `op`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum OfficeOp {
    Confirm { order_id: String, form_number: String, expect: Facts },
    Reject { order_id: String, reason: String, expect: Facts },
}

/// What the operator was shown of an order.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    pub pool: String,
    pub table_id: String,
    pub seat: u32,
    pub round: u64,
    pub code: String,
    #[serde(deserialize_with = "decimal_string")]
    pub amount: Decimal,
}

/// A key as journaled: never its secret.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    pub id: String,
    pub role: String,
    pub table: Option<String>,
    pub name: String,
    pub fingerprint: String,
}

/// Amounts are decimal strings, never JSON numbers (docs/journal.md).
fn decimal_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Decimal, D::Error> {
    let text = String::deserialize(deserializer)?;
    text.parse().map_err(|_| serde::de::Error::custom(format!("amount `{text}` is not a decimal")))
}

/// Parses a record's bytes.
pub fn decode(record: &[u8]) -> Result<Record, serde_json::Error> {
    serde_json::from_slice(record)
}

/// A break in the journal read in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Break {
    pub sequence: u64,
    pub problem: String,
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "journal entry {}: {}", self.sequence, self.problem)
    }
}

/// The journal read in order from entry 1, checked link by link against the hashes the
/// reader computes itself, never against what the server says a hash is.
pub struct Chain {
    previous: Hash,
    entries: u64,
}

impl Chain {
    /// A chain about to read entry 1 of `installation`'s journal.
    pub fn new(installation: &str) -> Chain {
        Chain { previous: genesis_previous(installation), entries: 0 }
    }

    /// How many entries were read.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The hash of the last entry read (the genesis hash before any).
    pub fn tip(&self) -> Hash {
        self.previous
    }

    /// Reads the next entry: its sequence must follow, the predecessor it names must be the
    /// hash of the entry read before, its hash must be `SHA-256(previous ‖ record)`, and its
    /// record must decode and carry the same sequence.
    pub fn next(&mut self, sequence: u64, previous_hex: &str, hash_hex: &str, record: &[u8]) -> Result<Record, Break> {
        let fail = |problem: String| Break { sequence, problem };
        if sequence != self.entries + 1 {
            return Err(fail(format!("follows entry {}", self.entries)));
        }
        if previous_hex != hex::encode(self.previous) {
            return Err(fail("names a predecessor other than the entry before it".into()));
        }
        let hash = entry_hash(&self.previous, record);
        if hash_hex != hex::encode(hash) {
            return Err(fail("its hash is not SHA-256 of the previous hash and its record".into()));
        }
        let decoded = decode(record).map_err(|error| fail(format!("not a record as docs/journal.md describes: {error}")))?;
        if decoded.sequence != sequence {
            return Err(fail(format!("its record says sequence {}", decoded.sequence)));
        }
        self.previous = hash;
        self.entries = sequence;
        Ok(decoded)
    }
}

/// The press a record is, as (table, seat, table sequence); `None` for any other record.
pub fn press(record: &Record) -> Option<(String, u32, u64)> {
    match &record.command {
        Command::Table { table_id, sequence, op: TableOp::Press { seat, .. }, .. } => Some((table_id.clone(), *seat, *sequence)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! The server's encoder against this decoder: two implementations of one document.

    use super::*;
    use pozo_engine::money;
    use pozo_server::journal::{Identity, Journal, Record as ServerRecord};
    use pozo_server::state::draw::{DrawHead, SeatAt};
    use pozo_server::state::{self as server, OfficeCommand, TableCommand};
    use std::collections::BTreeSet;

    fn encoded(previous: &Hash, command: server::Command, sequence: u64) -> (Vec<u8>, Hash) {
        let (value, hash) = Journal::encode(previous, &ServerRecord { sequence, time_ms: 1_764_050_400_123, command });
        (value[32..].to_vec(), hash)
    }

    fn table(op: server::TableOp, card: Option<server::Card>) -> server::Command {
        server::Command::Table(TableCommand {
            table_id: "R1".into(),
            sequence: 7,
            payload_sha256: "ab".repeat(32),
            op,
            card,
            inspector: None,
        })
    }

    fn facts() -> server::OrderFacts {
        server::OrderFacts {
            pool: "iplyc-ruleta".into(),
            table_id: "R1".into(),
            seat: 3,
            round: 12,
            code: "GRILLO_ORO".into(),
            amount: money!(8329.50),
        }
    }

    #[test]
    fn every_kind_the_server_writes_reads_back_with_the_same_facts_and_hashes() {
        use server::TableOp as Op;
        let identity = Identity::generate();
        let config = pozo_server::config::Config::embedded();
        let key = pozo_server::config::KeyRecord {
            id: "caja-1".into(),
            role: pozo_server::config::Role::Office,
            table: None,
            name: "Ana".into(),
            fingerprint: "0011223344556677".into(),
        };
        let commands = vec![
            pozo_server::writer::genesis(&config, 1, "operador").command,
            table(Op::OpenTable, None),
            table(Op::CloseTable, None),
            table(Op::SellCredits { seat: 2, credits: 20 }, None),
            table(Op::RefundCredits { seat: 2 }, None),
            table(Op::Press { seat: 4, credits: None }, None),
            table(Op::Press { seat: 5, credits: Some(3) }, None),
            table(Op::StartRound, Some(server::Card { rank: "A".into(), suit: "picas".into() })),
            table(Op::EnterPrize { seat: 4, code: "COLOR".into(), high: Some("ESCALERA".into()) }, None),
            table(Op::Accept, None),
            table(Op::FinishRound, None),
            table(Op::VoidBet { seat: 1 }, None),
            table(Op::CarryBets, None),
            table(Op::RefundBet { seat: 1 }, None),
            table(Op::LastRound, None),
            table(Op::RequestGoldTurn, None),
            table(Op::CloseSeat { seat: 2 }, None),
            table(Op::OpenSeat { seat: 2 }, None),
            table(Op::PlayerAbsent { seat: 3 }, None),
            table(Op::PlayerReturns { seat: 3 }, None),
            table(Op::GrillosPlayed { seat: 3, code: "GRILLO_BRONCE".into(), played: 2 }, None),
            table(Op::AnnulSeries { seat: 3, series: None }, None),
            table(Op::AnnulSeries { seat: 3, series: Some("SE-000007".into()) }, None),
            table(Op::CustodyBet { seat: 1 }, None),
            table(Op::CustodyPrize { seat: 1 }, None),
            table(Op::ReleaseCustody { custody_id: "CU-000001".into() }, None),
            server::Command::Office(OfficeCommand {
                key_id: "caja-1".into(),
                operator_name: "Ana".into(),
                op: server::OfficeOp::Confirm { order_id: "R1-12-3".into(), form_number: "F-1".into(), expect: facts() },
            }),
            server::Command::Office(OfficeCommand {
                key_id: "caja-1".into(),
                operator_name: "Ana".into(),
                op: server::OfficeOp::Reject { order_id: "R1-12-3".into(), reason: "duplicado".into(), expect: facts() },
            }),
            server::Command::Keys { keys: vec![key.clone()], by: "operador".into() },
            server::Command::Draw(server::DrawCommand { head: head(), commitment: "cd".repeat(32), sealed: "ef".repeat(64) }),
            server::Command::Reveal(server::RevealCommand {
                pool: "mercado-gran-sala".into(),
                level: "Misterioso".into(),
                cycle: 3,
                trigger: money!(20057.31),
                nonce: "07".repeat(32),
                after: 41,
                eligible: vec![SeatAt { table: "B1".into(), seat: 2 }, SeatAt { table: "CP1".into(), seat: 3 }],
            }),
            server::Command::Change(server::ChangeCommand {
                key_id: "sup-carla".into(),
                op: server::ChangeOp::Propose {
                    proposed: server::Proposed::Tournament { text: "[[torneo]]\nid = \"t\"\n".into() },
                    reason: "Torneo semanal".into(),
                    authorisation: "Nota 1".into(),
                },
            }),
            server::Command::SeatCommit(server::SeatCommitCommand {
                tournament: "multimesa-semanal".into(),
                draw: 2,
                commitment: "12".repeat(32),
                sealed: "34".repeat(60),
            }),
        ];
        let commands: Vec<server::Command> = commands.into_iter().chain(tournament_ops().into_iter().map(tournament)).collect();
        let mut chain = Chain::new(&identity.installation);
        assert_eq!(chain.tip(), identity.genesis_previous(), "the genesis hash is the document's");
        let mut previous = identity.genesis_previous();
        let mut records = Vec::new();
        for (sequence, command) in (1_u64..).zip(commands) {
            let (record, hash) = encoded(&previous, command.clone(), sequence);
            let read = chain
                .next(sequence, &hex::encode(previous), &hex::encode(hash), &record)
                .unwrap_or_else(|problem| panic!("{problem}: {}", String::from_utf8_lossy(&record)));
            assert_eq!(read.sequence, sequence);
            assert_eq!(read.time_ms, 1_764_050_400_123);
            assert_eq!(read_kind(&read.command), sent_kind(&command), "{read:?}");
            match (&read.command, &command) {
                (Command::Table { op, card, .. }, server::Command::Table(sent)) => {
                    assert_eq!(format!("{op:?}"), format!("{:?}", sent.op), "the op reads back whole");
                    assert_eq!(
                        card.as_ref().map(|card| (&card.rank, &card.suit)),
                        sent.card.as_ref().map(|card| (&card.rank, &card.suit))
                    );
                }
                (Command::Office { op: OfficeOp::Confirm { expect, .. } | OfficeOp::Reject { expect, .. }, .. }, _) => {
                    assert_eq!(expect.amount, facts().amount.decimal(), "the amount reads back exactly");
                }
                (Command::Keys { keys, .. }, _) => assert_eq!((keys[0].id.as_str(), keys[0].table.as_deref()), ("caja-1", None)),
                (Command::Genesis { texts, .. }, _) => assert!(!texts.is_empty(), "genesis carries the configuration"),
                (Command::Draw { pool, level, cycle, from, ceiling, commitment, sealed }, server::Command::Draw(sent)) => {
                    assert_eq!((pool.as_str(), level.as_str(), *cycle), (sent.head.pool.as_str(), sent.head.level.as_str(), 3));
                    assert_eq!((*from, *ceiling), (sent.head.from.decimal(), sent.head.ceiling.decimal()));
                    assert_eq!((commitment, sealed), (&sent.commitment, &sent.sealed));
                }
                (Command::Reveal { trigger, nonce, after, eligible, .. }, server::Command::Reveal(sent)) => {
                    assert_eq!((*trigger, nonce, *after), (sent.trigger.decimal(), &sent.nonce, 41));
                    let read: Vec<(&str, u32)> = eligible.iter().map(|seat| (seat.table.as_str(), seat.seat)).collect();
                    assert_eq!(read, [("B1", 2), ("CP1", 3)]);
                }
                (Command::Change { op: ChangeOp::Propose { proposed: Proposed::Tournament { text }, .. }, .. }, _) => {
                    assert!(text.starts_with("[[torneo]]"), "the structure reads back whole");
                }
                (Command::SeatCommit { tournament, draw, commitment, sealed }, server::Command::SeatCommit(sent)) => {
                    assert_eq!(
                        (tournament, *draw, commitment, sealed),
                        (&sent.tournament, sent.draw, &sent.commitment, &sent.sealed)
                    );
                }
                (Command::Tournament { key_id, operator_name, op }, server::Command::Tournament(sent)) => {
                    assert_eq!((key_id, operator_name), (&sent.key_id, &sent.operator_name));
                    assert_eq!(tournament_facts(op), sent_tournament_facts(&sent.op), "the op reads back whole");
                }
                (read, sent) => panic!("{read:?} read back from {sent:?}"),
            }
            records.push(read);
            previous = hash;
        }
        assert_eq!(chain.entries(), 33 + tournament_ops().len() as u64);
        assert_eq!(chain.tip(), previous);
        assert_eq!(
            records.iter().filter_map(press).collect::<BTreeSet<_>>(),
            BTreeSet::from([("R1".to_owned(), 4, 7), ("R1".to_owned(), 5, 7)])
        );
    }

    /// Every tournament operation the server journals (docs/journal.md, "tournament").
    fn tournament_ops() -> Vec<server::TournamentOp> {
        use pozo_engine::tournament::Item;
        use pozo_server::state::TournamentOp as Op;
        let t = || "multimesa-semanal".to_owned();
        let fingerprint = "ab".repeat(32);
        vec![
            Op::Purchase {
                tournament: t(),
                item: Item::BuyIn,
                order: 1,
                player_name: "Ana Gómez".into(),
                document_masked: "DNI ***5678".into(),
                document_fingerprint: fingerprint.clone(),
                document_sealed: "cd".repeat(40),
                amount: money!(20000.00),
            },
            Op::Purchase {
                tournament: t(),
                item: Item::Rebuy,
                order: 2,
                player_name: "Ana Gómez".into(),
                document_masked: "DNI ***5678".into(),
                document_fingerprint: fingerprint.clone(),
                document_sealed: "cd".repeat(40),
                amount: money!(10000.00),
            },
            Op::Purchase {
                tournament: t(),
                item: Item::AddOn,
                order: 3,
                player_name: "Ana Gómez".into(),
                document_masked: "DNI ***5678".into(),
                document_fingerprint: fingerprint.clone(),
                document_sealed: "cd".repeat(40),
                amount: money!(10000.50),
            },
            Op::Refund { tournament: t(), order: 3 },
            Op::CloseRegistration { tournament: t() },
            Op::CloseRebuys { tournament: t() },
            Op::Eliminate { tournament: t(), players: vec![4, 7], table: "T1".into(), hand: 12, simultaneous: true },
            Op::Disqualify { tournament: t(), player: 4, reason: "Colusión".into() },
            Op::SealChips { tournament: t(), player: 1, chips: 40_500, receipt: "R-0001".into(), jornada: 1 },
            Op::PayPrize { tournament: t(), player: 1, document_fingerprint: fingerprint.clone() },
            Op::ConfirmPrize { tournament: t(), player: 1, document_fingerprint: fingerprint },
            Op::DrawSeats {
                tournament: t(),
                reason: "mesa final".parse().expect("a reason"),
                tables: vec![pozo_core::tournament::seats::TableSeats { table: "T1".into(), seats: vec![1, 2, 3] }],
                nonce: "56".repeat(32),
            },
        ]
    }

    fn tournament(op: server::TournamentOp) -> server::Command {
        server::Command::Tournament(server::TournamentCommand {
            key_id: "vp-ana".into(),
            operator_name: "Ana Pereyra".into(),
            op,
        })
    }

    /// A tournament operation's facts as text, read side.
    fn tournament_facts(op: &TournamentOp) -> String {
        match op {
            TournamentOp::Purchase {
                tournament,
                item,
                order,
                player_name,
                document_masked,
                document_fingerprint,
                document_sealed,
                amount,
            } => {
                let code = match item {
                    Item::BuyIn => "IN",
                    Item::Rebuy => "RB",
                    Item::AddOn => "AD",
                };
                format!(
                    "purchase {tournament} {code} {order} {player_name} {document_masked} {document_fingerprint} \
                     {document_sealed} {amount}"
                )
            }
            TournamentOp::Refund { tournament, order } => format!("refund {tournament} {order}"),
            TournamentOp::CloseRegistration { tournament } => format!("close_registration {tournament}"),
            TournamentOp::CloseRebuys { tournament } => format!("close_rebuys {tournament}"),
            TournamentOp::Eliminate { tournament, players, table, hand, simultaneous } => {
                format!("eliminate {tournament} {players:?} {table} {hand} {simultaneous}")
            }
            TournamentOp::Disqualify { tournament, player, reason } => format!("disqualify {tournament} {player} {reason}"),
            TournamentOp::SealChips { tournament, player, chips, receipt, jornada } => {
                format!("seal_chips {tournament} {player} {chips} {receipt} {jornada}")
            }
            TournamentOp::PayPrize { tournament, player, document_fingerprint } => {
                format!("pay_prize {tournament} {player} {document_fingerprint}")
            }
            TournamentOp::ConfirmPrize { tournament, player, document_fingerprint } => {
                format!("confirm_prize {tournament} {player} {document_fingerprint}")
            }
            TournamentOp::DrawSeats { tournament, reason, tables, nonce } => {
                let tables: Vec<(&str, &[u32])> = tables.iter().map(|t| (t.table.as_str(), t.seats.as_slice())).collect();
                format!("draw_seats {tournament} {reason} {tables:?} {nonce}")
            }
        }
    }

    /// The same facts, from the server's own type.
    fn sent_tournament_facts(op: &server::TournamentOp) -> String {
        use pozo_server::state::TournamentOp as Op;
        match op {
            Op::Purchase {
                tournament,
                item,
                order,
                player_name,
                document_masked,
                document_fingerprint,
                document_sealed,
                amount,
            } => format!(
                "purchase {tournament} {} {order} {player_name} {document_masked} {document_fingerprint} {document_sealed} {}",
                item.code(),
                amount.decimal()
            ),
            Op::Refund { tournament, order } => format!("refund {tournament} {order}"),
            Op::CloseRegistration { tournament } => format!("close_registration {tournament}"),
            Op::CloseRebuys { tournament } => format!("close_rebuys {tournament}"),
            Op::Eliminate { tournament, players, table, hand, simultaneous } => {
                format!("eliminate {tournament} {players:?} {table} {hand} {simultaneous}")
            }
            Op::Disqualify { tournament, player, reason } => format!("disqualify {tournament} {player} {reason}"),
            Op::SealChips { tournament, player, chips, receipt, jornada } => {
                format!("seal_chips {tournament} {player} {chips} {receipt} {jornada}")
            }
            Op::PayPrize { tournament, player, document_fingerprint } => {
                format!("pay_prize {tournament} {player} {document_fingerprint}")
            }
            Op::ConfirmPrize { tournament, player, document_fingerprint } => {
                format!("confirm_prize {tournament} {player} {document_fingerprint}")
            }
            Op::DrawSeats { tournament, reason, tables, nonce } => {
                let tables: Vec<(&str, &[u32])> = tables.iter().map(|t| (t.table.as_str(), t.seats.as_slice())).collect();
                format!("draw_seats {tournament} {reason} {tables:?} {nonce}")
            }
        }
    }

    fn sent_kind(command: &server::Command) -> &'static str {
        match command {
            server::Command::Genesis { .. } => "genesis",
            server::Command::Table(_) => "table",
            server::Command::Office(_) => "office",
            server::Command::Keys { .. } => "keys",
            server::Command::Change(_) => "change",
            server::Command::Build { .. } => "build",
            server::Command::Draw(_) => "draw",
            server::Command::Reveal(_) => "reveal",
            server::Command::Tournament(_) => "tournament",
            server::Command::SeatCommit(_) => "seat_commit",
        }
    }

    fn read_kind(command: &Command) -> &'static str {
        match command {
            Command::Genesis { .. } => "genesis",
            Command::Table { .. } => "table",
            Command::Office { .. } => "office",
            Command::Keys { .. } => "keys",
            Command::Change { .. } => "change",
            Command::Build { .. } => "build",
            Command::Draw { .. } => "draw",
            Command::Reveal { .. } => "reveal",
            Command::SeatCommit { .. } => "seat_commit",
            Command::Tournament { .. } => "tournament",
        }
    }

    fn head() -> DrawHead {
        DrawHead {
            pool: "mercado-gran-sala".into(),
            level: "Misterioso".into(),
            cycle: 3,
            from: money!(20000.00),
            ceiling: money!(60000.00),
        }
    }

    /// The commitment as the document defines it is the one the controller journals and the
    /// state checks: a reveal is checked from the document alone.
    #[test]
    fn the_documented_commitment_is_the_controllers() {
        let nonce = [9u8; 32];
        let trigger = money!(20057.31);
        let sent = pozo_server::state::draw::commitment(&head(), trigger, &nonce);
        let head = head();
        let read = commitment(
            head.pool.as_str(),
            &head.level,
            head.cycle,
            [head.from.decimal(), head.ceiling.decimal(), trigger.decimal()],
            &nonce,
        );
        assert_eq!(read, Some(sent));
        let other = commitment(
            "mercado-gran-sala",
            "Misterioso",
            3,
            [head.from.decimal(), head.ceiling.decimal(), money!(20057.32).decimal()],
            &nonce,
        );
        assert_ne!(other, Some(sent), "a centavo apart is another commitment");
        assert_eq!(
            commitment("p", "l", 1, [Decimal::new(1, 3), Decimal::ONE, Decimal::ONE], &nonce),
            None,
            "a tenth of a centavo"
        );
    }

    #[test]
    fn what_the_document_does_not_describe_is_refused() {
        let press = br#"{"sequence":2,"time_ms":5,"command":{"kind":"table","table_id":"R1","sequence":1,"payload_sha256":"ab","op":{"op":"press","seat":1},"card":null}}"#;
        assert!(decode(press).is_ok(), "a press as documented reads");
        let cases: [(&[u8], &str); 4] = [
            (br#"{"sequence":2,"time_ms":5,"command":{"kind":"table","table_id":"R1","sequence":1,"payload_sha256":"ab","op":{"op":"press","seat":1},"card":null,"extra":1}}"#, "extra"),
            (br#"{"sequence":2,"time_ms":5,"command":{"kind":"table","table_id":"R1","sequence":1,"payload_sha256":"ab","op":{"op":"jump","seat":1},"card":null}}"#, "jump"),
            (br#"{"sequence":2,"time_ms":5,"command":{"kind":"bonus"}}"#, "bonus"),
            (br#"{"sequence":2,"time_ms":5,"command":{"kind":"office","key_id":"k","operator_name":"A","op":{"op":"confirm","order_id":"o","form_number":"f","expect":{"pool":"p","table_id":"R1","seat":1,"round":1,"code":"C","amount":8329.5}}}}"#, "string"),
        ];
        for (record, named) in cases {
            let error = decode(record).expect_err("refused").to_string();
            assert!(error.contains(named), "`{error}` names `{named}`");
        }
    }

    #[test]
    fn a_broken_link_is_found_by_the_hashes_the_reader_computes() {
        let identity = Identity::generate();
        let genesis = identity.genesis_previous();
        let (record, hash) = encoded(&genesis, table(server::TableOp::Press { seat: 1, credits: None }, None), 1);
        let mut chain = Chain::new(&identity.installation);
        let wrong_hash =
            chain.next(1, &hex::encode(genesis), &hex::encode([7u8; 32]), &record).expect_err("a hash not of the record");
        assert!(wrong_hash.problem.contains("its hash"), "{wrong_hash}");
        let other_installation = Chain::new("another").next(1, &hex::encode(genesis), &hex::encode(hash), &record);
        assert!(other_installation.expect_err("another installation's chain").problem.contains("predecessor"));
        let mut edited = record.clone();
        let at = edited.windows(6).position(|window| window == b"\"seat\"").expect("seat") + 7;
        edited[at] = b'2';
        let edited_hash = entry_hash(&genesis, &edited);
        assert!(
            chain.next(1, &hex::encode(genesis), &hex::encode(hash), &edited).is_err(),
            "an edited record under its old hash"
        );
        let read =
            chain.next(1, &hex::encode(genesis), &hex::encode(edited_hash), &edited).expect("re-hashed: a valid first link");
        assert_eq!(press(&read), Some(("R1".to_owned(), 2, 7)));
        assert!(chain.next(3, &hex::encode(edited_hash), "", b"{}").expect_err("a gap").problem.contains("follows entry 1"));
    }
}
