//! Property tests of a tournament's prize arithmetic (Res. 123/2013 art. 62–65, 71, 72, Anexo
//! II; docs/readings.md, "The tournament's prize pool").
//!
//! Random valid structures are written as a structures file and parsed (so the generator's
//! structures must be accepted), random purchase mixes and refunds are booked, and every
//! centavo is checked exactly: money is `Decimal`, there is no tolerance anywhere except the
//! one payout unit the articles' rounding allows.
//!
//! Every test runs `PROPTEST_CASES` cases (default 1,000). Failures are not persisted to a
//! regressions file; the minimal failing input is in the panic message.

use pozo_engine::money;
use pozo_engine::tournament::{Collected, Item, Kind, PrizePool, Structure, StructureError, payouts, redistribute, split};
use pozo_engine::{EngineError, Money};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::Config;
use rust_decimal::Decimal;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(1_000);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// One item as the generator writes it: the price in payout units, the share in ten-thousandths.
#[derive(Clone, Debug)]
struct OfferSpec {
    units: u32,
    chips: u32,
    to_prizes: u32,
    per_player: u32,
}

/// A structure as the generator writes it.
#[derive(Clone, Debug)]
struct Spec {
    kind: Kind,
    unit: Money,
    offers: [Option<OfferSpec>; 3],
    max_entrants: u32,
    /// Each row: its fewest and most entrants and its places in hundredths of a percent.
    rows: Vec<(u32, u32, Vec<u32>)>,
}

fn share(ten_thousandths: u32) -> Decimal {
    Decimal::new(i64::from(ten_thousandths), 4)
}

fn price(spec: &Spec, offer: &OfferSpec) -> Money {
    spec.unit * Decimal::from(offer.units)
}

impl Spec {
    fn render(&self) -> String {
        let mut text = format!(
            "[[torneo]]\nid = \"p\"\nname = \"Propiedad\"\nkind = \"{}\"\ncurrency = \"ARS\"\npayout_unit = \"{}\"\n",
            self.kind.name(),
            self.unit
        );
        for (item, offer) in Item::ALL.iter().zip(&self.offers) {
            if let Some(offer) = offer {
                let per_player =
                    if *item == Item::BuyIn { String::new() } else { format!(", per_player = {}", offer.per_player) };
                text.push_str(&format!(
                    "{} = {{ price = \"{}\", chips = {}, to_prizes = \"{}\"{per_player} }}\n",
                    item.key(),
                    price(self, offer),
                    offer.chips,
                    share(offer.to_prizes)
                ));
            }
        }
        text.push_str(&format!("max_entrants = {}\n", self.max_entrants));
        for (min, max, places) in &self.rows {
            let places: Vec<String> = places.iter().map(|place| format!("\"{}\"", Decimal::new(i64::from(*place), 2))).collect();
            text.push_str(&format!("[[torneo.premios]]\nentrants = [{min}, {max}]\nplaces = [{}]\n", places.join(", ")));
        }
        text
    }

    fn structure(&self) -> Structure {
        let text = self.render();
        let mut structures = Structure::parse(&text).unwrap_or_else(|error| panic!("a valid structure refused: {error}\n{text}"));
        structures.remove(0)
    }
}

fn offer(min_share: u32) -> impl Strategy<Value = OfferSpec> {
    (1u32..=2_000_000, 1u32..=100_000, min_share..=10_000u32, 1u32..=4)
        .prop_map(|(units, chips, to_prizes, per_player)| OfferSpec { units, chips, to_prizes, per_player })
}

/// `count` shares in hundredths of a percent, each > 0, never increasing, adding to 10,000.
fn places(count: usize) -> impl Strategy<Value = Vec<u32>> {
    vec(100u32..=1_000, count).prop_map(|weights| {
        let total: u32 = weights.iter().sum();
        let mut places: Vec<u32> = weights.iter().map(|weight| weight * 10_000 / total).collect();
        places.sort_unstable_by(|a, b| b.cmp(a));
        let sum: u32 = places.iter().sum();
        places[0] += 10_000 - sum;
        places
    })
}

