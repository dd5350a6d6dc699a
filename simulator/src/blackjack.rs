//! Blackjack rounds dealt from a seeded shoe, and the premio codes each box makes:
//! the IPLyC Black Jack Carta Descubierta Poceado side bet (000, 11.3–11.5) and the
//! Andalucía bolsa (002, Veintiuno, rule e).
//!
//! # The table (what the regulations fix)
//! - Shoe: IPLyC 8 decks, 416 cards (9.8.1); Andalucía 6 decks, 312 cards (Veintiuno II.1).
//! - Burnt after each shuffle: IPLyC the first 2 cards (9.8.5); Andalucía the first 5 (Veintiuno V.3.c).
//! - Deal, boxes in seat order (10.5.2.2.1; Veintiuno V.1.a): a card to each box, the dealer's up
//!   card, a second card to each box; IPLyC then deals the dealer's hole card, the CARTA CUBIERTA
//!   (10.5.2.2.2) — "carta descubierta" means the boxes' cards are face up (9.10.1) —, Andalucía
//!   deals none (Veintiuno V.1.a). Every box then plays in order, and the dealer draws to 17,
//!   standing on soft 17 (9.4.3; Veintiuno V.1.a), unless every box has busted (9.10.3; Veintiuno
//!   V.1.a "siempre que queden manos en juego").
//! - The cut card: a new shoe when fewer than [`CUT_CARD`] cards remain before a round, never in
//!   the middle of one. 104 is more than each rulebook's reserve (about 60 cards, which the casino
//!   may raise, 9.8.4; at least one deck, Veintiuno V.3.b), and more than the [`MAX_ROUND_CARDS`] a
//!   round can take, so a round never runs out of cards.
//!
//! # The simulated player
//! One strategy for every box, chosen so that each code's probability is exactly computable:
//! - two aces: split them; each ace gets exactly one card (9.3.2; Veintiuno V.1.c); no resplit;
//! - a hard two-card 10 or 11 (no ace): double, exactly one card (9.3.5; Veintiuno V.1.d);
//!   a soft 10 or 11 is not doubled;
//! - otherwise hit while the best total (an ace counts 11 unless that busts) is under 17, so 7-7
//!   always hits and soft 17 stands; never split other pairs (9.3.3, 9.3.4 are not taken).
//!
//! The strategy decides each card from cards already dealt, so every box's cards, in the order it
//! receives them, are distributed like the first cards of a freshly shuffled shoe (the predictable
//! sampling theorem; docs/odds.md). [`exact_odds`] derives each code's probability from that.

use rand_chacha::ChaCha8Rng;

use crate::cards::{self, Card, Shoe};

/// The most boxes at a table (seven plazas: Veintiuno II.3; the generated casino's 7 seats).
pub const MAX_BOXES: usize = 7;

/// The most cards one hand can take under the strategy or the dealer's rule: six aces (hard 6,
/// soft 16), a six (hard 12), four aces (hard 16), a last card. `tests/blackjack.rs` checks it.
pub const MAX_HAND_CARDS: usize = 12;

/// The most cards a round of [`MAX_BOXES`] boxes and the dealer can take.
pub const MAX_ROUND_CARDS: usize = (MAX_BOXES + 1) * MAX_HAND_CARDS;

/// A new shoe before a round when fewer than this many cards remain (the cut card).
pub const CUT_CARD: usize = 104;

// A round started before the cut card always finds its cards.
const _: () = assert!(MAX_ROUND_CARDS <= CUT_CARD);

const HEARTS: u8 = 0;
const SEVEN: u8 = 7;
const KING: u8 = 13;
const ACE: u8 = 14;

/// The two blackjack games with a progressive side bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Game {
    /// IPLyC Black Jack Carta Descubierta Poceado (000, sections 9–12), pool `iplyc-blackjack`.
    Blackjack,
    /// Andalucía Veintiuno with the bolsa (002, Veintiuno e), pool `and-bolsa`.
    Veintiuno,
}

impl Game {
    pub const ALL: [Game; 2] = [Game::Blackjack, Game::Veintiuno];

