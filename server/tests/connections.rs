//! Connection exhaustion: thousands of idle sockets held by one host must not keep a
//! table agent out. Everything stays on loopback: the idle sockets come from
//! 127.0.0.2, the silent and the wrong ones from 127.0.0.3, the agent from 127.0.0.1.
//! Linux: every 127.0.0.0/8 address is loopback.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// How many idle sockets the attacker holds: more than the 4,096 connections the
/// controller serves at once.
const IDLE: usize = 5_000;

/// A TCP connection to `server` from the loopback address `from`, or None when the
/// server's backlog makes it wait over 3 s (a SYN dropped once is retried after 1 s).
async fn connect_from(from: &str, server: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket.bind(format!("{from}:0").parse().expect("an address")).expect("bound on loopback");
    tokio::time::timeout(Duration::from_secs(3), socket.connect(server)).await.ok()?.ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_is_served_while_thousands_of_idle_sockets_are_held() {
    // The client sockets and the server's share this process's open-file limit.
    let files = pozo_server::raise_open_files_limit().expect("the open-file limit");
    assert!(files >= 2 * IDLE as u64, "this test needs {} open files; the hard limit allows {files}", 2 * IDLE);
    let server = TestServer::start().await;
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        // A connect that waits means the server no longer accepts: the attack is complete.
        let Some(stream) = connect_from("127.0.0.2", server.address).await else { break };
        idle.push(stream);
    }
    assert!(idle.len() >= 4_096, "the attacker holds as many sockets as the controller serves: {}", idle.len());
    // A real client, from another address, while every idle socket is still open: it
    // connects, speaks HTTP/2 and is answered. Before, every place was taken by the
    // idle sockets and it got no answer at all.
    let answered = tokio::time::timeout(Duration::from_secs(10), async {
        let mut client = server.client().await;
        client.ok("B1", open()).await
    })
    .await
    .expect("the agent is served while the idle sockets are held");
    assert_eq!(answered.outcome, "Apertura de Mesa B1");
    drop(idle);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_that_never_speaks_http2_is_closed() {
    let server = TestServer::start().await;
    // Silent: closed once the handshake time (3 s) is over.
    let mut silent = connect_from("127.0.0.3", server.address).await.expect("connected");
    let mut byte = [0u8; 1];
    let read = tokio::time::timeout(Duration::from_secs(10), silent.read(&mut byte)).await.expect("closed by the server");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    // Something else than the HTTP/2 preface: closed at once.
    let mut other = connect_from("127.0.0.3", server.address).await.expect("connected");
    other.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await.expect("written");
    let read = tokio::time::timeout(Duration::from_secs(2), other.read(&mut byte)).await.expect("closed at once");
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    server.stop().await;
}