/// Rows covering 2..=`max` cut at `cuts`, each paying no more places than its fewest entrants.
fn rows(max: u32, cuts: Vec<u32>, sit_and_go: bool) -> impl Strategy<Value = Vec<(u32, u32, Vec<u32>)>> {
    let mut bounds: Vec<u32> = cuts.into_iter().filter(|cut| (2..max).contains(cut)).collect();
    bounds.sort_unstable();
    bounds.dedup();
    let mut ranges = Vec::new();
    let mut start = 2;
    for cut in bounds {
        ranges.push((start, cut));
        start = cut + 1;
    }
    ranges.push((start, max));
    // Res. 123/2013 art. 26: a Sit & Go's row for 10 is [10, 10].
    if sit_and_go && max == 10 {
        let (first, _) = ranges.pop().expect("a range");
        if first < 10 {
            ranges.push((first, 9));
        }
        ranges.push((10, 10));
    }
    ranges
        .into_iter()
        .map(|(min, max)| {
            // Res. 123/2013 art. 26: up to 9 players the first 2, with 10 the first 3.
            let (fewest, most) = match (sit_and_go, max < 10) {
                (true, true) => (2, 2),
                (true, false) => (3, 3),
                (false, _) => (1, (min as usize).min(12)),
            };
            (Just(min), Just(max), (fewest..=most).prop_flat_map(places))
        })
        .collect::<Vec<_>>()
}

fn spec_with(min_share: u32) -> impl Strategy<Value = Spec> {
    let unit = prop_oneof![Just(money!(0.01)), Just(money!(0.05)), Just(money!(1)), Just(money!(10))];
    let kind = prop_oneof![Just(Kind::Multimesa), Just(Kind::SitAndGo)];
    (kind, unit, offer(min_share), proptest::option::of(offer(min_share)), proptest::option::of(offer(min_share)))
        .prop_flat_map(|(kind, unit, buy_in, rebuy, add_on)| {
            let max = if kind == Kind::SitAndGo { (2u32..=10).boxed() } else { (2u32..=300).boxed() };
            (Just(kind), Just(unit), Just([Some(buy_in), rebuy, add_on]), max, vec(2u32..=300, 0..6))
        })
        .prop_flat_map(|(kind, unit, offers, max_entrants, cuts)| {
            rows(max_entrants, cuts, kind == Kind::SitAndGo).prop_map(move |rows| Spec {
                kind,
                unit,
                offers: offers.clone(),
                max_entrants,
                rows,
            })
        })
}

fn spec() -> impl Strategy<Value = Spec> {
    spec_with(7_000)
}

/// A structure and a mix of purchases and refunds under it: the counts bought per item and the
/// refunds asked for.
fn booked() -> impl Strategy<Value = (Spec, [u32; 3], [u32; 3])> {
    spec().prop_flat_map(|spec| {
        let max = spec.max_entrants;
        (Just(spec), [0..=max, 0..=max * 4, 0..=max * 4], [0..=max, 0..=max, 0..=max])
    })
}

/// Books up to `counts` purchases and then up to `refunds` refunds, rebuys and add-ons first;
/// what the articles refuse is skipped. Returns the purchases and what each count must be.
fn book(structure: &Structure, counts: [u32; 3], refunds: [u32; 3]) -> (Collected, [u32; 3]) {
    let mut collected = Collected::new(structure);
    let mut expected = [0u32; 3];
    for (index, item) in Item::ALL.into_iter().enumerate() {
        for _ in 0..counts[index] {
            match collected.purchase(item) {
                Ok(price) => {
                    assert_eq!(price, structure.offer(item).expect("offered").price);
                    expected[index] += 1;
                }
                Err(EngineError::NotNow { .. } | EngineError::Invalid { .. }) => break,
                Err(other) => panic!("{other}"),
            }
        }
    }
    for (index, item) in [(1, Item::Rebuy), (2, Item::AddOn), (0, Item::BuyIn)] {
        for _ in 0..refunds[index] {
            if collected.refund(item).is_ok() {
                expected[index] -= 1;
            }
        }
    }
    (collected, expected)
}

