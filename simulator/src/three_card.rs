//! Three Card Poker as the Uruguay procedures deal and rank it (seed 003, "Manual de procedimientos
//! de Three Card Poker"): a round dealt from one 52-card deck, a three-card hand's category (3.9),
//! the dealer's qualification (a queen or better), the market progressive's premio code of a hand,
//! and the exact returns, counted over every one of the C(52, 3) = 22,100 hands (docs/odds.md,
//! "Three Card Poker (seed 003) and its market progressive").

use serde::Serialize;

use crate::cards::{self, Card};

/// The game's name in the rulebooks (`pozo_engine::Game::ThreeCardPoker`).
pub const GAME: &str = "three-card-poker";

/// The pool `odds` names in its report: the market progressive of the example rulebook.
pub const POOL: &str = "mercado-tcp";

/// 1.1.1: "seis casilleros para las apuestas"; 1: "Como el paño solamente tiene seis casilleros
/// habrá seis sillas".
pub const SEATS: usize = 6;

/// Each seat's and the dealer's cards (3.5.8: "hasta que todos los jugadores hayan recibido sus 3
/// cartas ... y que el croupier también se haya dado su última carta").
pub const CARDS: usize = 3;

/// Three-card hands from one 52-card deck (3.1.9: "mazos de 52 cartas"): C(52, 3).
pub const HANDS: u64 = 22_100;

/// The hands a second seat can hold beside a first one's three cards: C(49, 3).
pub const OTHER_HANDS: u64 = 18_424;

/// Ordered pairs of disjoint hands: two seats of one round, C(52, 3) · C(49, 3).
pub const SEAT_PAIRS: u64 = HANDS * OTHER_HANDS;

/// Picas, the suit of `MINI_ROYAL_PICAS` (index into [`cards::SUITS`]).
pub const PICAS: u8 = 3;

/// The categories of a three-card hand, lowest first, as 3.9 ranks them: "No califican" and "El
/// juego más bajo" (a queen or better) are both high card; then "Par Simple", "Color",
/// "Escalera", "Pierna" and "Escalera Real" (three consecutive cards of one suit: any straight
/// flush, "EJ: 6♠ 5♠ 4♠"). With three cards a flush is easier than a straight, and three of a
/// kind harder than both (Introducción).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    HighCard,
    Pair,
    Flush,
    Straight,
    ThreeOfAKind,
    StraightFlush,
}

impl Category {
    /// Highest first.
    pub const ALL: [Category; 6] = [
        Category::StraightFlush,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::Pair,
        Category::HighCard,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::StraightFlush => "straight flush",
            Category::ThreeOfAKind => "three of a kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::Pair => "pair",
            Category::HighCard => "high card",
        }
    }
}

/// A hand's value: its category, then the ranks that break ties, highest first (0 when unused).
/// 3.10.7: hands of one category are compared by their highest card, "Sólo si dos manos fueran
/// exactamente iguales, el resultado sería un empate".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value {
    pub category: Category,
    /// Straight and straight flush: the high card (3 for A-2-3); three of a kind: its rank; pair:
    /// the pair's rank, then the odd card; flush and high card: the three ranks.
    pub ranks: [u8; 3],
}

/// The value of three cards. 3.9, "Escalera": "El As puede jugarse delante del dos o detrás del
/// rey": A-2-3 and Q-K-A are straights, A-2-3 the lowest (its ace played before the two), Q-K-A
/// the highest. (3.9's own example of a straight, "3♠ 2♠ A♠", is of one suit: by its definition,
/// "que no sean del mismo palo", that hand is an Escalera Real, and is evaluated so.)
pub fn evaluate(hand: &[Card; 3]) -> Value {
    let mut ranks = hand.map(|card| card.rank);
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    let [high, middle, low] = ranks;
    let flush = hand.iter().all(|card| card.suit == hand[0].suit);
    let straight_high = if high == middle + 1 && middle == low + 1 {
        Some(high)
    } else if ranks == [14, 3, 2] {
        Some(3)
    } else {
        None
    };
    let (category, ranks) = match straight_high {
        Some(high) if flush => (Category::StraightFlush, [high, 0, 0]),
        _ if high == low => (Category::ThreeOfAKind, [high, 0, 0]),
        Some(high) => (Category::Straight, [high, 0, 0]),
        None if flush => (Category::Flush, ranks),
        None if high == middle => (Category::Pair, [high, low, 0]),
        None if middle == low => (Category::Pair, [middle, high, 0]),
        None => (Category::HighCard, ranks),
    };
    Value { category, ranks }
}

