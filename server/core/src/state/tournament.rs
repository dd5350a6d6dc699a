//! What the state keeps of a poker tournament (Lotería Nacional Res. 123/2013, "Normas generales
//! para torneos de poker en la variante Texas Hold'em"): its structure as approved through the
//! two-person door, every purchase booked one by one (Anexo IV 1.2, 1.3) and its refund (1.4),
//! the close of registration (art. 65) and of the rebuy and add-on period (art. 64), each
//! elimination with the positions it took (art. 71, 72), each disqualification (Anexo II), the
//! chip counts sealed (Anexo IV 7.3.2) and the prizes paid (art. 66); and its books, tied to zero.
//!
//! The arithmetic is the engine's (`pozo_engine::tournament`, docs/readings.md, "The tournament's
//! prize pool"); the commands that change a tournament are in `cmd/tournament.rs`.

use pozo_engine::money::Money;
use pozo_engine::tournament::{Collected, Item, PrizePool, Structure};
use serde::{Deserialize, Serialize};

/// Who did something to a tournament: the key that signed it, the holder's name, and the journal
/// entry it became.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub key_id: String,
    pub name: String,
    pub sequence: u64,
    pub time_ms: u64,
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentPhase {
    /// Registration open: buy-ins (IN), rebuys and add-ons sold, refunds given (Anexo IV 1.4).
    Registration,
    /// Registration closed, the entrants fixed (art. 65); rebuys and add-ons still sold.
    Rebuys,
    /// The rebuy and add-on period over, the pool fixed (art. 64): eliminations recorded.
    Play,
    /// One player left: every position known, prizes paid against their receipts (art. 66).
    Finished,
}

impl TournamentPhase {
    /// As staff read it.
    pub fn spanish(self) -> &'static str {
        match self {
            TournamentPhase::Registration => "INSCRIPCIÓN ABIERTA",
            TournamentPhase::Rebuys => "INSCRIPCIÓN CERRADA, RECOMPRAS Y ADICIONES ABIERTAS",
            TournamentPhase::Play => "EN JUEGO, POZO FIJADO",
            TournamentPhase::Finished => "FINALIZADO",
        }
    }
}

/// One purchase, as the receipt ("vale de compra de fichas", Anexo IV 1.2) and the book (1.3)
/// have it: order number, full name, document, transaction code and amount.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purchase {
    /// The "número de orden", unique in the tournament.
    pub order: u32,
    /// IN, RB or AD (Anexo IV 1.3).
    pub item: Item,
    pub player_name: String,
    /// The document as shown: `DNI ***4567`.
    pub document_masked: String,
    /// The document's fingerprint (HMAC, 64 hex digits): who the player is, never the number.
    pub document_fingerprint: String,
    /// The document sealed for the casino's records (hex).
    pub document_sealed: String,
    pub amount: Money,
    pub by: Actor,
    /// Refunded at the player's request before registration closed (Anexo IV 1.4): it stays.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refunded: Option<Actor>,
}

/// How an entrant stands in play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    Active,
    Eliminated,
    /// The winner, 1st.
    Winner,
    /// Disqualified (Anexo II): his chips withdrawn, any prize shared among the active players.
    Disqualified,
}

/// An entrant, once the pool is fixed: by the order number of his buy-in (IN).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// The order number of his IN.
    pub order: u32,
    pub player_name: String,
    pub document_fingerprint: String,
    pub standing: Standing,
    /// The position he finished in (1 = first), once out or the winner; a disqualified active
    /// player takes the position he left at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u32>,
    /// His position's prize (his equal part of the positions tied, art. 71, 72).
    pub prize: Money,
    /// What disqualified players' prizes added to his (Anexo II).
    pub redistributed: Money,
    /// His prize and what was added to it went to the players still active (Anexo II).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub forfeited: bool,
    /// A prize of the Venta-Pagos threshold or more, asked for at the cashier against the
    /// player's identity and awaiting the office's confirmation (PENDIENTE DE PAGO).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid: Option<Actor>,
}

impl Entrant {
    /// What he is to be paid: his prize and what was added to it, nothing once forfeited.
    pub fn due(&self) -> Money {
        if self.forfeited { Money::ZERO } else { self.prize + self.redistributed }
    }

    /// His position is known and his prize is his to collect (art. 66).
    pub fn finished(&self) -> bool {
        matches!(self.standing, Standing::Eliminated | Standing::Winner) && !self.forfeited
    }
}

/// Why several players share positions (docs/readings.md, "The tournament's prize pool").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tie {
    /// One player: his own position.
    None,
    /// Eliminated in the same hand at different tables (art. 72).
    Simultaneous,
    /// The order of elimination at different tables cannot be told (art. 71).
    OrderUnknown,
}

/// One elimination record: the players out, the positions they took and what each is paid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Elimination {
    /// By order number of their IN, ascending: the order the units of a split go in.
    pub players: Vec<u32>,
    /// The positions they took, best first: `first..=last`.
    pub first: u32,
    pub last: u32,
    /// Each player's prize, in the order of `players`.
    pub amounts: Vec<Money>,
    pub table: String,
    pub hand: u64,
    pub tie: Tie,
    pub by: Actor,
}