    /// The game as the layout names it ("blackjack", "veintiuno").
    pub fn from_name(name: &str) -> Option<Game> {
        Game::ALL.into_iter().find(|game| game.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Game::Blackjack => "blackjack",
            Game::Veintiuno => "veintiuno",
        }
    }

    /// The pool the game's side bets feed.
    pub fn pool(self) -> &'static str {
        match self {
            Game::Blackjack => "iplyc-blackjack",
            Game::Veintiuno => "and-bolsa",
        }
    }

    pub fn rules(self) -> Rules {
        match self {
            // 9.8.1 eight decks; 9.8.5 two burnt; 10.5.2.2.2 the CARTA CUBIERTA.
            Game::Blackjack => Rules { decks: 8, burn: 2, hole_card: true },
            // Veintiuno II.1 six decks; V.3.c five burnt; V.1.a no card for the dealer until the boxes have played.
            Game::Veintiuno => Rules { decks: 6, burn: 5, hole_card: false },
        }
    }

    /// The codes of the game's paytable, highest first (11.5; rule e).
    pub fn codes(self) -> &'static [&'static str] {
        match self {
            Game::Blackjack => &[
                TRES_SIETES_CORAZONES,
                TRES_SIETES_MISMO_PALO,
                CUATRO_ASES,
                TRES_SIETES,
                DOBLE_10_11_MISMO_PALO,
                BJ_AS_REY_MISMO_PALO,
            ],
            Game::Veintiuno => &[TRES_SIETES_MISMO_PALO, TRES_SIETES, DOS_SIETES_MISMO_PALO, DOS_SIETES, SIETE],
        }
    }
}

/// How a game's shoe is made and dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub decks: usize,
    /// Cards burnt after each shuffle.
    pub burn: usize,
    /// Whether the dealer takes a second card right after the boxes' second cards.
    pub hole_card: bool,
}

impl Rules {
    pub fn shoe_cards(self) -> usize {
        self.decks * 52
    }

    /// The most full rounds of [`MAX_BOXES`] boxes one shoe can always deal.
    pub fn safe_rounds_per_shoe(self) -> u32 {
        u32::try_from((self.shoe_cards() - self.burn) / MAX_ROUND_CARDS).expect("a few rounds")
    }
}

pub const TRES_SIETES_CORAZONES: &str = "TRES_SIETES_CORAZONES";
pub const TRES_SIETES_MISMO_PALO: &str = "TRES_SIETES_MISMO_PALO";
pub const TRES_SIETES: &str = "TRES_SIETES";
pub const CUATRO_ASES: &str = "CUATRO_ASES";
pub const DOBLE_10_11_MISMO_PALO: &str = "DOBLE_10_11_MISMO_PALO";
pub const BJ_AS_REY_MISMO_PALO: &str = "BJ_AS_REY_MISMO_PALO";
pub const DOS_SIETES_MISMO_PALO: &str = "DOS_SIETES_MISMO_PALO";
pub const DOS_SIETES: &str = "DOS_SIETES";
pub const SIETE: &str = "SIETE";

/// A card's points with an ace as 1 (9.2.1; Veintiuno II.1).
pub fn points(card: Card) -> u32 {
    match card.rank {
        ACE => 1,
        11..=13 => 10,
        rank => u32::from(rank),
    }
}

/// The total with every ace as 1.
pub fn hard_total(cards: &[Card]) -> u32 {
    cards.iter().map(|card| points(*card)).sum()
}

/// The best total: one ace counts 11 when that does not pass 21 (9.2.1, 9.4.3).
pub fn best_total(cards: &[Card]) -> u32 {
    let hard = hard_total(cards);
    if cards.iter().any(|card| card.rank == ACE) && hard + 10 <= 21 { hard + 10 } else { hard }
}

/// What the simulated player does with a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Stand,
    Hit,
    /// Double: exactly one more card.
    Double,
    /// Split two aces: exactly one card on each.
    SplitAces,
}

/// The strategy (module documentation), on the cards a box holds.
pub fn decide(cards: &[Card]) -> Decision {
    let aces = cards.iter().filter(|card| card.rank == ACE).count();
    if cards.len() == 2 && aces == 2 {
        return Decision::SplitAces; // 9.3.2; Veintiuno V.1.c
    }
    if cards.len() == 2 && aces == 0 && matches!(hard_total(cards), 10 | 11) {
        return Decision::Double; // 9.3.5; Veintiuno V.1.d
    }
    // 9.4.4, 9.4.5: never hit 21 or soft 21; our player stops at 17.
    if best_total(cards) < 17 { Decision::Hit } else { Decision::Stand }
}

