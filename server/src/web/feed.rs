//! The signs' feed: each display state the writer publishes (the one the gRPC display
//! feed sends too) is written once as JSON, and every open sign is handed the same
//! bytes. The writer only swaps a watch value: hundreds of signs cost it nothing, and a
//! slow sign skips to the newest state instead of queueing.
//!
//! The event stream (`/cartel/eventos`, server-sent events):
//! - `pozos`: the whole floor, [`FloorJson`]: the first event, and whenever a prize list
//!   changed (a hit, a Venta-Pagos decision) since the last one this sign was sent;
//! - `montos`: only the amounts, [`AmountsJson`], when no prize list changed: at full
//!   load nearly every frame, a twentieth of the bytes of a `pozos`;
//! - `latido`: every [`HEARTBEAT`], so a sign whose feed went silent shows SUSPENDIDO
//!   within a second (3.7.5);
//! - `suspendido`: the controller is stopping; the stream ends.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::watch;

use super::view;
use crate::config::Config;
use crate::read::signs::{DisplayPush, PrizeView};

/// How often a silent feed says it is alive. The sign shows SUSPENDIDO after
/// [`SILENCE_MS`] without any event.
const HEARTBEAT: Duration = Duration::from_millis(300);
/// What the sign's script waits before it shows SUSPENDIDO (static/cartel.js).
pub(super) const SILENCE_MS: u64 = 900;
/// At most one frame per this interval: a sign needs no more than 20 a second, and at
/// full load the writer publishes a state per batch, hundreds a second. A state is never
/// held back longer than this (docs/benchmarks.md, "The signs").
const FRAME_INTERVAL: Duration = Duration::from_millis(50);

/// What every open sign is sent next, written once and shared: a sign costs a
/// reference count, not a copy, and follows one watch channel (no timer of its own).
#[derive(Debug)]
pub(super) struct Frame {
    journal_sequence: u64,
    /// Which prize lists `state` carries: the number of the frame where they last
    /// changed. A sign that was sent other lists is sent `state`, not `event`: a sign
    /// that skipped frames (it follows the newest only) never misses a hit.
    prizes: u64,
    /// The `data:` of the newest `pozos` event.
    json: String,
    /// The newest `pozos` event as it goes on the wire: what a sign that opens now gets
    /// first, and a sign whose prize lists are not `prizes`.
    state: Bytes,
    /// What a sign already holding these prize lists is sent for this frame: `montos`,
    /// `pozos`, a `latido`, or `suspendido`.
    event: Bytes,
    /// `suspendido`: the stream ends after it.
    last: bool,
}

/// A prize on the sign.
#[derive(Serialize)]
struct PrizeJson {
    mesa: String,
    asiento: u32,
    premio: String,
    nombre: String,
    monto: String,
    hora: String,
    secuencia: u64,
    estado: &'static str,
    /// The level it was paid from ("Grand"): absent in a pool of one level, and for a prize the
    /// house pays (its level is on no sign: docs/readings.md, "Levels").
    #[serde(skip_serializing_if = "String::is_empty")]
    nivel: String,
    /// Drawn by the controller, not entered by a dealer: a mystery level's hit ("Pozo
    /// misterioso") or its hot seat ("Asiento caliente"); the sign names the prize.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    sorteado: bool,
}

/// A level's meter on the sign.
#[derive(Serialize)]
pub(super) struct LevelJson {
    pub(super) nombre: String,
    pub(super) monto: String,
    /// A mystery level: "Debe salir antes de $ 60.000,00", its open draw's ceiling (never its
    /// trigger: docs/security.md); absent for any other level.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) tope: String,
}

/// A pool's levels on the sign: each meter but the house's; none for a pool of one level.
pub(super) fn levels_json(levels: &[pozo_core::state::panel::LevelMeter]) -> Vec<LevelJson> {
    levels
        .iter()
        .map(|level| LevelJson {
            nombre: level.name.clone(),
            monto: pozo_engine::format_ars(level.displayed),
            tope: view::must_hit_by(level).replace('\u{a0}', " "),
        })
        .collect()
}

#[derive(Serialize)]
struct PoolJson {
    id: String,
    nombre: String,
    monto: String,
    minimo: String,
    /// A pool with levels: each level's meter, first level first; absent for a pool of one level.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    niveles: Vec<LevelJson>,
    /// Prizes waiting for Venta-Pagos: PENDIENTE DE PAGO while there is one.
    pendientes: Vec<PrizeJson>,
    /// The last hits, newest first.
    ultimos: Vec<PrizeJson>,
}

/// The `pozos` event.
#[derive(Serialize)]
struct FloorJson {
    secuencia: u64,
    /// When the batch became durable (µs since the Unix epoch): the benchmark measures from it.
    durable_us: u64,
    pozos: Vec<PoolJson>,
}