/// A disqualification (Anexo II).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disqualification {
    pub player: u32,
    pub reason: String,
    /// Active when disqualified (he takes the position he left at) or already eliminated.
    pub was_active: bool,
    /// The position he took or had.
    pub position: u32,
    /// The prize he lost (his position's and what had been added to it).
    pub forfeited: Money,
    /// Who received it: (order number, amount), in order-number order.
    pub shared: Vec<(u32, Money)>,
    pub by: Actor,
}

/// A player's chips counted and sealed against a receipt (Anexo IV 7.3.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChipSeal {
    pub player: u32,
    pub chips: u64,
    pub receipt: String,
    pub jornada: u32,
    pub by: Actor,
}

/// The next seat draw's commitment, journaled by the controller before the players it will seat
/// are known (Res. 123/2013 art. 11, 15, 88; Anexo IV 8.1): its nonce sealed under a key derived
/// from the journal key, opened only by the draw that reveals it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCommitment {
    /// The draw's number in the tournament's chain: 1, 2, …
    pub draw: u64,
    /// `seats::commitment`, hex.
    pub commitment: String,
    /// The nonce sealed (hex): the controller's to open.
    pub sealed: String,
    /// The journal entry that committed it.
    pub at: u64,
}

/// A seat draw made: what it was drawn from, the nonce revealed and the seating it gives, which
/// anyone holding the journal recomputes (`pozo_core::tournament::seats::check`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatDraw {
    pub draw: u64,
    pub reason: crate::tournament::seats::SeatDrawReason,
    /// The commitment it opens, hex, journaled at entry `committed_at`.
    pub commitment: String,
    pub committed_at: u64,
    /// The nonce, 64 hex digits.
    pub nonce: String,
    /// The players seated, by order number ascending.
    pub players: Vec<u64>,
    pub tables: Vec<crate::tournament::seats::TableSeats>,
    pub seating: Vec<crate::tournament::seats::Seating>,
    pub by: Actor,
}

/// The pool as fixed at the close of the rebuy and add-on period (art. 64).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixedPool {
    pub collected: Money,
    pub prizes: Money,
    pub house: Money,
    pub rounding: Money,
    /// Each position's prize, first place first (art. 65).
    pub places: Vec<Money>,
}

/// A tournament as the state keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    /// Its `[[torneo]]`, as approved: the structure is read from it (`structure`).
    pub text: String,
    /// The change that set it up.
    pub proposal_id: String,
    pub phase: TournamentPhase,
    pub purchases: Vec<Purchase>,
    /// The entrants at the close of registration (art. 65); 0 before.
    pub entrants: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_closed: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuys_closed: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<FixedPool>,
    /// Once the pool is fixed, every entrant by the order number of his IN.
    pub players: std::collections::BTreeMap<u32, Entrant>,
    pub eliminations: Vec<Elimination>,
    pub disqualifications: Vec<Disqualification>,
    pub seals: Vec<ChipSeal>,
    /// The next seat draw's commitment; `None` only until the controller journals it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_commitment: Option<SeatCommitment>,
    /// The seat draws made, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_draws: Vec<SeatDraw>,
}

impl Tournament {
    /// A tournament set up from its approved `[[torneo]]`, registration open.
    pub fn new(structure: &Structure, text: &str, proposal_id: &str) -> Tournament {
        Tournament {
            id: structure.id().to_owned(),
            text: text.to_owned(),
            proposal_id: proposal_id.to_owned(),
            phase: TournamentPhase::Registration,
            purchases: Vec::new(),
            entrants: 0,
            registration_closed: None,
            rebuys_closed: None,
            pool: None,
            players: Default::default(),
            eliminations: Vec::new(),
            disqualifications: Vec::new(),
            seals: Vec::new(),
            seat_commitment: None,
            seat_draws: Vec::new(),
        }
    }

    /// The players a seat draw seats now: the active players once the pool is fixed, else every
    /// buy-in not refunded; by order number.
    pub fn to_seat(&self) -> Vec<u64> {
        if self.players.is_empty() {
            let mut orders: Vec<u64> = self
                .purchases
                .iter()
                .filter(|p| p.item == Item::BuyIn && p.refunded.is_none())
                .map(|p| u64::from(p.order))
                .collect();
            orders.sort_unstable();
            orders
        } else {
            self.active().into_iter().map(u64::from).collect()
        }
    }

    /// What finished players still have to collect: (order, amount, awaiting the office).
    pub fn owed(&self) -> Vec<(u32, Money, bool)> {
        self.players
            .values()
            .filter(|player| player.finished() && player.paid.is_none() && player.due() > Money::ZERO)
            .map(|player| (player.order, player.due(), player.requested.is_some()))
            .collect()
    }

    /// The structure it was approved with.
    ///
    /// # Panics
    /// When its text no longer reads as one structure: it was validated when approved.
    pub fn structure(&self) -> Structure {
        let mut parsed = Structure::parse(&self.text).expect("a tournament's structure was validated when approved");
        parsed.pop().expect("exactly one [[torneo]]")
    }