/// Whether the dealer draws: 16 or less, an ace as 11 when it does not bust (9.4.3; Veintiuno V.1.a).
pub fn dealer_draws(cards: &[Card]) -> bool {
    best_total(cards) < 17
}

/// How a box's hand was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// Stood (after hitting or not), or busted.
    Stood,
    /// Doubled on a hard 10 or 11 and took one card.
    Doubled,
    /// Split two aces; the first ace took `cards[2]`, the second `cards[3]` (9.3.2).
    SplitAces,
}

/// One box's hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxHand {
    pub seat: u32,
    /// Every card the box received, in the order dealt (after a split of aces: the two aces, the
    /// card on the first ace, the card on the second).
    pub cards: Vec<Card>,
    pub play: Play,
}

impl BoxHand {
    /// Over 21 (a split hand never is: each column is an ace and one card).
    pub fn busted(&self) -> bool {
        self.play != Play::SplitAces && hard_total(&self.cards) > 21
    }
}

/// Plays one box from its two first cards, drawing from `next`.
pub fn play_box(seat: u32, first: Card, second: Card, next: &mut dyn FnMut() -> Card) -> BoxHand {
    let mut cards = vec![first, second];
    let play = match decide(&cards) {
        Decision::SplitAces => {
            cards.push(next()); // on the first ace, 9.3.2
            cards.push(next()); // on the second ace
            Play::SplitAces
        }
        Decision::Double => {
            cards.push(next()); // 9.3.5: one card
            Play::Doubled
        }
        Decision::Stand | Decision::Hit => {
            while decide(&cards) == Decision::Hit {
                cards.push(next());
            }
            Play::Stood
        }
    };
    BoxHand { seat, cards, play }
}

/// A dealt round: the boxes in dealing order and the dealer's cards (the up card first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub boxes: Vec<BoxHand>,
    pub dealer: Vec<Card>,
}

impl Round {
    /// Every card dealt in the round.
    pub fn cards(&self) -> usize {
        self.dealer.len() + self.boxes.iter().map(|hand| hand.cards.len()).sum::<usize>()
    }
}

/// Deals one round to `seats` (in seat order, duplicates ignored) from `next`, under `rules`.
pub fn deal_round(rules: Rules, seats: &[u32], next: &mut dyn FnMut() -> Card) -> Round {
    let mut seats = seats.to_vec();
    seats.sort_unstable();
    seats.dedup();
    assert!(seats.len() <= MAX_BOXES, "at most {MAX_BOXES} boxes");
    // 10.5.2.2.2; Veintiuno V.1.a: a card to each box, the up card, a second card to each box.
    let firsts: Vec<Card> = seats.iter().map(|_| next()).collect();
    let mut dealer = vec![next()];
    let seconds: Vec<Card> = seats.iter().map(|_| next()).collect();
    if rules.hole_card {
        dealer.push(next()); // 10.5.2.2.2: the CARTA CUBIERTA
    }
    let boxes: Vec<BoxHand> = seats
        .iter()
        .zip(firsts.into_iter().zip(seconds))
        .map(|(seat, (first, second))| play_box(*seat, first, second, next))
        .collect();
    // 9.10.3; Veintiuno V.1.a: the dealer draws only while some box is still in play.
    if boxes.iter().any(|hand| !hand.busted()) {
        while dealer_draws(&dealer) {
            dealer.push(next());
        }
    }
    Round { boxes, dealer }
}

fn all_sevens(cards: &[Card]) -> bool {
    cards.iter().all(|card| card.rank == SEVEN)
}

fn one_suit(cards: &[Card]) -> bool {
    cards.iter().all(|card| card.suit == cards[0].suit)
}

fn ace_and_king_of_one_suit(first: Card, second: Card) -> bool {
    let ranks = (first.rank.min(second.rank), first.rank.max(second.rank));
    ranks == (KING, ACE) && first.suit == second.suit
}

