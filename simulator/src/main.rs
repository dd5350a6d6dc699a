//! `pozo-sim`: plays real casino games against the controller, replays nights and
//! measures. Exit codes: 0 all good; 1 the books, the lights, the odds or the
//! replay differ; 2 the command could not run (bad options, no controller).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc, tuned (`pozo_alloc`).
#[global_allocator]
static ALLOCATOR: pozo_alloc::Allocator = pozo_alloc::Allocator;

/// Pozo simulator: a casino night that replays load and proves the books.
#[derive(Parser)]
#[command(name = "pozo-sim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The most hands `odds` deals in one run: a bound on its time.
const ODDS_HANDS_MAX: u64 = 100_000_000;

/// A deviation beyond this many standard errors fails `odds`.
const ODDS_TOLERANCE_SE: f64 = 4.0;

#[derive(Subcommand)]
enum Command {
    /// Play a night on many tables through real agents and check the books.
    Run {
        /// How many tables play (a generated casino of that many, or the first of --config's).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=pozo_sim::casino::TABLES_MAX as u64))]
        tables: u64,
        /// How many rounds every table plays before the tables close.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=pozo_sim::night::ROUNDS_MAX as i64))]
        rounds: u32,
        /// The seed: the same seed gives the same night and the same books.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A running controller (`http://127.0.0.1:50051`); without it one is started in this
        /// process on a temporary directory, with a generated casino of --tables tables.
        #[arg(long, value_name = "URL")]
        server: Option<String>,
        /// With --server: the layout it was started with (its first --tables tables are played).
        #[arg(long, value_name = "FILE", requires = "server")]
        config: Option<PathBuf>,
        /// With --server: the keys it was started with.
        #[arg(long, value_name = "FILE", requires = "server")]
        keys: Option<PathBuf>,
        /// How often a seat bets in a round, percent.
        #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u32).range(0..=100))]
        bet_percent: u32,
        /// Write the night's figures as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Keep the night's events for `pozo-sim replay`.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
        /// Draw each pool's balance after every round of the night as an SVG chart.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// The rulebooks the generated casino plays: the regulations' (embedded), or the
        /// market's progressives (config/mercado.toml: R roulette, B the four-level Black Jack
        /// link, CP Three Card Poker with the envy bonus, LR/LB/LCP the cross-game link
        /// mercado-gran-sala with a Major and a Mini per flor); embedded controller only.
        #[arg(long, value_parser = rulebooks_parser(), default_value = "regulations", conflicts_with = "server")]
        rulebooks: pozo_sim::casino::Rulebooks,
    },
    /// Drive a recorded night again on a new embedded controller; it must end in the same books.
    Replay {
        /// The night recorded by `pozo-sim run --record FILE`.
        file: PathBuf,
        /// Keep each step's recorded time from the start, instead of as fast as possible.
        #[arg(long)]
        recorded_speed: bool,
        /// Write the report as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Compare observed hit frequencies of each premio code with the exact probabilities; with
    /// --draws, test the mystery level's triggers and hot seats for uniformity.
    Odds {
        /// The game whose premio codes are dealt (ruleta-americana: the grillo series).
        #[arg(long, value_parser = game_parser(), required_unless_present = "draws")]
        game: Option<pozo_engine::Game>,
        /// Instead of a game: draw --samples mystery triggers in (--from, --ceiling] and as
        /// many hot seats among --seats with the controller's arithmetic, and test each for
        /// uniformity (Pearson's chi-square); exit 1 below --p-min or on a value out of range.
        #[arg(long, conflicts_with_all = ["game", "rulebooks", "hands"])]
        draws: bool,
        /// --draws: how many triggers (and as many hot seats).
        #[arg(long, default_value_t = 1_000_000, requires = "draws", value_parser = clap::value_parser!(u64).range(1..=pozo_sim::mystery::SAMPLES_MAX))]
        samples: u64,
        /// --draws: the words from the operating system's CSPRNG (as `serve` draws) instead of --seed.
        #[arg(long, requires = "draws")]
        os_random: bool,
        /// --draws: the trigger lies above this (the example's mystery reset, config/mercado.toml).
        #[arg(long, default_value = "20000.00", requires = "draws")]
        from: pozo_engine::money::Money,
        /// --draws: and at or below this (the example's must_hit_by).
        #[arg(long, default_value = "60000.00", requires = "draws")]
        ceiling: pozo_engine::money::Money,
        /// --draws: the triggers' bins, runs of consecutive centavos.
        #[arg(long, default_value_t = 100, requires = "draws")]
        bins: u64,
        /// --draws: the seats a hot seat is drawn among (84: config/examples/mercado-enlace.toml's link).
        #[arg(long, default_value_t = 84, requires = "draws")]
        seats: u64,
        /// --draws: fail below this p-value.
        #[arg(long, default_value_t = pozo_sim::mystery::P_MIN, requires = "draws")]
        p_min: f64,
        /// How many hands (or roulette series) to deal.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=ODDS_HANDS_MAX))]
        hands: u64,
        /// The seed: the same seed deals the same hands.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// market: also play the hands into the market's example paytable of the game
        /// (config/mercado.toml: blackjack the four-level link, three-card-poker its
        /// progressive) and into the cross-game link mercado-gran-sala (blackjack,
        /// three-card-poker, ruleta-americana): each level's hits against its exact odds, and
        /// the paytable's return.
        #[arg(long, value_parser = rulebooks_parser(), default_value = "regulations")]
        rulebooks: pozo_sim::casino::Rulebooks,
        /// Write the report as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Measure acknowledged presses per second against a bare gRPC echo, latency, memory and restart time.
    /// `pozo-sim bench --help` for its options.
    #[command(disable_help_flag = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The whole controller in one thread under a seed, with disk, network, clock and process
    /// faults, every invariant checked after every step; a failure names its seed and step
    /// and replays identically (docs/architecture.md, "The seeded simulation").
    Vopr {
        /// The first seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How many seeds, one after another from --seed.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=VOPR_SEEDS_MAX))]
        seeds: u64,
        /// Steps (answered actions) per seed.
        #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u64).range(1..=VOPR_STEPS_MAX))]
        steps: u64,
        /// Only crashes and restarts: no disk, network or clock faults.
        #[arg(long)]
        no_faults: bool,
        /// Which seeds run a writer and its hot standby on a shared database (by-seed: every
        /// third, those divisible by 3) instead of one controller on its own disk.
        #[arg(long, value_enum, default_value_t = PairArg::BySeed)]
        standby: PairArg,
        /// A known bug planted in the controller, for the simulation to find (a build with
        /// `--features planted-bugs` only).
        #[arg(long, value_parser = bug_parser())]
        plant: Option<pozo_sim::vopr::Bug>,
        /// The rulebooks the controller serves: the embedded ones, or the market's example
        /// (config/examples/mercado-casino.toml with config/iplyc.toml and config/mercado.toml).
        #[arg(long, value_parser = rulebooks_parser(), default_value = "regulations")]
        rulebooks: pozo_sim::casino::Rulebooks,
        /// Print each seed's whole trace.
        #[arg(long)]
        trace: bool,
        /// Write every seed's figures as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// A poker tournament (Res. 123/2013) played through a controller embedded in this process:
    /// structure approved by two supervisors, buy-ins, refunds, rebuys and add-ons, seat draws,
    /// eliminations with ties (art. 71, 72), a disqualification (Anexo II), chips sealed, every
    /// prize paid; prints the books in Spanish and exits 1 unless they tie to zero and every
    /// seat draw checks offline.
    Tournament {
        /// The seed: the same seed plays the same tournament.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Entrants at the close of registration (at most the structure's cap).
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(pozo_sim::tournament::PLAYERS_MIN as i64..=pozo_sim::tournament::PLAYERS_MAX as i64))]
        players: u32,
        /// The structure, by its id in config/torneos.toml (multimesa-semanal, sit-and-go-10).
        #[arg(long, default_value = pozo_sim::tournament::DEFAULT_STRUCTURE)]
        structure: String,
        /// Write the report as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// The processes `bench` starts (a controller, an echo server); not for operators.
    #[command(hide = true, disable_help_flag = true)]
    BenchChild {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// `vopr --standby`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum PairArg {
    BySeed,
    Always,
    Never,
}

impl From<PairArg> for pozo_sim::vopr::Pair {
    fn from(pair: PairArg) -> pozo_sim::vopr::Pair {
        match pair {
            PairArg::BySeed => pozo_sim::vopr::Pair::BySeed,
            PairArg::Always => pozo_sim::vopr::Pair::Always,
            PairArg::Never => pozo_sim::vopr::Pair::Never,
        }
    }
}

/// The most seeds one `vopr` runs: a bound on its time.
const VOPR_SEEDS_MAX: u64 = 1_000_000;

/// The most steps of one `vopr` seed.
const VOPR_STEPS_MAX: u64 = 1_000_000;

/// `--plant`: one of the bugs `pozo_core::planted` knows.
fn bug_parser() -> impl clap::builder::TypedValueParser<Value = pozo_sim::vopr::Bug> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(pozo_sim::vopr::Bug::ALL.map(pozo_sim::vopr::Bug::name))
        .map(|name: String| pozo_sim::vopr::Bug::parse(&name).expect("a possible value is a bug"))
}

/// `--rulebooks`: the regulations' or the market's (`pozo_sim::casino::Rulebooks`).
fn rulebooks_parser() -> impl clap::builder::TypedValueParser<Value = pozo_sim::casino::Rulebooks> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(pozo_sim::casino::Rulebooks::ALL.map(pozo_sim::casino::Rulebooks::name))
        .map(|name: String| pozo_sim::casino::Rulebooks::parse(&name).expect("a possible value is a casino's rulebooks"))
}

/// `--game`: one of the rulebooks' games (`pozo_engine::Game`), a closed list that `--help` shows.
fn game_parser() -> impl clap::builder::TypedValueParser<Value = pozo_engine::Game> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(pozo_engine::Game::ALL.map(pozo_engine::Game::name))
        .map(|name: String| pozo_engine::Game::parse(&name).expect("a possible value is a game"))
}