    /// What its purchases collected, less refunds (Anexo IV 1.3, 1.4).
    pub fn collected(&self, structure: &Structure) -> Collected {
        let mut collected = Collected::new(structure);
        for purchase in self.purchases.iter().filter(|purchase| purchase.refunded.is_none()) {
            collected.purchase(purchase.item).expect("every purchase was booked within the structure");
        }
        collected
    }

    /// The prize pool: live until the rebuy and add-on period closes, fixed after (art. 64).
    pub fn prize_pool(&self) -> PrizePool {
        let structure = self.structure();
        PrizePool::of(&structure, &self.collected(&structure))
    }

    /// The buy-in (IN) not refunded of order `order`.
    pub fn entry(&self, order: u32) -> Option<&Purchase> {
        self.purchases.iter().find(|p| p.order == order && p.item == Item::BuyIn && p.refunded.is_none())
    }

    /// The buy-in not refunded of the player with this document's fingerprint.
    pub fn entry_of(&self, fingerprint: &str) -> Option<&Purchase> {
        self.purchases.iter().find(|p| p.item == Item::BuyIn && p.refunded.is_none() && p.document_fingerprint == fingerprint)
    }

    /// How many of `item` the player of this fingerprint holds, refunds aside.
    pub fn bought(&self, fingerprint: &str, item: Item) -> u32 {
        let count = self
            .purchases
            .iter()
            .filter(|p| p.item == item && p.refunded.is_none() && p.document_fingerprint == fingerprint)
            .count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// The players still in play, by order number.
    pub fn active(&self) -> Vec<u32> {
        self.players.values().filter(|player| player.standing == Standing::Active).map(|player| player.order).collect()
    }

    /// Its books (docs/readings.md, "The tournament's prize pool").
    pub fn books(&self) -> TournamentBooks {
        let structure = self.structure();
        let pool = PrizePool::of(&structure, &self.collected(&structure));
        let by_item = Item::ALL
            .into_iter()
            .filter(|item| structure.offer(*item).is_some())
            .map(|item| {
                let of_item = self.purchases.iter().filter(|p| p.item == item);
                let sold = of_item.clone().map(|p| p.amount).sum();
                let refunded = of_item.filter(|p| p.refunded.is_some()).map(|p| p.amount).sum();
                ItemBooks { item, sold, refunded }
            })
            .collect::<Vec<_>>();
        let kept = self.players.values().filter(|player| !player.forfeited);
        let assigned = kept.clone().filter(|player| player.finished()).map(|player| player.prize).sum();
        let redistributed = kept.map(|player| player.redistributed).sum();
        let paid: Money = self.players.values().filter(|player| player.paid.is_some()).map(Entrant::due).sum();
        let finished_due: Money = self.players.values().filter(|player| player.finished()).map(Entrant::due).sum();
        TournamentBooks {
            tournament: self.id.clone(),
            sold: by_item.iter().map(|item| item.sold).sum(),
            refunds: by_item.iter().map(|item| item.refunded).sum(),
            by_item,
            prizes: pool.prizes,
            house: pool.house,
            rounding: pool.rounding,
            assigned,
            redistributed,
            paid,
            owed: finished_due - paid,
            finished: self.phase == TournamentPhase::Finished,
        }
    }
}

/// One item's sales and refunds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemBooks {
    pub item: Item,
    /// Every purchase booked, at its amount.
    pub sold: Money,
    /// Those refunded (Anexo IV 1.4).
    pub refunded: Money,
}

/// A tournament's books: `sold − refunds == prizes + house` (art. 62, 63), and what of the prizes
/// was assigned to positions (`assigned`) or added to players' by disqualifications
/// (`redistributed`): their sum is at most the prizes, and all of them once finished. `owed` is
/// what finished players are still to collect (art. 66): part of the liability to players.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentBooks {
    pub tournament: String,
    pub by_item: Vec<ItemBooks>,
    pub sold: Money,
    pub refunds: Money,
    pub prizes: Money,
    pub house: Money,
    pub rounding: Money,
    pub assigned: Money,
    pub redistributed: Money,
    pub paid: Money,
    pub owed: Money,
    pub finished: bool,
}

impl TournamentBooks {
    /// The first way the books fail to tie, in words; `None` when they tie to zero.
    pub fn untied(&self) -> Option<String> {
        if self.sold - self.refunds != self.prizes + self.house {
            return Some(format!(
                "sold {} − refunds {} ≠ prizes {} + house {}",
                self.sold, self.refunds, self.prizes, self.house
            ));
        }
        let out = self.assigned + self.redistributed;
        if out > self.prizes || (self.finished && out != self.prizes) {
            return Some(format!(
                "assigned {} + redistributed {} against prizes {} (finished: {})",
                self.assigned, self.redistributed, self.prizes, self.finished
            ));
        }
        if self.owed < Money::ZERO || self.paid + self.owed > out {
            return Some(format!("paid {} + owed {} against {}", self.paid, self.owed, out));
        }
        None
    }
}