/// A pool's amount in the `montos` event.
#[derive(Serialize)]
struct AmountJson<'a> {
    id: &'a str,
    monto: String,
    /// As in [`PoolJson`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    niveles: Vec<LevelJson>,
}

/// The `montos` event: the amounts only, when no prize list changed.
#[derive(Serialize)]
struct AmountsJson<'a> {
    secuencia: u64,
    /// As in [`FloorJson`].
    durable_us: u64,
    montos: Vec<AmountJson<'a>>,
}

fn prize(config: &Config, pool: &str, prize: &PrizeView) -> PrizeJson {
    let hit = &prize.hit;
    PrizeJson {
        mesa: hit.table_id.to_string(),
        asiento: hit.seat,
        premio: hit.code.to_string(),
        nombre: view::prize_name(config, pool, &hit.code),
        monto: pozo_engine::format_ars(hit.amount),
        hora: view::clock(config, hit.time_ms),
        secuencia: hit.journal_sequence,
        estado: prize.status.spanish(),
        nivel: if prize.house { String::new() } else { prize.level.clone() },
        sorteado: config.rulebooks.pool(pool).is_some_and(|rules| rules.is_drawn(&hit.code)),
    }
}

fn floor_json(config: &Config, push: &DisplayPush) -> FloorJson {
    FloorJson {
        secuencia: push.journal_sequence,
        durable_us: push.durable_unix_us,
        pozos: push
            .pools
            .iter()
            .map(|pool| PoolJson {
                id: pool.pool_id.to_string(),
                nombre: view::pool_name(config, &pool.pool_id),
                monto: pozo_engine::format_ars(pool.displayed),
                minimo: pozo_engine::format_ars(pool.minimum),
                niveles: levels_json(&pool.levels),
                pendientes: pool.pending.iter().map(|pending| prize(config, &pool.pool_id, pending)).collect(),
                ultimos: pool.hits.iter().map(|hit| prize(config, &pool.pool_id, hit)).collect(),
            })
            .collect(),
    }
}

fn frame(config: &Config, push: &DisplayPush, prizes: u64) -> Arc<Frame> {
    // JSON never holds a raw newline, so the data is one `data:` line.
    let json = serde_json::to_string(&floor_json(config, push)).expect("the floor serializes");
    let state = Bytes::from(format!("event: pozos\nid: {}\ndata: {json}\n\n", push.journal_sequence));
    Arc::new(Frame { journal_sequence: push.journal_sequence, prizes, json, event: state.clone(), state, last: false })
}

/// The same pools with the same prize lists: only the amounts moved.
fn same_prizes(before: &DisplayPush, now: &DisplayPush) -> bool {
    let same = |a: &Arc<[PrizeView]>, b: &Arc<[PrizeView]>| Arc::ptr_eq(a, b) || a == b;
    before.pools.len() == now.pools.len()
        && before.pools.iter().zip(&now.pools).all(|(before, now)| {
            before.pool_id == now.pool_id && same(&before.pending, &now.pending) && same(&before.hits, &now.hits)
        })
}

/// The frame after `previous` (made from `before`) for `push`: a `montos` event when no
/// prize list changed, else a new `pozos` one.
fn next_frame(config: &Config, previous: &Frame, before: &DisplayPush, push: &DisplayPush) -> Arc<Frame> {
    if !same_prizes(before, push) {
        return frame(config, push, previous.prizes + 1);
    }
    let full = frame(config, push, previous.prizes);
    let amounts = AmountsJson {
        secuencia: push.journal_sequence,
        durable_us: push.durable_unix_us,
        montos: push
            .pools
            .iter()
            .map(|pool| AmountJson {
                id: &pool.pool_id,
                monto: pozo_engine::format_ars(pool.displayed),
                niveles: levels_json(&pool.levels),
            })
            .collect(),
    };
    let json = serde_json::to_string(&amounts).expect("the amounts serialize");
    let event = Bytes::from(format!("event: montos\nid: {}\ndata: {json}\n\n", push.journal_sequence));
    again(&full, event, false)
}

/// The same state, with `event` instead.
fn again(frame: &Frame, event: Bytes, last: bool) -> Arc<Frame> {
    Arc::new(Frame {
        journal_sequence: frame.journal_sequence,
        prizes: frame.prizes,
        json: frame.json.clone(),
        state: frame.state.clone(),
        event,
        last,
    })
}

const SUSPENDED: &[u8] = b"event: suspendido\ndata: El controlador se detuvo: apuestas a pozo suspendidas (3.7.5).\n\n";

