//! The signs' feed: each display state the writer publishes (the one the gRPC display
//! feed sends too) is written once as JSON, and every open sign is handed the same
//! bytes. The writer only swaps a watch value: hundreds of signs cost it nothing, and a
//! slow sign skips to the newest state instead of queueing.
//!
//! The event stream (`/cartel/eventos`, server-sent events):
//! - `pozos`: the whole floor, [`FloorJson`];
//! - `latido`: every [`HEARTBEAT`], so a sign whose feed went silent shows SUSPENDIDO
//!   within a second (3.7.5);
//! - `suspendido`: the controller is stopping; the stream ends.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::response::sse::Event;
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::watch;

use super::view;
use crate::config::Config;
use crate::writer::{DisplayPush, PrizeView};

/// How often a silent feed says it is alive. The sign shows SUSPENDIDO after
/// [`SILENCE_MS`] without any event.
pub const HEARTBEAT: Duration = Duration::from_millis(300);
/// What the sign's script waits before it shows SUSPENDIDO (static/cartel.js).
pub const SILENCE_MS: u64 = 900;
/// At most one frame per this interval: a sign needs no more than 20 a second, and at
/// full load the writer publishes a state per batch, hundreds a second. A state is never
/// held back longer than this (docs/benchmarks.md, "The signs").
pub const FRAME_INTERVAL: Duration = Duration::from_millis(50);

/// One display state, ready to send.
#[derive(Debug)]
pub struct Frame {
    pub journal_sequence: u64,
    /// The `data:` of the `pozos` event.
    pub json: String,
}

/// A prize on the sign.
#[derive(Serialize)]
pub struct PrizeJson {
    pub mesa: String,
    pub asiento: u32,
    pub premio: String,
    pub nombre: String,
    pub monto: String,
    pub hora: String,
    pub secuencia: u64,
    pub estado: &'static str,
}

#[derive(Serialize)]
pub struct PoolJson {
    pub id: String,
    pub nombre: String,
    pub monto: String,
    pub minimo: String,
    /// Prizes waiting for Venta-Pagos: PENDIENTE DE PAGO while there is one.
    pub pendientes: Vec<PrizeJson>,
    /// The last hits, newest first.
    pub ultimos: Vec<PrizeJson>,
}

/// The `pozos` event.
#[derive(Serialize)]
pub struct FloorJson {
    pub secuencia: u64,
    /// When the batch became durable (µs since the Unix epoch): the benchmark measures from it.
    pub durable_us: u64,
    pub pozos: Vec<PoolJson>,
}

fn prize(config: &Config, pool: &str, prize: &PrizeView) -> PrizeJson {
    PrizeJson {
        mesa: prize.table_id.clone(),
        asiento: prize.seat,
        premio: prize.code.clone(),
        nombre: view::prize_name(config, pool, &prize.code),
        monto: view::pesos(prize.amount),
        hora: view::clock(config, prize.time_ms),
        secuencia: prize.journal_sequence,
        estado: prize.status.spanish(),
    }
}

pub fn floor_json(config: &Config, push: &DisplayPush) -> FloorJson {
    FloorJson {
        secuencia: push.journal_sequence,
        durable_us: push.durable_unix_us,
        pozos: push
            .pools
            .iter()
            .map(|pool| PoolJson {
                id: pool.pool_id.clone(),
                nombre: view::pool_name(config, &pool.pool_id),
                monto: view::pesos(pool.displayed),
                minimo: view::pesos(pool.minimum),
                pendientes: pool.pending.iter().map(|pending| prize(config, &pool.pool_id, pending)).collect(),
                ultimos: pool.hits.iter().map(|hit| prize(config, &pool.pool_id, hit)).collect(),
            })
            .collect(),
    }
}

fn frame(config: &Config, push: &DisplayPush) -> Arc<Frame> {
    let json = serde_json::to_string(&floor_json(config, push)).expect("the floor serializes");
    Arc::new(Frame { journal_sequence: push.journal_sequence, json })
}