fn main() -> ExitCode {
    pozo_alloc::tune();
    let cli = Cli::parse();
    match cli.command {
        Command::Odds { draws: true, samples, os_random, from, ceiling, bins, seats, p_min, seed, json, .. } => {
            let source = if os_random { pozo_sim::mystery::Source::Os } else { pozo_sim::mystery::Source::Seed(seed) };
            let options = pozo_sim::mystery::Options { samples, source, from, ceiling, bins, seats, p_min };
            run_odds_draws(&options, json.as_deref())
        }
        Command::Odds { game, hands, seed, rulebooks, json, .. } => {
            let game = game.expect("clap requires --game without --draws");
            run_odds(game.name(), rulebooks, hands, seed, json.as_deref())
        }
        Command::Bench { args } => pozo_sim::bench::command(args),
        Command::BenchChild { args } => pozo_sim::bench::child(args),
        Command::Vopr { seed, seeds, steps, no_faults, standby, plant, rulebooks, trace, json } => {
            let options = pozo_sim::vopr::Options { seed, steps, faults: !no_faults, plant, pair: standby.into(), rulebooks };
            run_vopr(options, seeds, trace, json.as_deref())
        }
        Command::Run { tables, rounds, seed, server, config, keys, bet_percent, json, record, plot, rulebooks } => {
            let options = pozo_sim::night::RunOptions {
                tables: tables as usize,
                rounds,
                seed,
                server,
                layout: config,
                keys,
                bet_percent,
                record,
                progress: true,
                rulebooks,
            };
            run_night(options, json.as_deref(), plot.as_deref())
        }
        Command::Tournament { seed, players, structure, json } => {
            run_tournament(pozo_sim::tournament::Options { seed, players, structure }, json.as_deref())
        }
        Command::Replay { file, recorded_speed, json } => {
            let pace = if recorded_speed { pozo_sim::night::Pace::Recorded } else { pozo_sim::night::Pace::Fast };
            run_replay(&file, pace, json.as_deref())
        }
    }
}

