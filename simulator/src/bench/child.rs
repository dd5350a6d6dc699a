//! The child processes `bench` starts (the controller, the bare echo), and their handles.

use super::*;

/// A child process of the benchmark: killed when dropped unless it was stopped.
pub(super) struct ChildProcess {
    pub(super) name: &'static str,
    pub(super) child: Child,
    pub(super) stdin: Option<ChildStdin>,
    /// Its `listening` line, without the word.
    pub(super) address: String,
    /// `key=value` figures of its `listening` line.
    pub(super) figures: Vec<(String, String)>,
    /// From spawning to its `listening` line.
    pub(super) ready: Duration,
}

impl ChildProcess {
    /// Starts `pozo-sim bench-child ARGS…` and waits for its `listening ADDRESS …` line.
    pub(super) fn start(name: &'static str, args: &[String]) -> anyhow::Result<ChildProcess> {
        let exe = std::env::current_exe().context("the benchmark's own binary")?;
        let started = Instant::now();
        let mut child = std::process::Command::new(exe)
            .arg("bench-child")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting the {name}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        // Wrapped at once: from here on the child is killed on any error.
        let mut process = ChildProcess { name, child, stdin, address: String::new(), figures: Vec::new(), ready: Duration::ZERO };
        let (lines, line) = std::sync::mpsc::sync_channel::<String>(1);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut first = String::new();
            if reader.read_line(&mut first).is_ok() && !first.is_empty() {
                let _ = lines.send(first);
            }
            // Drain the rest so the child never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let first = line
            .recv_timeout(READY_TIMEOUT)
            .map_err(|_| anyhow::anyhow!("the {name} exited or did not serve within {} s", READY_TIMEOUT.as_secs()))?;
        process.ready = started.elapsed();
        let mut words =
            first.strip_prefix("listening ").with_context(|| format!("the {name} printed {first:?}"))?.split_whitespace();
        process.address = words.next().with_context(|| format!("the {name} printed no address"))?.to_owned();
        process.figures =
            words.filter_map(|word| word.split_once('=').map(|(key, value)| (key.to_owned(), value.to_owned()))).collect();
        Ok(process)
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(super) fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    pub(super) fn figure(&self, key: &str) -> Option<&str> {
        self.figures.iter().find(|(name, _)| name == key).map(|(_, value)| value.as_str())
    }

    /// Closes its stdin (it stops gracefully) and waits; kills it if it lingers.
    pub(super) fn stop(mut self) -> anyhow::Result<()> {
        drop(self.stdin.take());
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait()? {
                anyhow::ensure!(status.success(), "the {} exited with {status}", self.name);
                return Ok(());
            }
            if Instant::now() >= deadline {
                anyhow::bail!("the {} did not stop within {} s: killed", self.name, STOP_TIMEOUT.as_secs());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Resolves when this process's stdin closes: the parent is done, or gone.
pub(super) fn stdin_closed() -> tokio::sync::oneshot::Receiver<()> {
    let (closed, on_close) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        let _ = closed.send(());
    });
    on_close
}

pub(super) fn announce(address: std::net::SocketAddr, figures: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "listening {address}{figures}");
    let _ = stdout.flush();
}

pub(super) async fn serve_child(
    data: &Path,
    tables: usize,
    seed: u64,
    listen: &str,
    snapshot_every: u64,
    pages: bool,
    store: Option<String>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let config = casino::generated(tables, seed)?;
    let config_ms = started.elapsed().as_millis();
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    anyhow::ensure!(address.ip().is_loopback(), "--listen {listen}: the benchmark listens on loopback only");
    let stop = stdin_closed();
    let pages = pages.then(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    let store = store.map(|url| pozo_server::writer::StoreChoice::Postgres { url, standby: false });
    let options = ServeOptions { snapshot_every, pages, store, ..ServeOptions::default() };
    pozo_server::serve(
        listener,
        config,
        data,
        options,
        async move {
            let _ = stop.await;
        },
        move |started: &pozo_server::Started| {
            let pages = started.pages.map(|pages| format!(" pages={pages}")).unwrap_or_default();
            announce(address, &format!(" config_ms={config_ms}{pages}"))
        },
    )
    .await
}

/// A bare `pozo.v1.Table`: answers every submit with the same reply, checks nothing; with
/// `synced`, each answer waits for a sync of the disk begun after its command came in.
pub(super) struct EchoTable {
    pub(super) reply: pb::SubmitReply,
    pub(super) synced: Option<GroupSync>,
}

/// The most answers one sync of the synced echo covers.
const SYNC_BATCH_MAX: usize = 4_096;

/// The synced echo's one sync per batch (`bench-child echo --sync-dir`): the commands that came
/// in while a sync ran share the next one, as the controller's batches share their flush. The
/// least an acknowledgement can take through this transport on this disk with one sync per
/// batch and no journal, no rules (docs/architecture.md, "Two syncs per batch").
#[derive(Clone)]
pub(super) struct GroupSync {
    waiting: tokio::sync::mpsc::Sender<tokio::sync::oneshot::Sender<()>>,
}

impl GroupSync {
    /// Starts the task that syncs a page in `directory` for whoever waits.
    pub(super) fn start(directory: &Path) -> anyhow::Result<GroupSync> {
        let mut page = disk::SyncedPage::create(&directory.join("echo-sync"))
            .with_context(|| format!("--sync-dir {}", directory.display()))?;
        let (waiting, mut arrived) = tokio::sync::mpsc::channel::<tokio::sync::oneshot::Sender<()>>(SYNC_BATCH_MAX);
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(SYNC_BATCH_MAX);
            while arrived.recv_many(&mut batch, SYNC_BATCH_MAX).await > 0 {
                let synced = tokio::task::spawn_blocking(move || {
                    let result = page.write().and_then(|()| page.sync());
                    (page, result)
                })
                .await;
                let synced = synced
                    .map_err(anyhow::Error::from)
                    .and_then(|(back, result)| result.map(|()| back).map_err(anyhow::Error::from));
                match synced {
                    Ok(back) => page = back,
                    Err(error) => {
                        // Nobody is answered: the load reports the streams that broke.
                        eprintln!("pozo-sim bench-child: the synced echo's sync: {error}");
                        return;
                    }
                }
                for answer in batch.drain(..) {
                    let _ = answer.send(());
                }
            }
        });
        Ok(GroupSync { waiting })
    }