/// Whether the dealer's hand plays: a queen or better. 1.1.2 a "El croupier juega con dama o
/// mejor"; 3.9 "El juego más bajo: Cualquier dama o mayor, califica"; 3.10.3 "Si el croupier
/// tuviera una mano menor que una dama, anunciará 'La banca no califica'".
pub fn qualifies(value: &Value) -> bool {
    value.category > Category::HighCard || value.ranks[0] >= 12
}

/// The progressive's premio codes, highest first.
pub const MINI_ROYAL_PICAS: &str = "MINI_ROYAL_PICAS";
pub const MINI_ROYAL: &str = "MINI_ROYAL";
pub const ESCALERA_COLOR: &str = "ESCALERA_COLOR";
pub const PIERNA: &str = "PIERNA";

/// What a line of the progressive pays a seat, in units of the side bet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Award {
    /// The whole meter (100% of the Grand level).
    Meter,
    Units(u64),
}

/// One line of the market progressive: its code, what the hand pays, and the envy every *other*
/// seat of the table holding the side bet wins when a seat hits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    pub code: &'static str,
    pub award: Award,
    pub envy_units: u64,
}

/// The market progressive of the example rulebook, highest first. The seed's procedures have no
/// progressive (3.10 pays the ante and Pair Plus only); this is a market one, sold for the game.
pub const PROGRESSIVE: [Line; 4] = [
    // A-K-Q of picas: the whole meter; 100 units to every other seat with the side bet.
    Line { code: MINI_ROYAL_PICAS, award: Award::Meter, envy_units: 100 },
    // A-K-Q of one other suit: 500 units; 25 to every other seat with the side bet.
    Line { code: MINI_ROYAL, award: Award::Units(500), envy_units: 25 },
    // Any other straight flush (3.9 "Escalera Real").
    Line { code: ESCALERA_COLOR, award: Award::Units(100), envy_units: 0 },
    // Three of a kind (3.9 "Pierna").
    Line { code: PIERNA, award: Award::Units(50), envy_units: 0 },
];

/// The progressive line of `code`.
pub fn line(code: &str) -> Option<&'static Line> {
    PROGRESSIVE.iter().find(|line| line.code == code)
}

/// The progressive's premio code of a hand: the highest only (a mini royal is a straight flush
/// and is paid as a mini royal alone).
pub fn premio(hand: &[Card; 3]) -> Option<&'static str> {
    let value = evaluate(hand);
    match value.category {
        Category::StraightFlush if value.ranks[0] == 14 && hand[0].suit == PICAS => Some(MINI_ROYAL_PICAS),
        Category::StraightFlush if value.ranks[0] == 14 => Some(MINI_ROYAL),
        Category::StraightFlush => Some(ESCALERA_COLOR),
        Category::ThreeOfAKind => Some(PIERNA),
        _ => None,
    }
}

/// Every progressive code the hand is, highest first: [`premio`]'s, then those it also is where
/// a paytable does not tell it apart (the Mini Royal of spades is a Mini Royal, and a Mini Royal a
/// straight flush). A table marks the first its pool pays at its game ([`crate::marks`]): in
/// `mercado-gran-sala`, which pays the spades' one and "Escalera de color", a Mini Royal of
/// hearts is its "Escalera de color" (config/mercado.toml; [`crate::marks::also`]).
pub fn premios(hand: &[Card; 3]) -> Vec<&'static str> {
    premio(hand).map(crate::marks::also).unwrap_or_default()
}

/// How many of the [`HANDS`] hands a table of a pool that pays `pays` marks `code` with: the
/// hands whose first paid code of [`premios`] it is.
pub fn marked_count(code: &str, pays: &dyn Fn(&str) -> bool) -> u64 {
    every_hand().filter(|hand| premios(hand).into_iter().find(|candidate| pays(candidate)) == Some(code)).count() as u64
}