/// `pozo-sim vopr`: each seed in turn from `options.seed`; the first failure ends the run (exit 1).
#[allow(clippy::float_arithmetic)] // Seeds per minute: a statistic, not money.
fn run_vopr(options: pozo_sim::vopr::Options, seeds: u64, trace: bool, json: Option<&std::path::Path>) -> ExitCode {
    let first = options.seed;
    if options.plant.is_some() && !pozo_server::planted::COMPILED {
        eprintln!(
            "pozo-sim: --plant needs a build with the planted bugs: cargo run -p pozo-sim --features planted-bugs -- vopr …"
        );
        return ExitCode::from(2);
    }
    let started = std::time::Instant::now();
    let mut outcomes = Vec::new();
    for seed in first..first.saturating_add(seeds) {
        let options = pozo_sim::vopr::Options { seed, ..options.clone() };
        match pozo_sim::vopr::run(options) {
            Ok(outcome) => {
                println!("{}", pozo_sim::vopr::summary(&outcome));
                if trace {
                    for line in &outcome.trace {
                        println!("  {line}");
                    }
                }
                outcomes.push(outcome);
            }
            Err(failure) => {
                if trace {
                    for line in &failure.trace {
                        println!("  {line}");
                    }
                }
                println!("{failure}");
                write_json(json, &outcomes);
                return ExitCode::from(1);
            }
        }
    }
    let minutes = started.elapsed().as_secs_f64() / 60.0;
    println!(
        "{} seeds, {} steps, no invariant broken, in {:.1} s ({:.1} seeds/min)",
        outcomes.len(),
        outcomes.iter().map(|outcome| outcome.steps).sum::<u64>(),
        minutes * 60.0,
        outcomes.len() as f64 / minutes.max(f64::EPSILON)
    );
    println!("faults injected: {}", pozo_sim::vopr::faults_injected(&outcomes));
    if write_json(json, &outcomes) { ExitCode::SUCCESS } else { ExitCode::from(2) }
}

