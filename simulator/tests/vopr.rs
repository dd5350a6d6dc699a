//! The seeded simulation (`pozo-sim vopr`) in CI: a bounded number of seeds with every fault,
//! each replayed from its seed alone to the same trace, and every kind of fault met.

use pozo_sim::vopr::{Options, Outcome, Pair, Rulebooks, run};

/// Seeds CI runs, and steps per seed: a few minutes on a 2-core machine (docs/benchmarks.md).
const SEEDS: u64 = 40;
const STEPS: u64 = 1_000;

/// One seed at a time: a seed plants its panic hook and runs on this thread.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn play(seed: u64, steps: u64, faults: bool) -> Outcome {
    play_on(Rulebooks::Regulations, seed, steps, faults)
}

fn play_on(rulebooks: Rulebooks, seed: u64, steps: u64, faults: bool) -> Outcome {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match run(Options { seed, steps, faults, plant: None, pair: Pair::BySeed, rulebooks }) {
        Ok(outcome) => outcome,
        Err(failure) => panic!("{failure}"),
    }
}

/// Seeds CI runs on the market's rulebooks (a few seconds each in a debug build).
const MARKET_SEEDS: u64 = 4;

// Proves the seeded simulation plays the market's progressives (config/mercado.toml through
// config/examples/mercado-casino.toml, and the cross-game link's tables of
// pozo_sim::casino::market_floor) with every fault and breaks no invariant — every level of
// every pool on its own books after every entry, every award answered the journal's, the levels
// of every snapshot the journal's — and that the seeds pay every level of the link, the Three Card
// Poker meter, the house's prizes and the envy bonus, a writer and its standby among them.
#[test]
fn market_seeds_with_every_fault_tie_every_level_and_pay_every_level() {
    let outcomes: Vec<Outcome> = (1..=MARKET_SEEDS).map(|seed| play_on(Rulebooks::Market, seed, STEPS, true)).collect();
    let mut paid = std::collections::BTreeMap::<String, u64>::new();
    for outcome in &outcomes {
        for (code, hits) in &outcome.awards {
            *paid.entry(code.clone()).or_default() += hits;
        }
    }
    let mut levels = std::collections::BTreeMap::<String, u64>::new();
    for outcome in &outcomes {
        for (level, hits) in &outcome.level_awards {
            *levels.entry(level.clone()).or_default() += hits;
        }
    }
    println!(
        "{MARKET_SEEDS} market seeds: awards {paid:?}; per level {levels:?}; {}",
        pozo_sim::vopr::faults_injected(&outcomes)
    );
    // The cross-game link (LR1 and LB1 in flor F4, LCP1 in F5): its Grand, and each flor's own
    // Major and Mini, paid — by the journal's answers, each checked level by level, flor by flor.
    for level in ["Grand", "Major · F4", "Major · F5", "Mini · F4", "Mini · F5"] {
        let level = format!("mercado-gran-sala {level}");
        assert!(
            levels.get(&level).is_some_and(|hits| *hits > 0),
            "no award of {level} in {MARKET_SEEDS} market seeds: {levels:?}"
        );
    }
    assert!(paid.get("ESCALERA_COLOR").is_some_and(|hits| *hits > 0) && paid.get("PIERNA").is_some_and(|hits| *hits > 0));
    for code in [
        "TRES_SIETES_CORAZONES",
        "TRES_SIETES_MISMO_PALO",
        "CUATRO_ASES",
        "TRES_SIETES",
        "MINI_ROYAL_PICAS",
        "ENVIDIA_MINI_ROYAL_PICAS",
        "ENVIDIA_MINI_ROYAL",
        "GRILLO_BRONCE",
    ] {
        assert!(paid.get(code).is_some_and(|hits| *hits > 0), "no {code} in {MARKET_SEEDS} market seeds: {paid:?}");
    }
    assert!(outcomes.iter().any(|outcome| outcome.pair), "seed 3 runs a writer and its standby");
    assert!(outcomes.iter().map(|outcome| outcome.crashes_process + outcome.crashes_power).sum::<u64>() > 0);
    assert!(outcomes.iter().all(|outcome| outcome.rulebooks == Rulebooks::Market));
    // The same seed on the market's rulebooks replays to the same trace, and to another than the regulations'.
    let again = play_on(Rulebooks::Market, 1, STEPS, true);
    assert_eq!(again.digest, outcomes[0].digest, "market seed 1 played twice differs");
    assert_ne!(play(1, 200, true).digest, play_on(Rulebooks::Market, 1, 200, true).digest);
}