/// 3.10.2 "Escala de pagos de Pair Plus", to one: "Par simple 1 x 1, Color 3 x 1, Escalera 6 x 1,
/// Pierna 30 x 1, Escalera Real 40 x 1". Paid whatever the dealer's hand (Introducción: "sin
/// importar la mano de la banca").
pub fn pair_plus_multiple(category: Category) -> Option<u64> {
    match category {
        Category::StraightFlush => Some(40),
        Category::ThreeOfAKind => Some(30),
        Category::Straight => Some(6),
        Category::Flush => Some(3),
        Category::Pair => Some(1),
        Category::HighCard => None,
    }
}

/// One round: each seat's three cards and the dealer's, in the order received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    pub seats: Vec<[Card; 3]>,
    pub dealer: [Card; 3],
}

/// The cards a round of `seats` seats takes from the deck.
pub fn cards(seats: usize) -> usize {
    (seats + 1) * CARDS
}

/// Deals a round of `seats` seats (those with an ante) from the top of `deck` (`deck[0]` first),
/// by hand, as 3.5.6–3.5.8 say: one card at a time to each seat, "Cuando todos los casilleros con
/// apuesta de ante reciban su primera carta, el croupier recibirá su primer carta también" (3.5.7),
/// and again "hasta que todos los jugadores hayan recibido sus 3 cartas" (3.5.8). (The shuffling
/// machine hands out groups of three, each seat's and then the dealer's, 3.6.4: each hand is still
/// three cards of one shuffled deck.)
pub fn deal(seats: usize, deck: &[Card]) -> Round {
    assert!(seats <= SEATS, "{GAME} deals at most {SEATS} seats (1.1.1)");
    assert!(deck.len() >= cards(seats), "{} cards for a round of {seats} seats", cards(seats));
    let at = |turn: usize, place: usize| deck[turn * (seats + 1) + place];
    Round {
        seats: (0..seats).map(|seat| std::array::from_fn(|turn| at(turn, seat))).collect(),
        dealer: std::array::from_fn(|turn| at(turn, seats)),
    }
}

/// Every one of the 22,100 three-card hands of a deck, once.
pub fn every_hand() -> impl Iterator<Item = [Card; 3]> {
    let deck = cards::deck();
    (0..52).flat_map(move |a| {
        let deck = deck.clone();
        (a + 1..52).flat_map(move |b| {
            let deck = deck.clone();
            (b + 1..52).map(move |c| [deck[a], deck[b], deck[c]])
        })
    })
}

/// How many of the 22,100 hands fall in each category, counted over every hand.
pub fn category_count(category: Category) -> u64 {
    every_hand().filter(|hand| evaluate(hand).category == category).count() as u64
}

/// How many of the 22,100 hands make the progressive's `code`, counted over every hand.
pub fn premio_count(code: &str) -> u64 {
    every_hand().filter(|hand| premio(hand) == Some(code)).count() as u64
}

/// How many of the 22,100 hands would qualify as the dealer's.
pub fn qualifying_count() -> u64 {
    every_hand().filter(|hand| qualifies(&evaluate(hand))).count() as u64
}

fn disjoint(a: &[Card; 3], b: &[Card; 3]) -> bool {
    a.iter().all(|card| !b.contains(card))
}

/// Of the [`SEAT_PAIRS`] ordered pairs of disjoint hands (two seats of one round), how many make
/// `code` both: counted by walking every pair of the code's hands.
pub fn seat_pair_count(code: &str) -> u64 {
    let hands: Vec<[Card; 3]> = every_hand().filter(|hand| premio(hand) == Some(code)).collect();
    hands.iter().map(|a| hands.iter().filter(|b| disjoint(a, b)).count() as u64).sum()
}

/// An exact fraction, with its value for reading.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ratio {
    pub numerator: u64,
    pub denominator: u64,
    pub value: f64,
}

impl Ratio {
    /// `numerator / denominator`, reduced.
    // Its value is for reading; the fraction is exact.
    #[allow(clippy::float_arithmetic)]
    pub fn new(numerator: u64, denominator: u64) -> Ratio {
        assert!(denominator > 0, "a fraction over zero");
        let (mut a, mut b) = (numerator, denominator);
        while b != 0 {
            (a, b) = (b, a % b);
        }
        let (numerator, denominator) = (numerator / a.max(1), denominator / a.max(1));
        Ratio { numerator, denominator, value: numerator as f64 / denominator as f64 }
    }