fn runtime() -> tokio::runtime::Runtime {
    pozo_sim::runtime().expect("a tokio runtime")
}

fn write_json(path: Option<&std::path::Path>, value: &impl serde::Serialize) -> bool {
    let Some(path) = path else { return true };
    let text = serde_json::to_string_pretty(value).expect("reports serialize");
    match std::fs::write(path, text + "\n") {
        Ok(()) => true,
        Err(error) => {
            eprintln!("pozo-sim: {}: {error}", path.display());
            false
        }
    }
}

fn print_night(night: &pozo_sim::night::NightReport) {
    println!(
        "{} tables, {} rounds (+{} balls to end the grillo series), seed {}: {} side bets, {} commands ({} refused) in {:.1} s",
        night.tables, night.rounds, night.extra_balls, night.seed, night.side_bets, night.commands, night.refused, night.seconds
    );
    println!(
        "contributions {}  awards {}  replenishments {}",
        pozo_engine::format_ars(night.contributions.parse().unwrap_or_default()),
        pozo_engine::format_ars(night.awards.parse().unwrap_or_default()),
        pozo_engine::format_ars(night.replenishments.parse().unwrap_or_default())
    );
    println!(
        "{:.0} presses/s; ack latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        night.presses_per_s, night.ack_latency_ms.p50, night.ack_latency_ms.p99, night.ack_latency_ms.max
    );
    println!(
        "lights on {}: without record {}, records without light {}; journal {} entries; verify {}",
        night.lights_on, night.lights_without_record, night.records_without_light, night.journal_entries, night.verify
    );
    println!("books: {} (sha256 {})", night.books, night.books_sha256);
    for difference in night.differences.iter().skip(1) {
        println!("  also: {difference}");
    }
    print!("{}", pozo_sim::night::summary_table(night));
}