// Proves the seeded simulation plays the cross-game link's mystery level (its ceiling brought
// down to pozo_sim::vopr::MYSTERY_CEILING) through kill -9, power losses, restarts and a hot
// standby's takeovers: every seed draws and hits it many times; after each recovery and each
// takeover the open draws are the entries journaled before it (same commitment, never drawn
// again); and hits whose draw was committed before a recovery or a takeover are revealed after
// it, each opening that commitment (the pure core refuses a reveal that does not, and the
// simulation fails on it).
#[test]
fn the_mystery_level_is_never_redrawn_through_crashes_and_takeovers() {
    let alone = play_on(Rulebooks::Market, 1, STEPS, true);
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let options = Options { seed: 2, steps: STEPS, faults: true, plant: None, pair: Pair::Always, rulebooks: Rulebooks::Market };
    let pair = run(options).unwrap_or_else(|failure| panic!("{failure}"));
    for outcome in [&alone, &pair] {
        println!(
            "seed {} (pair {}): {} draws, {} hits, {} recoveries with open draws, {} hits across a recovery ({} across a \
             takeover), {} takeovers",
            outcome.seed,
            outcome.pair,
            outcome.mystery_draws,
            outcome.mystery_hits,
            outcome.draws_recovered,
            outcome.hits_across_recovery,
            outcome.hits_across_takeover,
            outcome.takeovers
        );
        assert!(outcome.mystery_hits >= 5 && outcome.mystery_draws > outcome.mystery_hits, "{outcome:?}");
        assert!(outcome.draws_recovered > 0 && outcome.hits_across_recovery > 0, "{outcome:?}");
    }
    assert!(alone.crashes_process + alone.crashes_power > 0);
    assert!(pair.pair && pair.takeovers > 0, "{pair:?}");
    // A standby took the lock over with a draw open, and its reveal opened the old writer's commitment.
    assert!(pair.hits_across_takeover > 0, "{pair:?}");
}

#[test]
fn a_seed_replays_to_the_same_trace() {
    let first = play(7, 600, true);
    let again = play(7, 600, true);
    assert!(first.runs > 1, "the seed crashed the controller at least once: {} runs", first.runs);
    assert_eq!(first.trace, again.trace, "seed 7 played twice differs");
    assert_eq!(first.digest, again.digest);
    assert_eq!(first.journal_id, again.journal_id, "the installation is drawn from the seed");
    // And another seed is another night.
    let other = play(8, 600, true);
    assert_ne!(first.digest, other.digest);
    assert_ne!(first.journal_id, other.journal_id);
    // A writer and its standby, with kills of one alone and takeovers, replay as well.
    let pair = play(9, 600, true);
    let pair_again = play(9, 600, true);
    assert!(pair.pair && !first.pair, "seed 9 runs a pair, seed 7 one controller");
    assert!(pair.takeovers > 0, "seed 9 changed writers: {pair:?}");
    assert_eq!(pair.trace, pair_again.trace, "seed 9 played twice differs");
}

#[test]
fn seeds_with_every_fault_break_no_invariant_and_meet_every_kind_of_fault() {
    let outcomes: Vec<Outcome> = (1..=SEEDS).map(|seed| play(seed, STEPS, true)).collect();
    let sum = |count: fn(&Outcome) -> u64| outcomes.iter().map(count).sum::<u64>();
    let met = [
        ("kill -9", sum(|o| o.crashes_process)),
        ("power lost", sum(|o| o.crashes_power)),
        ("a failed flush (fail-stop)", sum(|o| o.fail_stops)),
        ("a refused start, as documented", sum(|o| o.refusals_expected)),
        ("an append in flight lost", sum(|o| o.disk.in_flight_lost)),
        ("an append in flight landed", sum(|o| o.disk.in_flight_landed)),
        ("a lying sync", sum(|o| o.disk.lied)),
        ("entries taken by the power", sum(|o| o.disk.lost_to_power)),
        ("a meta value torn", sum(|o| o.disk.meta_torn)),
        ("a snapshot lost", sum(|o| o.disk.snapshot_lost)),
        ("a damaged read", sum(|o| o.disk.read_damaged)),
        ("a connection cut", sum(|o| o.net.cuts)),
        ("a partition", sum(|o| o.net.partitions)),
        ("a delay spike", sum(|o| o.net.spikes)),
        ("a clock jump", sum(|o| o.net.clock_jumps)),
        ("a retry", sum(|o| o.retries)),
        ("an answered command sent again", sum(|o| o.duplicates)),
        ("a Venta-Pagos decision", sum(|o| o.office_decisions)),
        ("a transfer two supervisors approved", sum(|o| o.changes)),
        ("a writer and its standby on a shared database", sum(|o| u64::from(o.pair))),
        ("one controller of a pair killed alone", sum(|o| o.kills_alone)),
        ("a writer's lock lost to its standby", sum(|o| o.locks_lost)),
        ("a standby taking over as the writer", sum(|o| o.takeovers)),
    ];
    println!("{SEEDS} seeds: {}", pozo_sim::vopr::faults_injected(&outcomes));
    let missing: Vec<&str> = met.iter().filter(|(_, count)| *count == 0).map(|(what, _)| *what).collect();
    assert!(missing.is_empty(), "{SEEDS} seeds never met: {missing:?} ({met:?})");
    assert!(sum(|o| o.acknowledged) > SEEDS * STEPS / 2, "most steps are commands answered: {met:?}");
}

#[test]
fn without_faults_a_seed_only_crashes_and_restarts() {
    let outcome = play(3, 400, false);
    assert_eq!(outcome.disk.lied + outcome.disk.read_damaged + outcome.net.cuts + outcome.net.partitions, 0);
    assert_eq!(outcome.refusals_expected, 0, "nothing lost, nothing refused");
    assert!(outcome.crashes_process + outcome.crashes_power > 0);
}