/// Follows the writer's display state: the newest one becomes a [`Frame`], once, at most
/// every [`FRAME_INTERVAL`]; after [`HEARTBEAT`] without one, a `latido`; when `stop`
/// turns true (or the writer ends), `suspendido`, and the feed ends.
pub(super) fn spawn(
    mut display: watch::Receiver<DisplayPush>,
    config: Arc<Config>,
    mut stop: watch::Receiver<bool>,
) -> watch::Receiver<Arc<Frame>> {
    let mut before = display.borrow_and_update().clone();
    let (sender, frames) = watch::channel(frame(&config, &before, 0));
    tokio::spawn(async move {
        let mut last = tokio::time::Instant::now();
        loop {
            enum Wake {
                Stop,
                Changed,
                Beat,
            }
            let wake = tokio::select! {
                biased;
                _ = stop.wait_for(|stop| *stop) => Wake::Stop,
                changed = display.changed() => if changed.is_ok() { Wake::Changed } else { Wake::Stop },
                _ = tokio::time::sleep_until(last + HEARTBEAT) => Wake::Beat,
            };
            let next = match wake {
                Wake::Stop => {
                    let ended = again(&sender.borrow(), Bytes::from_static(SUSPENDED), true);
                    let _ = sender.send(ended);
                    return;
                }
                Wake::Beat => {
                    let current = sender.borrow().clone();
                    again(&current, Bytes::from(format!("event: latido\ndata: {}\n\n", current.journal_sequence)), false)
                }
                Wake::Changed => {
                    // A state arriving sooner than the interval waits for its end, and is
                    // then replaced by whatever newer state came meanwhile.
                    tokio::time::sleep_until(last + FRAME_INTERVAL).await;
                    let push = display.borrow_and_update().clone();
                    let next = next_frame(&config, &sender.borrow(), &before, &push);
                    before = push;
                    next
                }
            };
            last = tokio::time::Instant::now();
            if sender.send(next).is_err() {
                return;
            }
        }
    });
    frames
}