fn run_night(options: pozo_sim::night::RunOptions, json: Option<&std::path::Path>, plot: Option<&std::path::Path>) -> ExitCode {
    match runtime().block_on(pozo_sim::night::run(options)) {
        Ok(night) => {
            print_night(&night);
            let written = write_json(json, &night);
            let plotted = match plot {
                None => true,
                Some(path) => match pozo_sim::plot::balances(&night, path) {
                    Ok(()) => {
                        println!("plot: {}", path.display());
                        true
                    }
                    Err(error) => {
                        eprintln!("pozo-sim: --plot {}: {error:#}", path.display());
                        false
                    }
                },
            };
            if night.ok() && written && plotted { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(error) => {
            eprintln!("pozo-sim: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// `pozo-sim tournament`: exit 1 when the books do not tie or a seat draw does not check.
fn run_tournament(options: pozo_sim::tournament::Options, json: Option<&std::path::Path>) -> ExitCode {
    match runtime().block_on(pozo_sim::tournament::run(options)) {
        Ok(report) => {
            print!("{}", report.spanish());
            let written = write_json(json, &report);
            if report.ok() && written { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(error) => {
            eprintln!("pozo-sim: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run_replay(file: &std::path::Path, pace: pozo_sim::night::Pace, json: Option<&std::path::Path>) -> ExitCode {
    match runtime().block_on(pozo_sim::night::replay(file, pace, None)) {
        Ok(replay) => {
            print_night(&replay.night);
            println!(
                "replay: {} the recorded books (sha256 {})",
                if replay.same_books { "the same books as" } else { "DIFFERENT books from" },
                replay.recorded_books_sha256
            );
            let written = write_json(json, &replay);
            if replay.same_books && replay.night.ok() && written { ExitCode::SUCCESS } else { ExitCode::from(1) }
        }
        Err(error) => {
            eprintln!("pozo-sim: {error:#}");
            ExitCode::from(2)
        }
    }
}

// Statistics, not money.
#[allow(clippy::float_arithmetic)]
fn run_odds(
    game: &str,
    rulebooks: pozo_sim::casino::Rulebooks,
    hands: u64,
    seed: u64,
    json: Option<&std::path::Path>,
) -> ExitCode {
    // Drawn only when standard error is a terminal (indicatif hides it otherwise).
    let bar = indicatif::ProgressBar::new(hands);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {human_pos}/{human_len} hands")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let report = pozo_sim::odds::odds_on(game, rulebooks, hands, seed, &bar);
    bar.finish_and_clear();
    let report = match report {
        Ok(report) => report,
        Err(error) => {
            eprintln!("pozo-sim: {error}");
            return ExitCode::from(2);
        }
    };
    println!("{} ({}): {} hands, seed {}", report.game, report.pool, report.hands, report.seed);
    println!("{:<22} {:>12} {:>14} {:>10} {:>8}", "code", "observed", "expected", "std err", "dev (SE)");
    for code in &report.codes {
        println!(
            "{:<22} {:>12} {:>14.2} {:>10.2} {:>8.2}",
            code.code, code.observed, code.expected, code.standard_error, code.deviation_se
        );
    }
    if let Some(returns) = &report.three_card_poker {
        print_three_card_returns(returns);
    }
    let mut levels_off = false;
    if let Some(market) = &report.market {
        print_market(market);
        levels_off = market.levels.iter().any(|level| level.deviation_se.abs() > ODDS_TOLERANCE_SE);
    }
    if let Some(link) = &report.link {
        print_link(link);
        levels_off |= link.levels.iter().any(|level| level.deviation_se.abs() > ODDS_TOLERANCE_SE);
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&report).expect("reports serialize");
        if let Err(error) = std::fs::write(path, text) {
            eprintln!("pozo-sim: {}: {error}", path.display());
            return ExitCode::from(2);
        }
    }
    if levels_off {
        eprintln!("pozo-sim: a level's hits deviate over {ODDS_TOLERANCE_SE} standard errors");
        return ExitCode::from(1);
    }
    if report.max_abs_deviation_se > ODDS_TOLERANCE_SE {
        eprintln!("pozo-sim: a code deviates {:.2} standard errors, over {ODDS_TOLERANCE_SE}", report.max_abs_deviation_se);
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// `odds --draws` (docs/odds.md, "The mystery level's draws").
fn run_odds_draws(options: &pozo_sim::mystery::Options, json: Option<&std::path::Path>) -> ExitCode {
    let report = match pozo_sim::mystery::draws(options) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("pozo-sim: {error}");
            return ExitCode::from(2);
        }
    };
    let source = match report.source {
        pozo_sim::mystery::Source::Os => "the operating system's CSPRNG".to_owned(),
        pozo_sim::mystery::Source::Seed(seed) => format!("seed {seed}"),
    };
    println!(
        "mystery draws: {} triggers in ({}, {}] ({} centavos) and {} hot seats among {}, {source}",
        report.samples,
        pozo_engine::format_ars(report.from),
        pozo_engine::format_ars(report.ceiling),
        report.span_centavos,
        report.samples,
        report.seats
    );
    println!(
        "triggers: min {}, max {}, outside the range {}",
        pozo_engine::format_ars(report.trigger_min),
        pozo_engine::format_ars(report.trigger_max),
        report.outside
    );
    println!(
        "{:<10} {:>6} {:>14} {:>5} {:>10} {:>10} {:>10} {:>12}",
        "test", "bins", "chi-square", "dof", "p-value", "bin min", "bin max", "expected"
    );
    for (name, fit) in [("triggers", &report.triggers), ("hot seats", &report.hot_seats)] {
        println!(
            "{:<10} {:>6} {:>14.3} {:>5} {:>10.4} {:>10} {:>10} {:>12.1}",
            name, fit.bins, fit.chi_square, fit.degrees_of_freedom, fit.p_value, fit.bin_min, fit.bin_max, fit.expected_mean
        );
    }
    if !write_json(json, &report) {
        return ExitCode::from(2);
    }
    if report.outside > 0 || report.seats_outside > 0 {
        eprintln!("pozo-sim: {} triggers outside the range, {} hot seats outside the list", report.outside, report.seats_outside);
        return ExitCode::from(1);
    }
    if !report.ok() {
        eprintln!(
            "pozo-sim: uniformity refused: p-values {:.6} (triggers) and {:.6} (hot seats), the least accepted {}",
            report.triggers.p_value, report.hot_seats.p_value, report.p_min
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// The market's paytable: each level's hits, then its return, exact and as played (docs/odds.md).
// Percentages for reading, not money.
#[allow(clippy::float_arithmetic)]
fn print_market(market: &pozo_sim::market::Measured) {
    print_levels(&market.levels);
    print_paytable(&market.paytable);
}

/// Each level's hits against its exact odds.
fn print_levels(levels: &[pozo_sim::market::LevelHits]) {
    println!("{:<22} {:>12} {:>14} {:>10} {:>8}  codes", "level", "observed", "expected", "std err", "dev (SE)");
    for level in levels {
        println!(
            "{:<22} {:>12} {:>14.2} {:>10.2} {:>8.2}  {}",
            level.level,
            level.observed,
            level.expected,
            level.standard_error,
            level.deviation_se,
            level.codes.join(", ")
        );
    }
}

/// A paytable's return per unit of side bet, exact and as played.
// Percentages for reading, not money.
#[allow(clippy::float_arithmetic)]
fn print_paytable(paytable: &pozo_sim::market::PaytableReturn) {
    println!(
        "return of {} (config/mercado.toml), per unit of side bet ({}), {} seats in force:",
        paytable.pool,
        pozo_engine::format_ars(paytable.side_bet),
        paytable.seats_in_force
    );
    for line in &paytable.exact {
        println!("  {:<46} {:>8.4}%", line.what, 100.0 * line.per_unit);
    }
    println!("  {:<46} {:>8.4}%", "exact, in the long run", 100.0 * paytable.exact_total);
    println!(
        "  the house keeps {:.2}% as commission and puts in {:.4}% for resets; {:.4}% stays in reserves no reset draws",
        100.0 * paytable.commission,
        100.0 * paytable.house_resets,
        100.0 * paytable.never_drawn
    );
    println!(
        "  played: {} bets of {}, awards {} + the meters gained {} = {:.4}%",
        paytable.bets,
        pozo_engine::format_ars(paytable.side_bet),
        pozo_engine::format_ars(paytable.awards),
        pozo_engine::format_ars(paytable.meters_gained),
        100.0 * paytable.measured
    );
    let levels: Vec<String> = paytable
        .levels_after
        .iter()
        .map(|(name, balance, reserve)| {
            format!("{name} {} (reserve {})", pozo_engine::format_ars(*balance), pozo_engine::format_ars(*reserve))
        })
        .collect();
    println!("  the levels after: {}", levels.join("; "));
}

/// The cross-game link at the game: its levels' hits (a Major and a Mini per flor: one flor's
/// here), and its return per unit of the game's bet, exact where it is read (docs/odds.md).
// Percentages for reading, not money.
#[allow(clippy::float_arithmetic)]
fn print_link(link: &pozo_sim::market::LinkOdds) {
    println!(
        "the cross-game link {} at {} (one flor of {} tables, the Grand fed by them alone):",
        link.pool, link.game, link.game
    );
    print_levels(&link.levels);
    match (&link.paytable, &link.measured_only) {
        (Some(paytable), _) => print_paytable(paytable),
        (None, why) => {
            println!(
                "return of {} (config/mercado.toml), per unit of side bet ({}): measured only ({})",
                link.pool,
                pozo_engine::format_ars(link.side_bet),
                why.as_deref().unwrap_or("no exact reading")
            );
            println!(
                "  played: {} bets of {}, awards {} + the meters gained {} = {:.4}%",
                link.bets,
                pozo_engine::format_ars(link.side_bet),
                pozo_engine::format_ars(link.awards),
                pozo_engine::format_ars(link.meters_gained),
                100.0 * link.measured
            );
        }
    }
}

/// Three Card Poker's exact figures, counted over the 22,100 hands (docs/odds.md).
// Percentages for reading, not money.
#[allow(clippy::float_arithmetic)]
fn print_three_card_returns(returns: &pozo_sim::three_card::Returns) {
    let percent = |ratio: &pozo_sim::three_card::Ratio| 100.0 * ratio.value;
    let counts = |counts: &[pozo_sim::three_card::Count]| {
        counts.iter().map(|count| format!("{} {}", count.name, count.hands)).collect::<Vec<_>>().join(", ")
    };
    println!("exact, of {} hands: {}", returns.hands, counts(&returns.categories));
    println!("  progressive codes: {}; the dealer qualifies in {}", counts(&returns.codes), returns.dealer_qualifies);
    println!(
        "  progressive return: ({} × meter + {}) / {} = {:.2}% at {} units, +{:.2} points per 1,000 units (before envy)",
        returns.progressive_meter_hands,
        returns.progressive_fixed_units,
        returns.hands,
        percent(&returns.progressive),
        returns.meter_units,
        percent(&returns.progressive_per_1000_meter_units)
    );
    println!(
        "  envy per round: {}/{} = {:.4} units from each other seat with the side bet ({:.2}% at a full table)",
        returns.envy_per_other_seat.over(returns.hands),
        returns.hands,
        returns.envy_per_other_seat.value,
        percent(&returns.envy_per_seat_full_table)
    );
    println!(
        "  Pair Plus (3.10.2): {}/{} = {:.2}%",
        returns.pair_plus.over(returns.hands),
        returns.hands,
        percent(&returns.pair_plus)
    );
    println!("  ante and play: {}", returns.ante_and_play);
}

#[cfg(test)]
mod tests {
    /// Every game the command line offers is one `odds` deals.
    #[test]
    fn every_odds_game_on_the_command_line_is_dealt() {
        for game in pozo_engine::Game::ALL {
            assert!(pozo_sim::odds::odds(game.name(), 1, 1).is_ok(), "{}", game.name());
        }
    }
}