/// The IPLyC code a box made (11.3), at most one: the combinations exclude each other.
pub fn iplyc_code(hand: &BoxHand) -> Option<&'static str> {
    let cards = hand.cards.as_slice();
    match hand.play {
        Play::SplitAces => {
            // 11.3.3 "CUATRO ASES (en apertura)" with 9.3.2: the two aces split, an ace on each.
            if cards.iter().all(|card| card.rank == ACE) {
                return Some(CUATRO_ASES);
            }
            // 11.3.6 with 9.6.2.2 (a split ace and a ten is Black Jack) and 11.4.4 (the side bet
            // stays on the first column only): the first ace and the king dealt on it, same suit.
            ace_and_king_of_one_suit(cards[0], cards[2]).then_some(BJ_AS_REY_MISMO_PALO)
        }
        Play::Doubled => {
            // 11.3.5: 21 by doubling on a two-card 10 or 11, the three cards of one suit.
            let on_ten_or_eleven = cards[..2].iter().all(|card| card.rank != ACE) && matches!(hard_total(&cards[..2]), 10 | 11);
            (on_ten_or_eleven && cards.len() == 3 && best_total(cards) == 21 && one_suit(cards)).then_some(DOBLE_10_11_MISMO_PALO)
        }
        Play::Stood => {
            // 11.3.6 with 9.3.1: the two first cards are an ace and a king of one suit.
            if cards.len() == 2 && ace_and_king_of_one_suit(cards[0], cards[1]) {
                return Some(BJ_AS_REY_MISMO_PALO);
            }
            if cards.len() != 3 || !all_sevens(cards) {
                return None;
            }
            // 11.3.1, 11.3.2, 11.3.4: 21 of three sevens. "De distintos palos" (11.3.4) we read as
            // "not all of one suit": 7♥ 7♥ 7♠ is TRES_SIETES.
            Some(match (one_suit(cards), cards[0].suit == HEARTS) {
                (true, true) => TRES_SIETES_CORAZONES,
                (true, false) => TRES_SIETES_MISMO_PALO,
                (false, _) => TRES_SIETES,
            })
        }
    }
}

/// The bolsa code a box made (rule e), only the highest: judged on the box's own first three cards.
pub fn bolsa_code(hand: &BoxHand) -> Option<&'static str> {
    let cards = hand.cards.as_slice();
    if cards[0].rank != SEVEN {
        return None;
    }
    if cards[1].rank != SEVEN {
        return Some(SIETE); // rule e: "el primer naipe es cualquier 7"
    }
    // 7-7 is 14: the strategy always takes a third card.
    if cards.len() >= 3 && cards[2].rank == SEVEN {
        // rule e: three 7s of one suit, else "de distinto palo" (read: not all of one suit).
        return Some(if one_suit(&cards[..3]) { TRES_SIETES_MISMO_PALO } else { TRES_SIETES });
    }
    // rule e: the two first cards are 7s (and the third is not: only the highest is paid).
    Some(if cards[0].suit == cards[1].suit { DOS_SIETES_MISMO_PALO } else { DOS_SIETES })
}

/// The code a box made in its game's pool, if any.
pub fn premio(game: Game, hand: &BoxHand) -> Option<&'static str> {
    match game {
        Game::Blackjack => iplyc_code(hand),
        Game::Veintiuno => bolsa_code(hand),
    }
}

/// Every code of the game's paytable the box's hand is, highest first: [`premio`]'s, then those
/// it also is where a paytable does not tell it apart (three sevens of hearts are three sevens
/// of one suit, and three sevens). A table marks the first its pool pays at its game
/// ([`crate::marks`]): in `mercado-gran-sala`, which has no "Tres sietes del mismo palo", three
/// sevens of spades are its "Tres sietes" (config/mercado.toml; [`crate::marks::also`]).
pub fn codes(game: Game, hand: &BoxHand) -> Vec<&'static str> {
    premio(game, hand).map(crate::marks::also).unwrap_or_default()
}