#[test]
fn every_centavo_collected_is_in_the_prizes_or_the_houses_and_each_item_gives_at_least_70_percent() {
    proptest!(config(), |((spec, counts, refunds) in booked())| {
        let structure = spec.structure();
        let (collected, expected) = book(&structure, counts, refunds);
        let pool = PrizePool::of(&structure, &collected);
        let unit = structure.payout_unit();
        let mut collected_total = Money::ZERO;
        let mut at_least = Money::ZERO;
        for (index, item) in Item::ALL.into_iter().enumerate() {
            let Some(offer) = structure.offer(item) else {
                prop_assert!(pool.item(item).is_none());
                prop_assert_eq!(collected.tally(item).count, 0);
                continue;
            };
            let part = pool.item(item).expect("an offered item has its part");
            // Each purchase at its price, less refunds.
            prop_assert_eq!(part.count, expected[index]);
            prop_assert_eq!(part.collected, offer.price * Decimal::from(expected[index]));
            // Res. 123/2013 art. 62, Anexo IV 6: at least 70 % of each item, exactly its share.
            prop_assert_eq!(part.prizes, part.collected * offer.to_prizes);
            prop_assert!(part.prizes >= part.collected * Decimal::new(70, 2));
            prop_assert_eq!(part.prizes + part.house, part.collected);
            prop_assert!(part.house >= Money::ZERO);
            collected_total += part.collected;
            at_least += part.collected * Decimal::new(70, 2);
        }
        prop_assert_eq!(pool.collected, collected_total);
        prop_assert_eq!(collected.total(), collected_total);
        prop_assert_eq!(pool.prizes + pool.house, pool.collected);
        prop_assert_eq!((pool.prizes / unit).fract(), Decimal::ZERO, "the prizes are whole payout units");
        // Art. 62: never under 70 % of each item, rounded up by less than one unit.
        prop_assert!(pool.prizes >= at_least, "70 % of each item: {} vs {}", pool.prizes, at_least);
        prop_assert!(pool.rounding >= Money::ZERO && pool.rounding < unit);
        let exact: Money = pool.items.iter().map(|part| part.prizes).sum();
        prop_assert_eq!(pool.prizes - pool.rounding, exact);
        prop_assert!(pool.prizes <= pool.collected);
    });
}

#[test]
fn the_payouts_add_up_to_the_prizes_and_never_increase_by_position() {
    let case = spec().prop_flat_map(|spec| {
        let max = spec.max_entrants;
        (Just(spec), 2..=max, 0u64..=10_000_000_000)
    });
    proptest!(config(), |((spec, entrants, units) in case)| {
        let structure = spec.structure();
        let unit = structure.payout_unit();
        let prizes = unit * Decimal::from(units);
        let paid = payouts(&structure, entrants, prizes).expect("entrants within the table");
        let row = structure.row(entrants).expect("a row");
        prop_assert_eq!(paid.len(), row.places.len());
        prop_assert_eq!(paid.iter().sum::<Money>(), prizes);
        for (index, (amount, percent)) in paid.iter().zip(&row.places).enumerate() {
            prop_assert!(*amount >= Money::ZERO);
            prop_assert_eq!((*amount / unit).fract(), Decimal::ZERO);
            let exact = prizes * *percent / Decimal::ONE_HUNDRED;
            if index > 0 {
                // Rounded down to the unit: within one unit under the exact share.
                prop_assert!(*amount <= exact && exact - *amount < unit, "place {}: {} of {}", index + 1, amount, exact);
            } else {
                prop_assert!(*amount >= exact - unit, "first place keeps the odd units");
            }
        }
        prop_assert!(paid.windows(2).all(|pair| pair[0] >= pair[1]), "{:?}", paid);
        // Outside the table: refused, naming the entrants.
        for outside in [0, 1, spec.max_entrants + 1] {
            prop_assert_eq!(payouts(&structure, outside, prizes).map_err(|error| error.field().to_owned()), Err("entrants".to_owned()));
        }
    });
}