    /// The same fraction over `denominator` (which it must divide), as the docs write it.
    pub fn over(&self, denominator: u64) -> u64 {
        assert_eq!(denominator % self.denominator, 0, "{} divides {denominator}", self.denominator);
        self.numerator * (denominator / self.denominator)
    }
}

/// What the progressive returns per unit of side bet, with the meter at `meter_units` units,
/// before envy: every hand's award (the meter, or its units) over the 22,100 hands. Each amount is
/// what the seat receives in all (no stake returned on top).
pub fn progressive_return(meter_units: u64) -> Ratio {
    let award = |hand: &[Card; 3]| match premio(hand).and_then(line).map(|line| line.award) {
        Some(Award::Meter) => meter_units,
        Some(Award::Units(units)) => units,
        None => 0,
    };
    Ratio::new(every_hand().map(|hand| award(&hand)).sum(), HANDS)
}

/// The envy a seat holding the side bet expects per round from one *other* seat of its round
/// holding it too, in units: over every ordered pair of disjoint hands (the other seat's, the
/// seat's own), the envy the other's hand pays, over [`SEAT_PAIRS`]. A seat expects this times
/// the other seats with the side bet; nothing from its own hand.
pub fn envy_per_other_seat() -> Ratio {
    let mut envy = 0;
    for hitter in every_hand() {
        let units = premio(&hitter).and_then(line).map_or(0, |line| line.envy_units);
        if units > 0 {
            envy += units * every_hand().filter(|own| disjoint(&hitter, own)).count() as u64;
        }
    }
    Ratio::new(envy, SEAT_PAIRS)
}

/// [`envy_per_other_seat`] for a seat of a round where `seats` seats (it among them) hold the
/// side bet.
pub fn envy_per_seat(seats: usize) -> Ratio {
    let per_other = envy_per_other_seat();
    Ratio::new(per_other.numerator * seats.saturating_sub(1) as u64, per_other.denominator)
}

/// What Pair Plus returns per unit bet (3.10.2): the stake and its multiple on a pair or better,
/// over the 22,100 hands. Judged on the seat's hand alone: a seat playing Pair Plus without the
/// ante (Introducción: "Se pueden jugar estos juegos por separado"), or one that never folds a pair
/// or better (a fold loses the Pair Plus bet too, 3.7.2.1).
pub fn pair_plus_return() -> Ratio {
    let paid = |hand: &[Card; 3]| pair_plus_multiple(evaluate(hand).category).map_or(0, |multiple| multiple + 1);
    Ratio::new(every_hand().map(|hand| paid(&hand)).sum(), HANDS)
}

/// Why the ante and play game's return is not computed.
pub const MAIN_GAME_NOT_COMPUTED: &str = "not computed: its return depends on when the player plays and when he folds \
     (Introducción, 3.7.1-3.7.3), for which the procedures give no strategy; and they do not say what the play bet \
     does when the dealer does not qualify (3.10.1 and 3.10.3 pay the ante only)";

/// A count of hands out of 22,100.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Count {
    pub name: String,
    pub hands: u64,
}

/// The exact figures of [`GAME`] and its progressive, each counted over the 22,100 hands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Returns {
    pub hands: u64,
    /// Each category's hands, highest first.
    pub categories: Vec<Count>,
    /// The hands that qualify as the dealer's (a queen or better).
    pub dealer_qualifies: u64,
    /// Each premio code's hands, highest first.
    pub codes: Vec<Count>,
    /// The progressive's return is (meter_hands × the meter + fixed_units) / hands per unit bet.
    pub progressive_fixed_units: u64,
    pub progressive_meter_hands: u64,
    /// The meter (units) at which `progressive` is given.
    pub meter_units: u64,
    /// The progressive's return before envy at `meter_units`.
    pub progressive: Ratio,
    /// What 1,000 more units on the meter add to the return.
    pub progressive_per_1000_meter_units: Ratio,
    /// The envy a seat expects per round from each other seat with the side bet.
    pub envy_per_other_seat: Ratio,
    /// The envy a seat expects per round at a full table ([`SEATS`] seats with the side bet).
    pub envy_per_seat_full_table: Ratio,
    /// Pair Plus (3.10.2), per unit bet.
    pub pair_plus: Ratio,
    /// The ante and play game.
    pub ante_and_play: &'static str,
}