/// When the table takes a new shoe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reshuffle {
    /// As at the table: before a round, when fewer than [`CUT_CARD`] cards remain.
    CutCard,
    /// After every `n` rounds, whatever they dealt. The decision to shuffle then depends on no
    /// card, so every box-hand's code has exactly its [`exact_odds`] probability; with the cut
    /// card, the rounds a shoe deals depend on its cards (the cut-card effect, docs/odds.md).
    EveryRounds(u32),
}

/// A blackjack table: its game, the seeded shoe, and the rounds dealt from it.
#[derive(Clone, Debug)]
pub struct Table {
    game: Game,
    rules: Rules,
    reshuffle: Reshuffle,
    rng: ChaCha8Rng,
    shoe: Shoe,
    rounds_in_shoe: u32,
    shoes: u64,
}

impl Table {
    /// A table of `game` as the casino deals it: a new shoe at the cut card.
    pub fn new(game: Game, seed: u64) -> Table {
        Table::with_reshuffle(game, seed, Reshuffle::CutCard)
    }

    /// A table of the game the layout names ("blackjack", "veintiuno"); `None` for other games.
    pub fn for_game(game: &str, seed: u64) -> Option<Table> {
        Game::from_name(game).map(|game| Table::new(game, seed))
    }

    /// A table that takes a new shoe as `reshuffle` says. Panics when `EveryRounds(n)` could run
    /// a shoe out of cards (more than [`Rules::safe_rounds_per_shoe`]) or is 0.
    pub fn with_reshuffle(game: Game, seed: u64, reshuffle: Reshuffle) -> Table {
        let rules = game.rules();
        if let Reshuffle::EveryRounds(rounds) = reshuffle {
            assert!(
                (1..=rules.safe_rounds_per_shoe()).contains(&rounds),
                "1 to {} rounds per shoe",
                rules.safe_rounds_per_shoe()
            );
        }
        let mut rng = cards::rng(seed);
        let shoe = Table::fresh_shoe(rules, &mut rng);
        Table { game, rules, reshuffle, rng, shoe, rounds_in_shoe: 0, shoes: 1 }
    }

    fn fresh_shoe(rules: Rules, rng: &mut ChaCha8Rng) -> Shoe {
        let mut shoe = Shoe::new(rules.decks, rng);
        for _ in 0..rules.burn {
            shoe.deal(); // 9.8.5; Veintiuno V.3.c
        }
        shoe
    }

    pub fn game(&self) -> Game {
        self.game
    }

    /// Cards left in the shoe.
    pub fn remaining(&self) -> usize {
        self.shoe.remaining()
    }

    /// Shoes shuffled so far, the first included.
    pub fn shoes(&self) -> u64 {
        self.shoes
    }

    /// Deals a round to `seats` (the seats holding a side bet, at most [`MAX_BOXES`]), taking a
    /// new shoe first when the cut card has come out (never in the middle of a round).
    pub fn deal_round(&mut self, seats: &[u32]) -> Round {
        let new_shoe = match self.reshuffle {
            Reshuffle::CutCard => self.shoe.remaining() < CUT_CARD,
            Reshuffle::EveryRounds(rounds) => self.rounds_in_shoe == rounds,
        };
        if new_shoe {
            self.shoe = Table::fresh_shoe(self.rules, &mut self.rng);
            self.rounds_in_shoe = 0;
            self.shoes += 1;
        }
        self.rounds_in_shoe += 1;
        let shoe = &mut self.shoe;
        let mut next = || shoe.deal().expect("a round takes at most 96 cards and starts with at least 96");
        deal_round(self.rules, seats, &mut next)
    }

    /// Deals a round and returns the (seat, premio code) of each box that made a code in the
    /// game's pool, in seat order.
    pub fn play_round(&mut self, seats: &[u32]) -> Vec<(u32, &'static str)> {
        let game = self.game;
        self.deal_round(seats).boxes.iter().filter_map(|hand| premio(game, hand).map(|code| (hand.seat, code))).collect()
    }

    /// [`Table::play_round`] at a table whose pool pays the codes `pays` takes: each box marks
    /// the highest of its hand's [`codes`] the pool pays at the game, if any.
    pub fn play_round_marking(&mut self, seats: &[u32], pays: &dyn Fn(&str) -> bool) -> Vec<(u32, &'static str)> {
        let game = self.game;
        self.deal_round(seats)
            .boxes
            .iter()
            .filter_map(|hand| codes(game, hand).into_iter().find(|code| pays(code)).map(|code| (hand.seat, code)))
            .collect()
    }
}