    /// Resolves once a sync begun after this call has ended.
    async fn wait(&self) -> Result<(), tonic::Status> {
        let (answer, synced) = tokio::sync::oneshot::channel();
        let gone = || tonic::Status::unavailable("the synced echo's sync stopped");
        self.waiting.send(answer).await.map_err(|_| gone())?;
        synced.await.map_err(|_| gone())
    }
}

#[tonic::async_trait]
impl pb::table_server::Table for EchoTable {
    async fn submit(&self, _request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::SubmitReply>, tonic::Status> {
        if let Some(synced) = &self.synced {
            synced.wait().await?;
        }
        Ok(tonic::Response::new(self.reply.clone()))
    }

    type CommandsStream = tonic::codegen::BoxStream<pb::SubmitReply>;

    async fn commands(
        &self,
        request: tonic::Request<tonic::Streaming<pb::Envelope>>,
    ) -> Result<tonic::Response<Self::CommandsStream>, tonic::Status> {
        let reply = self.reply.clone();
        let Some(synced) = self.synced.clone() else {
            let replies = tokio_stream::StreamExt::map(request.into_inner(), move |envelope| envelope.map(|_| reply.clone()));
            return Ok(tonic::Response::new(Box::pin(replies)));
        };
        let replies = futures_util::StreamExt::then(request.into_inner(), move |envelope| {
            let (reply, synced) = (reply.clone(), synced.clone());
            async move {
                envelope?;
                synced.wait().await?;
                Ok(reply)
            }
        });
        Ok(tonic::Response::new(Box::pin(replies)))
    }

    type WatchStream = tonic::codegen::tokio_stream::Empty<Result<pb::TableEvent, tonic::Status>>;

    async fn watch(&self, _request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<Self::WatchStream>, tonic::Status> {
        Err(tonic::Status::unimplemented("the echo pushes nothing"))
    }

    async fn prizes(&self, _request: tonic::Request<pb::Envelope>) -> Result<tonic::Response<pb::PrizeList>, tonic::Status> {
        Err(tonic::Status::unimplemented("the echo has no paytable"))
    }

    async fn check_inspector(
        &self,
        _request: tonic::Request<pb::Envelope>,
    ) -> Result<tonic::Response<pb::Person>, tonic::Status> {
        Err(tonic::Status::unimplemented("the echo has no inspectors"))
    }
}

pub(super) async fn echo_child(listen: &str, reply_hex: &str, sync_dir: Option<&Path>) -> anyhow::Result<()> {
    let bytes = hex::decode(reply_hex).context("--reply-hex: not hex")?;
    let reply = pb::SubmitReply::decode(bytes.as_slice()).context("--reply-hex: not a SubmitReply")?;
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    anyhow::ensure!(address.ip().is_loopback(), "--listen {listen}: the benchmark listens on loopback only");
    let incoming = tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
    let stop = stdin_closed();
    let synced = sync_dir.map(GroupSync::start).transpose()?;
    let service = pb::table_server::TableServer::new(EchoTable { reply, synced }).max_decoding_message_size(MESSAGE_BYTES_MAX);
    // The controller's transport settings, so that only the work behind them differs.
    let server = pozo_server::server_builder().add_service(service);
    announce(address, "");
    server
        .serve_with_incoming_shutdown(incoming, async move {
            let _ = stop.await;
        })
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round the synced page holds now: how many syncs have been begun.
    fn round(directory: &Path) -> u64 {
        let bytes = std::fs::read(directory.join("echo-sync")).expect("the synced page");
        u64::from_be_bytes(bytes[..8].try_into().expect("eight bytes"))
    }

    #[tokio::test]
    async fn a_synced_answer_waits_for_a_sync_begun_after_it_and_waiters_share_one() {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let synced = GroupSync::start(directory.path()).expect("started");
        assert_eq!(round(directory.path()), 0);
        for after in 0..3 {
            let before = round(directory.path());
            synced.wait().await.expect("synced");
            assert!(round(directory.path()) > before, "answered after {after} waits with no sync of its own");
        }
        // A hundred at once: each answered, in fewer syncs than waiters once any had to wait.
        let before = round(directory.path());
        let waits: Vec<_> = (0..100).map(|_| synced.wait()).collect();
        for result in futures_util::future::join_all(waits).await {
            result.expect("synced");
        }
        let syncs = round(directory.path()) - before;
        assert!((1..100).contains(&syncs), "{syncs} syncs for 100 waiters");
    }
}