/// The meter the docs quote the progressive's return at.
pub const REFERENCE_METER_UNITS: u64 = 5_000;

/// Every exact figure, with the progressive's return at `meter_units`.
pub fn returns(meter_units: u64) -> Returns {
    let fixed = progressive_return(0).over(HANDS);
    let per_1000 = progressive_return(1_000).over(HANDS) - fixed;
    Returns {
        hands: every_hand().count() as u64,
        categories: Category::ALL
            .iter()
            .map(|category| Count { name: category.name().to_owned(), hands: category_count(*category) })
            .collect(),
        dealer_qualifies: qualifying_count(),
        codes: PROGRESSIVE.iter().map(|line| Count { name: line.code.to_owned(), hands: premio_count(line.code) }).collect(),
        progressive_fixed_units: fixed,
        progressive_meter_hands: progressive_return(1).over(HANDS) - fixed,
        meter_units,
        progressive: progressive_return(meter_units),
        progressive_per_1000_meter_units: Ratio::new(per_1000, HANDS),
        envy_per_other_seat: envy_per_other_seat(),
        envy_per_seat_full_table: envy_per_seat(SEATS),
        pair_plus: pair_plus_return(),
        ante_and_play: MAIN_GAME_NOT_COMPUTED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(cards: [(u8, u8); 3]) -> [Card; 3] {
        cards.map(|(rank, suit)| Card::new(rank, suit))
    }

    #[test]
    fn every_three_card_hand_falls_in_its_known_category() {
        assert_eq!(every_hand().count() as u64, HANDS);
        let mut counts = std::collections::BTreeMap::<Category, u64>::new();
        for cards in every_hand() {
            *counts.entry(evaluate(&cards).category).or_default() += 1;
        }
        // Straight flush: 12 runs (A-2-3 to Q-K-A) × 4 suits; three of a kind: 13 × C(4, 3);
        // straight: 12 × (4³ − 4); flush: 4 × (C(13, 3) − 12); pair: 13 × C(4, 2) × 48;
        // high card: (C(13, 3) − 12) × (4³ − 4).
        let known = [
            (Category::StraightFlush, 48),
            (Category::ThreeOfAKind, 52),
            (Category::Straight, 720),
            (Category::Flush, 1_096),
            (Category::Pair, 3_744),
            (Category::HighCard, 16_440),
        ];
        for (category, count) in known {
            assert_eq!(counts[&category], count, "{category:?}");
            assert_eq!(category_count(category), count, "{category:?}");
        }
        assert_eq!(known.iter().map(|(_, count)| count).sum::<u64>(), HANDS);
        assert_eq!(known.map(|(category, _)| category), Category::ALL);
    }

    #[test]
    fn every_hand_gives_the_progressive_its_known_codes() {
        let known = [(MINI_ROYAL_PICAS, 1), (MINI_ROYAL, 3), (ESCALERA_COLOR, 44), (PIERNA, 52)];
        for (code, count) in known {
            assert_eq!(premio_count(code), count, "{code}");
        }
        assert_eq!(PROGRESSIVE.map(|line| line.code), known.map(|(code, _)| code), "highest first");
        // The highest only: every straight flush is paid once, as a mini royal or as a straight flush.
        assert_eq!(1 + 3 + 44, category_count(Category::StraightFlush));
        assert_eq!(cards::SUITS[usize::from(PICAS)], "picas");
        assert_eq!(premio(&hand([(14, PICAS), (13, PICAS), (12, PICAS)])), Some(MINI_ROYAL_PICAS));
        assert_eq!(premio(&hand([(12, 0), (14, 0), (13, 0)])), Some(MINI_ROYAL));
        assert_eq!(premio(&hand([(14, PICAS), (2, PICAS), (3, PICAS)])), Some(ESCALERA_COLOR));
        assert_eq!(premio(&hand([(7, 0), (7, 1), (7, PICAS)])), Some(PIERNA));
        assert_eq!(premio(&hand([(14, PICAS), (13, PICAS), (12, 0)])), None, "a straight");
    }

    #[test]
    fn hands_rank_as_3_9_ranks_them() {
        let value = |cards| evaluate(&hand(cards));
        // 3.9's examples.
        assert_eq!(value([(10, 2), (9, 0), (5, 3)]).category, Category::HighCard);
        assert_eq!(value([(6, 2), (6, 0), (11, 3)]).category, Category::Pair);
        assert_eq!(value([(14, 0), (8, 0), (7, 0)]).category, Category::Flush);
        assert_eq!(value([(14, 0), (13, 1), (12, 1)]).category, Category::Straight);
        assert_eq!(value([(8, 1), (7, 0), (6, 3)]).category, Category::Straight);
        assert_eq!(value([(3, 1), (3, 3), (3, 0)]).category, Category::ThreeOfAKind);
        assert_eq!(value([(6, 3), (5, 3), (4, 3)]).category, Category::StraightFlush);
        // "El As puede jugarse delante del dos o detrás del rey": A-2-3 is the lowest straight.
        let ace_two_three = value([(3, 0), (2, 1), (14, 2)]);
        assert_eq!(ace_two_three, Value { category: Category::Straight, ranks: [3, 0, 0] });
        assert!(value([(4, 0), (3, 1), (2, 2)]) > ace_two_three);
        assert!(value([(14, 0), (13, 1), (12, 2)]) > value([(13, 0), (12, 1), (11, 2)]));
        assert_eq!(value([(13, 0), (14, 1), (2, 2)]).category, Category::HighCard, "no wrap-around K-A-2");
        // Straight flush > three of a kind > straight > flush > pair > high card.
        let ladder = [
            value([(4, 0), (3, 0), (2, 0)]),
            value([(2, 0), (2, 1), (2, 2)]),
            value([(4, 0), (3, 1), (2, 0)]),
            value([(5, 0), (3, 0), (2, 0)]),
            value([(2, 0), (2, 1), (3, 0)]),
            value([(14, 0), (13, 1), (11, 0)]),
        ];
        assert!(ladder.windows(2).all(|pair| pair[0] > pair[1]), "{ladder:?}");
        // 3.10.6–3.10.7: a pair of 7s beats a pair of 5s; A-10-6 beats A-9-7; the same ranks tie.
        assert!(value([(7, 0), (7, 1), (2, 2)]) > value([(5, 0), (5, 1), (14, 2)]));
        assert!(value([(5, 0), (5, 1), (14, 2)]) > value([(5, 2), (5, 3), (13, 2)]));
        assert!(value([(14, 0), (10, 1), (6, 2)]) > value([(14, 1), (9, 2), (7, 3)]));
        assert_eq!(value([(14, 0), (10, 1), (6, 2)]), value([(14, 1), (10, 2), (6, 3)]));
    }

    #[test]
    fn the_dealer_qualifies_with_a_queen_or_better() {
        let qualifying = |cards| qualifies(&evaluate(&hand(cards)));
        assert!(qualifying([(12, 0), (5, 1), (2, 2)]));
        assert!(qualifying([(14, 0), (13, 0), (9, 1)]), "3.9: A♥ K♥ 9♣");
        assert!(!qualifying([(11, 0), (9, 1), (8, 2)]));
        assert!(!qualifying([(10, 0), (9, 1), (5, 3)]), "3.9: 10♣ 9♥ 5♠ no califica");
        assert!(qualifying([(2, 0), (2, 1), (3, 2)]), "any pair");
        assert!(qualifying([(4, 0), (3, 1), (2, 2)]), "a jack-high or lower straight");
        assert!(qualifying([(9, 0), (5, 0), (2, 0)]), "a nine-high flush");
        // Not qualifying: jack-high or lower, no pair, straight or flush: C(10, 3) rank sets less
        // the 8 runs 2-3-4 to 9-10-J, times 4³ − 4 suitings.
        assert_eq!(qualifying_count(), HANDS - (120 - 8) * 60);
        assert_eq!(qualifying_count(), 15_380);
    }

    #[test]
    fn a_round_is_dealt_one_card_at_a_time_the_dealer_last_in_each_turn() {
        let deck = cards::deck();
        let at = |card: &Card| deck.iter().position(|other| other == card).expect("a card of the deck");
        let round = deal(3, &deck);
        let seats: Vec<Vec<usize>> = round.seats.iter().map(|cards| cards.iter().map(at).collect()).collect();
        assert_eq!(seats, [vec![0, 4, 8], vec![1, 5, 9], vec![2, 6, 10]]);
        assert_eq!(round.dealer.map(|card| at(&card)), [3, 7, 11]);
        assert_eq!(cards(SEATS), 21);
        let full = deal(SEATS, &deck);
        assert_eq!(full.seats.len(), SEATS);
        let mut dealt: Vec<Card> = full.seats.iter().flatten().chain(&full.dealer).copied().collect();
        dealt.sort();
        dealt.dedup();
        assert_eq!(dealt.len(), cards(SEATS), "one deck, no card twice");
    }

    #[test]
    fn two_seats_of_a_round_make_a_code_together_as_counted() {
        assert_eq!(HANDS * OTHER_HANDS, SEAT_PAIRS);
        assert_eq!(OTHER_HANDS, 49 * 48 * 47 / 6);
        // One A-K-Q of picas; mini royals of two suits (3 × 2); straight flushes of two suits (44
        // × 33) or of one suit 3 or more runs apart (2 × 36 × 4); two of the 52 three-of-a-kinds
        // not of one rank (52 × 51 − 13 × 4 × 3).
        let known = [(MINI_ROYAL_PICAS, 0), (MINI_ROYAL, 6), (ESCALERA_COLOR, 1_740), (PIERNA, 2_496)];
        for (code, count) in known {
            assert_eq!(seat_pair_count(code), count, "{code}");
        }
    }

    #[test]
    fn the_progressive_returns_61_percent_at_5000_units_and_4_5_points_more_per_1000() {
        // 1 × the meter + 3 × 500 + 44 × 100 + 52 × 50 = the meter + 8,500, over 22,100.
        assert_eq!(progressive_return(5_000).over(HANDS), 13_500);
        assert_eq!(progressive_return(0).over(HANDS), 8_500);
        for meter in [0, 1_000, 5_000, 12_345] {
            assert_eq!(progressive_return(meter).over(HANDS), meter + 8_500, "{meter}");
        }
        let figures = returns(REFERENCE_METER_UNITS);
        assert_eq!((figures.progressive_fixed_units, figures.progressive_meter_hands), (8_500, 1));
        assert_eq!(figures.progressive_per_1000_meter_units, Ratio::new(1_000, HANDS));
        assert_eq!(format!("{:.4}", figures.progressive.value), "0.6109");
        assert_eq!(format!("{:.4}", figures.progressive_per_1000_meter_units.value), "0.0452");
    }

    #[test]
    fn envy_is_175_units_per_22100_hands_of_each_other_seat() {
        // 100 × 1 (A-K-Q of picas) + 25 × 3 (the other mini royals) = 175 over 22,100: whatever a
        // seat holds, another seat's hand is any of the 22,100 with the same chance.
        let per_other = envy_per_other_seat();
        assert_eq!(per_other, Ratio::new(175, HANDS));
        assert_eq!(per_other.over(HANDS), 175);
        assert_eq!((per_other.numerator, per_other.denominator), (7, 884));
        assert_eq!(envy_per_seat(1).numerator, 0, "no envy from one's own hand");
        assert_eq!(envy_per_seat(SEATS).over(HANDS), 5 * 175);
        assert_eq!(format!("{:.5}", envy_per_seat(SEATS).value), "0.03959");
    }

    #[test]
    fn pair_plus_returns_20492_of_22100() {
        // 3.10.2, stake included: 2 × 3,744 + 4 × 1,096 + 7 × 720 + 31 × 52 + 41 × 48.
        assert_eq!(2 * 3_744 + 4 * 1_096 + 7 * 720 + 31 * 52 + 41 * 48, 20_492);
        assert_eq!(pair_plus_return().over(HANDS), 20_492);
        assert_eq!(format!("{:.4}", pair_plus_return().value), "0.9272");
    }
}