/// Follows the writer's display state; the newest one becomes a [`Frame`], once, at most
/// every [`FRAME_INTERVAL`].
pub fn spawn(mut display: watch::Receiver<DisplayPush>, config: Arc<Config>) -> watch::Receiver<Arc<Frame>> {
    let (sender, frames) = watch::channel(frame(&config, &display.borrow_and_update()));
    tokio::spawn(async move {
        let mut last = tokio::time::Instant::now();
        loop {
            tokio::select! {
                changed = display.changed() => if changed.is_err() { return },
                // No sign open and none to come: the pages stopped.
                _ = sender.closed() => return,
            }
            // A state arriving sooner than the interval waits for its end, and is then
            // replaced by whatever newer state came meanwhile.
            tokio::time::sleep_until(last + FRAME_INTERVAL).await;
            last = tokio::time::Instant::now();
            let next = frame(&config, &display.borrow_and_update());
            if sender.send(next).is_err() {
                return;
            }
        }
    });
    frames
}

/// One sign's event stream: the newest frame at once, then each new one, a heartbeat
/// when nothing changes, and `suspendido` when the controller stops.
pub fn events(
    frames: watch::Receiver<Arc<Frame>>,
    stop: watch::Receiver<bool>,
) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
    struct Feed {
        frames: watch::Receiver<Arc<Frame>>,
        stop: watch::Receiver<bool>,
        beat: tokio::time::Interval,
        first: bool,
    }
    let frame_event = |frame: &Frame| Event::default().event("pozos").id(frame.journal_sequence.to_string()).data(&frame.json);
    let suspended = || Event::default().event("suspendido").data("El controlador se detuvo: apuestas a pozo suspendidas (3.7.5).");
    let mut beat = tokio::time::interval(HEARTBEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let feed = Feed { frames, stop, beat, first: true };
    futures_util::stream::unfold(Some(feed), move |feed| async move {
        let mut feed = feed?;
        if *feed.stop.borrow() {
            return Some((Ok(suspended()), None));
        }
        if feed.first {
            feed.first = false;
            feed.beat.reset();
            let event = frame_event(&feed.frames.borrow_and_update());
            return Some((Ok(event), Some(feed)));
        }
        enum Wake {
            Stop,
            Changed(bool),
            Beat,
        }
        let wake = tokio::select! {
            biased;
            _ = feed.stop.wait_for(|stop| *stop) => Wake::Stop,
            changed = feed.frames.changed() => Wake::Changed(changed.is_ok()),
            _ = feed.beat.tick() => Wake::Beat,
        };
        match wake {
            Wake::Stop | Wake::Changed(false) => Some((Ok(suspended()), None)),
            Wake::Changed(true) => {
                feed.beat.reset();
                let event = frame_event(&feed.frames.borrow_and_update());
                Some((Ok(event), Some(feed)))
            }
            Wake::Beat => {
                let event = Event::default().event("latido").data(feed.frames.borrow().journal_sequence.to_string());
                Some((Ok(event), Some(feed)))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::PoolDisplay;

    fn push(sequence: u64) -> DisplayPush {
        let config = Config::embedded();
        let pools = config
            .rulebooks
            .pools()
            .map(|pool| PoolDisplay {
                pool_id: pool.id.clone(),
                displayed: pool.minimum + rust_decimal::Decimal::from(sequence),
                minimum: pool.minimum,
                last_win: None,
                pending: Vec::new(),
                hits: Vec::new(),
            })
            .collect();
        DisplayPush { journal_sequence: sequence, pools, durable_unix_us: sequence }
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_of_states_becomes_one_frame_per_interval_with_the_newest() {
        let (writer, display) = watch::channel(push(1));
        let mut frames = spawn(display, Arc::new(Config::embedded()));
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
        let frames = spawn(display, Arc::new(Config::embedded()));
        let (stop, stopped) = watch::channel(false);
        let mut events = Box::pin(events(frames, stopped));
        let first = format!("{:?}", events.next().await.expect("an event").expect("infallible"));
        assert!(first.contains("pozos") && first.contains("\\\"secuencia\\\":7"), "{first}");
        let beat = format!("{:?}", events.next().await.expect("an event").expect("infallible"));
        assert!(beat.contains("latido"), "{beat}");
        stop.send(true).expect("the sign listens");
        let last = format!("{:?}", events.next().await.expect("an event").expect("infallible"));
        assert!(last.contains("suspendido"), "{last}");
        assert!(events.next().await.is_none(), "the stream ends");
        drop(writer);
    }
}