/// One sign's event stream, as the bytes of `text/event-stream`: the newest state at
/// once, then every frame's event (or its whole state, if this sign was last sent other
/// prize lists), until `suspendido`.
pub(super) fn events(mut frames: watch::Receiver<Arc<Frame>>) -> impl Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
    use futures_util::StreamExt;
    let current = frames.borrow_and_update().clone();
    let first = if current.last { Bytes::from_static(SUSPENDED) } else { current.state.clone() };
    // (ended, the prize lists this sign holds)
    let rest = tokio_stream::wrappers::WatchStream::from_changes(frames).scan(
        (current.last, current.prizes),
        |(ended, holds), frame: Arc<Frame>| {
            let next = (!*ended).then(|| {
                if frame.last || frame.prizes == *holds {
                    Ok(frame.event.clone())
                } else {
                    *holds = frame.prizes;
                    Ok(frame.state.clone())
                }
            });
            *ended = *ended || frame.last;
            std::future::ready(next)
        },
    );
    futures_util::stream::once(std::future::ready(Ok(first))).chain(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::signs::PoolDisplay;

    fn push(sequence: u64) -> DisplayPush {
        let config = Config::embedded();
        let pools = config
            .rulebooks
            .pools()
            .map(|pool| PoolDisplay {
                pool_id: pool.id.clone(),
                displayed: pool.minimum + pozo_engine::Money::new(rust_decimal::Decimal::from(sequence)),
                minimum: pool.minimum,
                increment_rate: pool.contribution_rate,
                last_win: None,
                last_win_level: String::new(),
                levels: Vec::new(),
                pending: Arc::from([]),
                hits: Arc::from([]),
            })
            .collect();
        DisplayPush { journal_sequence: sequence, pools, durable_unix_us: sequence }
    }

    fn with_prize(sequence: u64) -> DisplayPush {
        let mut push = push(sequence);
        let hit = pozo_core::state::Hit {
            table_id: "R1".into(),
            seat: 3,
            code: "P1".into(),
            amount: pozo_engine::Money::from_cents(123_456),
            time_ms: 0,
            journal_sequence: 5,
        };
        let status = crate::read::signs::PrizeStatus::Pending;
        push.pools[0].pending = Arc::from([PrizeView { hit, status, level: String::new(), house: false }]);
        push
    }

    fn text(bytes: &Bytes) -> String {
        String::from_utf8(bytes.to_vec()).expect("UTF-8")
    }

    #[tokio::test(start_paused = true)]
    async fn amounts_alone_go_as_montos_and_a_prize_change_as_pozos() {
        let (writer, display) = watch::channel(push(1));
        let (_stop, stopped) = watch::channel(false);
        let mut frames = spawn(display, Arc::new(Config::embedded()), stopped);
        frames.borrow_and_update();
        writer.send(push(2)).expect("a sign is open");
        frames.changed().await.expect("a frame");
        let amounts = frames.borrow_and_update().clone();
        let event = text(&amounts.event);
        assert!(
            event.starts_with("event: montos\nid: 2\ndata: {\"secuencia\":2,\"durable_us\":2,\"montos\":[{\"id\":"),
            "{event}"
        );
        assert!(!event.contains("pendientes"), "no prize list in a montos event: {event}");
        assert!(amounts.event.len() * 2 < amounts.state.len(), "montos is the smaller event: {event}");
        assert!(text(&amounts.state).starts_with("event: pozos\nid: 2\n"), "a new sign still gets the whole floor");

        writer.send(with_prize(3)).expect("a sign is open");
        frames.changed().await.expect("a frame");
        let prize = frames.borrow_and_update().clone();
        assert!(
            text(&prize.event).starts_with("event: pozos\nid: 3\n") && text(&prize.event).contains("\"estado\":\"pendiente\"")
        );
        assert_ne!(prize.prizes, amounts.prizes);

        writer.send(with_prize(4)).expect("a sign is open");
        frames.changed().await.expect("a frame");
        let after = frames.borrow_and_update().clone();
        assert!(text(&after.event).starts_with("event: montos\nid: 4\n"), "the same pending prize again is not news");
        assert_eq!(after.prizes, prize.prizes);
    }

    #[tokio::test(start_paused = true)]
    async fn a_sign_that_skipped_a_prize_change_is_sent_the_whole_floor() {
        use futures_util::StreamExt;
        let (writer, display) = watch::channel(push(1));
        let (_stop, stopped) = watch::channel(false);
        let frames = spawn(display, Arc::new(Config::embedded()), stopped);
        let mut events = Box::pin(events(frames.clone()));
        let mut next = async || text(&events.next().await.expect("an event").expect("infallible"));
        assert!(next().await.starts_with("event: pozos\nid: 1\n"));
        // The sign reads nothing while a prize arrives and then only amounts move: the
        // watch keeps the newest frame only, a `montos`.
        writer.send(with_prize(2)).expect("a sign is open");
        tokio::time::sleep(FRAME_INTERVAL * 2).await;
        writer.send(with_prize(3)).expect("a sign is open");
        tokio::time::sleep(FRAME_INTERVAL * 2).await;
        assert!(text(&frames.borrow().event).starts_with("event: montos\nid: 3\n"));
        let caught_up = next().await;
        assert!(
            caught_up.starts_with("event: pozos\nid: 3\n") && caught_up.contains("\"estado\":\"pendiente\""),
            "the sign catches up with the prize: {caught_up}"
        );
        writer.send(with_prize(4)).expect("a sign is open");
        assert!(next().await.starts_with("event: montos\nid: 4\n"), "then amounts alone again");
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_states_becomes_one_frame_per_interval_with_the_newest() {
        let (writer, display) = watch::channel(push(1));
        let (_stop, stopped) = watch::channel(false);
        let mut frames = spawn(display, Arc::new(Config::embedded()), stopped);
        assert_eq!(frames.borrow_and_update().journal_sequence, 1);
        let started = tokio::time::Instant::now();
        for sequence in 2..=40 {
            writer.send(push(sequence)).expect("a sign is open");
            tokio::task::yield_now().await;
        }
        frames.changed().await.expect("a frame");
        assert!(started.elapsed() <= FRAME_INTERVAL, "the first change is sent within one interval");
        let mut sent = vec![frames.borrow_and_update().journal_sequence];
        tokio::time::sleep(FRAME_INTERVAL * 3).await;
        if frames.has_changed().expect("open") {
            sent.push(frames.borrow_and_update().journal_sequence);
        }
        assert_eq!(*sent.last().expect("frames"), 40, "the newest state is always sent: {sent:?}");
        assert!(sent.len() <= 2, "a burst is not sent state by state: {sent:?}");
        let json: serde_json::Value = serde_json::from_str(&frames.borrow().json).expect("JSON");
        assert_eq!(json["secuencia"], 40);
        assert_eq!(json["durable_us"], 40);
    }

    #[tokio::test(start_paused = true)]
    async fn a_sign_gets_the_state_at_once_then_heartbeats_then_suspendido() {
        use futures_util::StreamExt;
        let (writer, display) = watch::channel(push(7));
        let (stop, stopped) = watch::channel(false);
        let frames = spawn(display, Arc::new(Config::embedded()), stopped);
        let mut events = Box::pin(events(frames));
        let mut next =
            async || String::from_utf8(events.next().await.expect("an event").expect("infallible").to_vec()).expect("UTF-8");
        let first = next().await;
        assert!(first.starts_with("event: pozos\nid: 7\ndata: {\"secuencia\":7,") && first.ends_with("}\n\n"), "{first}");
        assert_eq!(next().await, "event: latido\ndata: 7\n\n");
        stop.send(true).expect("the sign listens");
        assert!(next().await.starts_with("event: suspendido\n"));
        assert!(events.next().await.is_none(), "the stream ends");
        drop(writer);
    }
}
