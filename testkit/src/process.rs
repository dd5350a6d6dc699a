//! `pozo-server serve` as a child process, for the tests that kill, stop or signal
//! the real binary: the server's crash, damage and browser tests (with
//! `CARGO_BIN_EXE_pozo-server`) and the agent tests of this kit (with
//! `CARGO_BIN_EXE_testkit-pozo-server`).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How long the binary may take to say where it listens, or to stop.
pub const PROCESS_WAIT: Duration = Duration::from_secs(20);

/// Waits at most `limit` for `child` to exit.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A start of `pozo-server serve` that never announced itself: its exit code and log.
#[derive(Debug)]
pub struct Refused {
    pub code: Option<i32>,
    pub log: String,
}

/// A `pozo-server serve` child process; killed (SIGKILL) when dropped, so no
/// test leaves a server behind, whatever fails.
pub struct ServerProcess {
    child: Option<Child>,
    pub address: String,
    /// `http://127.0.0.1:PORT`, where the pages are served (every start but `--no-pages`).
    pub pages: Option<String>,
    log: PathBuf,
}

impl ServerProcess {
    /// Starts `BINARY serve --data DIR --listen ADDR EXTRA…` with its log in `log`, and
    /// waits for the one line that says where it listens. Blocking: from async code,
    /// call it in `spawn_blocking`.
    pub fn spawn(binary: &Path, data: &Path, listen: &str, extra: &[&str], log: &Path) -> ServerProcess {
        ServerProcess::try_spawn(binary, data, listen, extra, log)
            .unwrap_or_else(|refused| panic!("pozo-server did not start (exit {:?}); log:\n{}", refused.code, refused.log))
    }

    /// [`ServerProcess::spawn`] that may be refused: the server serving, or how it exited
    /// without ever announcing itself.
    pub fn try_spawn(binary: &Path, data: &Path, listen: &str, extra: &[&str], log: &Path) -> Result<ServerProcess, Refused> {
        ServerProcess::try_spawn_env(binary, data, listen, extra, &[], log)
    }

    /// [`ServerProcess::try_spawn`] with these environment variables set for the server
    /// (`RUST_LOG`, …) on top of the test's own.
    pub fn try_spawn_env(
        binary: &Path,
        data: &Path,
        listen: &str,
        extra: &[&str],
        envs: &[(&str, &str)],
        log: &Path,
    ) -> Result<ServerProcess, Refused> {
        let mut child = Command::new(binary)
            .envs(envs.iter().copied())
            .arg("serve")
            .arg("--data")
            .arg(data)
            .args(["--listen", listen])
            .args(if extra.contains(&"--pages") || extra.contains(&"--no-pages") {
                &[][..]
            } else {
                &["--pages", "127.0.0.1:0"][..]
            })
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(log).expect("log file")))
            .spawn()
            .expect("pozo-server starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel::<String>();
        // Reads the announcement, then drains stdout until the process ends.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let _ = sender.send(line);
            }
        });
        let log_text = || std::fs::read_to_string(log).unwrap_or_default();
        let Ok(line) = lines.recv_timeout(PROCESS_WAIT) else {
            let status = wait_bounded(&mut child, PROCESS_WAIT);
            if status.is_none() {
                let _ = child.kill();
                let _ = child.wait();
            }
            return Err(Refused { code: status.and_then(|status| status.code()), log: log_text() });
        };
        let address = line
            .strip_prefix("pozo-server listening on ")
            .unwrap_or_else(|| panic!("unexpected first line `{line}`; log:\n{}", log_text()));
        assert!(address.starts_with("127.0.0.1:"), "loopback only: {address}");
        // The pages, when served, are announced on the next line.
        let pages = if extra.contains(&"--no-pages") {
            None
        } else {
            let line = lines.recv_timeout(PROCESS_WAIT).unwrap_or_default();
            let url = line
                .strip_prefix("pozo-server pages on ")
                .unwrap_or_else(|| panic!("unexpected second line `{line}`; log:\n{}", log_text()));
            Some(url.trim_end_matches('/').to_owned())
        };
        Ok(ServerProcess { child: Some(child), address: address.to_owned(), pages, log: log.to_path_buf() })
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Sends a signal with `kill -SIGNAL PID` (SIGTERM: a stop; SIGSTOP, SIGCONT).
    pub fn signal(&self, signal: &str) {
        let pid = self.pid().to_string();
        let sent = Command::new("kill").args([&format!("-{signal}"), &pid]).status().expect("kill runs");
        assert!(sent.success(), "SIG{signal} sent to {pid}");
    }

    /// Waits (bounded) for the process to exit on its own.
    pub fn wait(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        wait_bounded(&mut child, PROCESS_WAIT).unwrap_or_else(|| {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pozo-server did not exit within {PROCESS_WAIT:?}; log:\n{}", self.log_text())
        })
    }

    /// SIGTERM, then waits for the process to finish its batch and exit.
    pub fn terminate(&mut self) -> ExitStatus {
        self.signal("TERM");
        self.wait()
    }

    /// SIGKILL (`Child::kill` on Unix): no handler runs, nothing is flushed.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL delivered");
            let status = child.wait().expect("reaped");
            assert!(!status.success(), "a killed process does not exit 0");
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