#[test]
fn the_payouts_of_a_pool_pay_exactly_its_prizes() {
    proptest!(config(), |((spec, counts, refunds) in booked())| {
        let structure = spec.structure();
        let (collected, expected) = book(&structure, counts, refunds);
        let pool = PrizePool::of(&structure, &collected);
        let entrants = expected[0].max(2);
        let paid = payouts(&structure, entrants, pool.prizes).expect("entrants within the table");
        prop_assert_eq!(paid.iter().sum::<Money>() + pool.house, pool.collected);
    });
}

fn unit() -> impl Strategy<Value = Money> {
    prop_oneof![Just(money!(0.01)), Just(money!(0.05)), Just(money!(1)), Just(money!(10))]
}

#[test]
fn splits_and_redistributions_conserve_exactly_and_differ_by_at_most_one_unit() {
    let case = (unit(), vec(0u64..=1_000_000_000, 1..8), 1u32..=40, 0u64..=1_000_000_000);
    proptest!(config(), |((unit, in_play, players, prize) in case)| {
        let in_play: Vec<Money> = in_play.into_iter().map(|units| unit * Decimal::from(units)).collect();
        let prize = unit * Decimal::from(prize);
        for (total, parts) in [
            (in_play.iter().sum::<Money>(), split(&in_play, players, unit).expect("a valid split")),
            (prize, redistribute(prize, players, unit).expect("a valid redistribution")),
        ] {
            prop_assert_eq!(parts.len(), players as usize);
            prop_assert_eq!(parts.iter().sum::<Money>(), total);
            prop_assert!(parts.iter().all(|part| *part >= Money::ZERO && (*part / unit).fract().is_zero()));
            // The units left go one by one, first in the order given.
            prop_assert!(parts.windows(2).all(|pair| pair[0] >= pair[1]), "{:?}", parts);
            let (first, last) = (parts[0], parts[parts.len() - 1]);
            prop_assert!(first - last <= unit, "{:?}", parts);
        }
    });
}

#[test]
fn a_structure_with_a_share_under_70_percent_is_refused_naming_the_field() {
    let case = (spec(), 0usize..3, 0u32..7_000);
    proptest!(config(), |((mut spec, index, share) in case)| {
        let index = if spec.offers[index].is_some() { index } else { 0 };
        spec.offers[index].as_mut().expect("offered").to_prizes = share;
        let field = format!("{}.to_prizes", Item::ALL[index].key());
        match Structure::parse(&spec.render()) {
            Err(StructureError::Field { torneo, field: refused, problem }) => {
                prop_assert_eq!(torneo.as_deref(), Some("p"));
                prop_assert_eq!(refused, field);
                prop_assert!(problem.contains("Res. 123/2013 art. 62, Anexo IV 6"), "{}", problem);
            }
            other => prop_assert!(false, "a share of {} accepted: {:?}", share, other),
        }
    });
}

#[test]
fn every_structure_the_generator_writes_is_accepted_and_read_back() {
    proptest!(config(), |(spec in spec_with(7_000))| {
        let structure = spec.structure();
        prop_assert_eq!(structure.kind(), spec.kind);
        prop_assert_eq!(structure.max_entrants(), spec.max_entrants);
        prop_assert_eq!(structure.premios().len(), spec.rows.len());
        for entrants in 2..=spec.max_entrants {
            prop_assert!(structure.row(entrants).is_some(), "{} entrants have a row", entrants);
        }
        prop_assert!(structure.row(spec.max_entrants + 1).is_none() && structure.row(1).is_none());
    });
}
