//! Known bugs, planted on purpose for the seeded simulation to find (`pozo-sim vopr --plant`,
//! docs/architecture.md, "The seeded simulation"): it shows that the simulation catches each
//! within a bounded number of seeds. Compiled in only with the `planted-bugs` feature, which
//! `pozo-server serve` refuses to run with; without it [`on`] is a constant `false` and each
//! planted branch is gone from the build.

/// The bugs that can be planted, each where a real one would hide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    /// The writer answers a batch before it is durable (`writer/batch.rs`, `seal`).
    AnswerBeforeFlush,
    /// A retry of a table's last command is applied again (`state/mod.rs`, `apply_table`).
    RetryTwice,
    /// The writer never writes the acknowledgement mark (`writer/batch.rs`, the flush).
    SkipMark,
    /// Recovery forgets the contributions of the roulette presses it replays (`state/cmd/press.rs`).
    ForgetContribution,
    /// A hot standby never reads what the writer committed after it began following
    /// (`writer/standby.rs`, `catch_up`), and takes over from there.
    TakeOverBehind,
    /// Recovery books the second level's share of each bet it replays at INICIAR JUEGO to the
    /// third level (`state/cmd/start.rs`, [`book_to_another_level`]): each level still ties on
    /// its own and the pool's sum is right, only the levels hold the wrong amounts
    /// (docs/readings.md, "Levels"). Only a pool of three levels or more shows it.
    MisbookLevel,
    /// Recovery (a start, a restore, a standby's takeover) ignores what each open mystery draw
    /// sealed and draws its trigger and nonce again, keeping the journaled commitment
    /// (`writer/draws.rs`, `Draws::recover`; docs/readings.md, "The mystery level"): the reveal
    /// then does not open its commitment.
    RedrawOnRestart,
}

impl Bug {
    pub const ALL: [Bug; 7] = [
        Bug::AnswerBeforeFlush,
        Bug::RetryTwice,
        Bug::SkipMark,
        Bug::ForgetContribution,
        Bug::TakeOverBehind,
        Bug::MisbookLevel,
        Bug::RedrawOnRestart,
    ];

    /// Its name on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Bug::AnswerBeforeFlush => "answer-before-flush",
            Bug::RetryTwice => "retry-twice",
            Bug::SkipMark => "skip-mark",
            Bug::ForgetContribution => "forget-contribution",
            Bug::TakeOverBehind => "take-over-behind",
            Bug::MisbookLevel => "misbook-level",
            Bug::RedrawOnRestart => "redraw-on-restart",
        }
    }

    pub fn parse(name: &str) -> Option<Bug> {
        Bug::ALL.into_iter().find(|bug| bug.name() == name)
    }
}

/// Whether this build can plant bugs (the `planted-bugs` feature).
pub const COMPILED: bool = cfg!(feature = "planted-bugs");

#[cfg(feature = "planted-bugs")]
mod switch {
    use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

    static PLANTED: AtomicU8 = AtomicU8::new(0);
    static REPLAYING: AtomicBool = AtomicBool::new(false);

    /// `code`: the bug's number from 1, or 0 for none.
    pub fn plant(code: u8) {
        PLANTED.store(code, Ordering::SeqCst);
    }

    pub fn on(code: u8) -> bool {
        PLANTED.load(Ordering::SeqCst) == code
    }

    pub fn replaying(now: bool) {
        REPLAYING.store(now, Ordering::SeqCst);
    }

    pub fn is_replaying() -> bool {
        REPLAYING.load(Ordering::SeqCst)
    }
}

#[cfg(not(feature = "planted-bugs"))]
mod switch {
    pub fn plant(code: u8) {
        assert!(code == 0, "bugs are planted only in a build with the `planted-bugs` feature");
    }

    pub const fn on(_: u8) -> bool {
        false
    }

    pub fn replaying(_: bool) {}

    pub const fn is_replaying() -> bool {
        false
    }
}

/// Plants `bug` (or none) for this process.
pub fn plant(bug: Option<Bug>) {
    switch::plant(bug.map(|bug| bug as u8 + 1).unwrap_or(0));
}

/// Whether `bug` is planted now.
#[inline]
pub fn on(bug: Bug) -> bool {
    switch::on(bug as u8 + 1)
}

/// Recovery says when it replays (what [`Bug::ForgetContribution`] waits for).
pub fn replaying(now: bool) {
    switch::replaying(now);
}

pub fn is_replaying() -> bool {
    switch::is_replaying()
}

/// Planted [`Bug::MisbookLevel`] (`planted-bugs` only; without it nothing happens): while
/// recovery replays, the share a bet just gave the second level of `pool` (`contribution`, as
/// [`pozo_engine::Engine::register_bet`] booked it) moves to the pool's third level, balance and
/// contributions meter together, so that every level still conserves (docs/readings.md,
/// "Levels"). The pools are rebuilt from their states under `rulebooks`, as a snapshot is read.
pub fn book_to_another_level(
    engine: &mut pozo_engine::Engine,
    rulebooks: &pozo_engine::Rulebooks,
    pool: &str,
    contribution: &pozo_engine::Contribution,
) {
    if !(on(Bug::MisbookLevel) && is_replaying()) || contribution.levels.len() < 2 {
        return;
    }
    let share = contribution.levels[0].main;
    let mut states = engine.states();
    let Some(state) = states.get_mut(pool) else { return };
    state.levels[0].balance -= share;
    state.levels[0].meters.contributions -= share;
    state.levels[1].balance += share;
    state.levels[1].meters.contributions += share;
    if let Ok(misbooked) = pozo_engine::Engine::restore(rulebooks, &states) {
        *engine = misbooked;
    }
}
