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

/// Follows the writer's display state; each new one becomes a [`Frame`], once.
pub fn spawn(mut display: watch::Receiver<DisplayPush>, config: Arc<Config>) -> watch::Receiver<Arc<Frame>> {
    let (sender, frames) = watch::channel(frame(&config, &display.borrow_and_update()));
    tokio::spawn(async move {
        loop {
            tokio::select! {
                changed = display.changed() => if changed.is_err() { return },
                // No sign open and none to come: the pages stopped.
                _ = sender.closed() => return,
            }
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
