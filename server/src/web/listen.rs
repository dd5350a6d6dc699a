//! The pages' listener: at most [`CONNECTIONS_MAX`] connections open at once, and who each
//! request comes from ([`Peer`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::connect_info::Connected;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Open connections to the pages at once: every sign keeps one.
pub(super) const CONNECTIONS_MAX: usize = 2048;

/// The pages' listener: at most [`CONNECTIONS_MAX`] connections open at once (the
/// next waits in the kernel's backlog until one closes).
pub(super) struct Limited {
    pub(super) listener: TcpListener,
    pub(super) permits: Arc<Semaphore>,
}

/// An accepted connection holding its place under the limit until it closes.
pub(super) struct Permitted {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
}

impl AsyncRead for Permitted {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_read(context, buffer)
    }
}

impl AsyncWrite for Permitted {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
        buffer: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.stream).poll_write(context, buffer)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_flush(context)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.stream).poll_shutdown(context)
    }
}

impl axum::serve::Listener for Limited {
    type Io = Permitted;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Permitted, SocketAddr) {
        loop {
            let permit = Arc::clone(&self.permits).acquire_owned().await.expect("the semaphore is never closed");
            match self.listener.accept().await {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    return (Permitted { stream, _permit: permit }, peer);
                }
                Err(error) => {
                    // Out of file descriptors, mostly: wait rather than spin.
                    tracing::warn!(%error, "pages: accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// The peer of a request to the pages.
#[derive(Clone, Copy, Debug)]
pub(super) struct Peer(pub SocketAddr);

impl Connected<axum::serve::IncomingStream<'_, Limited>> for Peer {
    fn connect_info(stream: axum::serve::IncomingStream<'_, Limited>) -> Peer {
        Peer(*stream.remote_addr())
    }
}