/// A code's exact probability per box-hand: `ordered` sequences of the box's first `cards` cards
/// out of n·(n−1)·…·(n−cards+1), n the cards in the shoe (docs/odds.md derives each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exact {
    pub code: &'static str,
    /// The count, as docs/odds.md writes it (d: decks).
    pub formula: &'static str,
    pub ordered: u64,
    pub cards: u32,
    /// n·(n−1)·…·(n−cards+1).
    pub sequences: u64,
}

impl Exact {
    /// The probability as a fraction in lowest terms (numerator, denominator).
    pub fn fraction(&self) -> (u64, u64) {
        let divisor = gcd(self.ordered, self.sequences);
        (self.ordered / divisor, self.sequences / divisor)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// n·(n−1)·…·(n−k+1).
pub fn falling(n: u64, k: u32) -> u64 {
    (0..u64::from(k)).map(|i| n - i).product()
}

/// Each code's exact probability per box-hand in `game`, in the order of [`Game::codes`].
pub fn exact_odds(game: Game) -> Vec<Exact> {
    let rules = game.rules();
    let d = rules.decks as u64; // copies of each card
    let n = rules.shoe_cards() as u64;
    let sevens = 4 * d;
    let three = |code, formula, ordered| Exact { code, formula, ordered, cards: 3, sequences: falling(n, 3) };
    // Three 7s of one given suit; of any suit; three 7s in all.
    let one_suit_sevens = d * (d - 1) * (d - 2);
    let all_sevens = sevens * (sevens - 1) * (sevens - 2);
    match game {
        Game::Blackjack => {
            // Hard 11 from two ranks (2,9) (3,8) (4,7) (5,6), either order, one suit, then a ten-value
            // card (10 J Q K) of that suit; hard 10 from (2,8) (3,7) (4,6) either order or (5,5),
            // then the ace of that suit.
            let eleven = 4 * (8 * d * d) * (4 * d);
            let ten = 4 * (6 * d * d + d * (d - 1)) * d;
            // A-K or K-A of one suit; or two aces split and the king of the first ace's suit on it.
            let natural = 2 * 4 * d * d * (n - 2);
            let split = 4 * d * (4 * d - 1) * d;
            vec![
                three(TRES_SIETES_CORAZONES, "d(d−1)(d−2)", one_suit_sevens),
                three(TRES_SIETES_MISMO_PALO, "3·d(d−1)(d−2)", 3 * one_suit_sevens),
                Exact {
                    code: CUATRO_ASES,
                    formula: "4d(4d−1)(4d−2)(4d−3)",
                    ordered: falling(4 * d, 4),
                    cards: 4,
                    sequences: falling(n, 4),
                },
                three(TRES_SIETES, "4d(4d−1)(4d−2) − 4·d(d−1)(d−2)", all_sevens - 4 * one_suit_sevens),
                three(DOBLE_10_11_MISMO_PALO, "4·8d²·4d + 4·(6d² + d(d−1))·d", eleven + ten),
                three(BJ_AS_REY_MISMO_PALO, "2·4·d·d·(n−2) + 4d(4d−1)·d", natural + split),
            ]
        }
        Game::Veintiuno => {
            let not_seven = n - sevens; // the third card, after two 7s: n − 2 left, 4d − 2 of them 7s
            vec![
                three(TRES_SIETES_MISMO_PALO, "4·d(d−1)(d−2)", 4 * one_suit_sevens),
                three(TRES_SIETES, "4d(4d−1)(4d−2) − 4·d(d−1)(d−2)", all_sevens - 4 * one_suit_sevens),
                three(DOS_SIETES_MISMO_PALO, "4d(d−1)·(n−4d)", sevens * (d - 1) * not_seven),
                three(DOS_SIETES, "4d·3d·(n−4d)", sevens * (3 * d) * not_seven),
                Exact {
                    code: SIETE, formula: "4d·(n−4d)", ordered: sevens * (n - sevens), cards: 2, sequences: falling(n, 2)
                },
            ]
        }
    }
}
