//! Serving the pages: what they need of the controller, on their own listener, until the
//! controller stops.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use super::context::Web;
use super::feed;
use super::listen::{CONNECTIONS_MAX, Limited, Peer};
use super::router::router;
use super::sessions::Sessions;
use crate::read::presence::Presence;
use crate::writer::Handle;

/// What [`serve_pages`] needs besides the listener.
pub(crate) struct PagesSetup {
    /// The gRPC address, for `/status`.
    pub(crate) listen: String,
    /// The data directory, which a backup may not be written into.
    pub(crate) data: std::path::PathBuf,
    pub(crate) handle: Handle,
    pub(crate) presence: Presence,
    pub(crate) stop: watch::Receiver<bool>,
    pub(crate) open_to: Vec<ipnet::IpNet>,
    /// The other controllers' pages (`serve --pages-peer`): origins, `http://host:port`.
    pub(crate) peers: Vec<String>,
}

/// Serves the pages on `listener` until `stop` turns true: the signs' streams then
/// send SUSPENDIDO and end.
pub(crate) async fn serve_pages(listener: TcpListener, setup: PagesSetup) -> std::io::Result<()> {
    let frames = feed::spawn(setup.handle.display(), Arc::clone(&setup.handle.config()), setup.stop.clone());
    let web = Web {
        handle: setup.handle,
        presence: setup.presence,
        frames,
        sessions: Arc::new(Sessions::default()),
        open_to: Arc::new(setup.open_to),
        listen: Arc::from(setup.listen),
        data: Arc::from(setup.data),
        peers: Arc::from(setup.peers),
    };
    let listener = Limited { listener, permits: Arc::new(Semaphore::new(CONNECTIONS_MAX)) };
    let mut stop = setup.stop;
    axum::serve(listener, router(web).into_make_service_with_connect_info::<Peer>())
        .with_graceful_shutdown(async move {
            let _ = stop.wait_for(|stop| *stop).await;
        })
        .await
}
