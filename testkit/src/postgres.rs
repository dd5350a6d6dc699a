//! A throw-away PostgreSQL cluster for the PostgreSQL suite (`--features postgres-tests`):
//! `initdb` in a temporary directory, the server on a free 127.0.0.1 port with its socket in
//! that directory, stopped and removed when dropped. It needs Debian's `postgresql` package
//! (`.ci/run` installs it): without it [`Cluster::start`] fails the test, saying so; it never
//! passes silently.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The user the clusters are created for, and its password (SCRAM over TCP, as in production:
/// the controller's address carries it, and a test can check it is never logged).
pub const USER: &str = "pozo";
pub const PASSWORD: &str = "clave-de-prueba-7f3a";

/// A running cluster; stopped (immediately) and deleted on drop.
pub struct Cluster {
    directory: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    /// Root may not run PostgreSQL: the cluster then belongs to the `postgres` user.
    as_postgres: bool,
}

/// The newest `/usr/lib/postgresql/N/bin` (Debian's layout), or `POZO_PG_BIN`.
fn bin_directory() -> PathBuf {
    if let Some(bin) = std::env::var_os("POZO_PG_BIN") {
        return PathBuf::from(bin);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| bin.join("initdb").is_file())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).unwrap_or_else(|| {
        panic!(
            "the PostgreSQL suite needs PostgreSQL's server programs (initdb, pg_ctl): install Debian's `postgresql` \
             (`.ci/run` does: apt-get install postgresql) or set POZO_PG_BIN"
        )
    })
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|output| output.stdout.trim_ascii() == b"0").unwrap_or(false)
}

impl Cluster {
    /// Creates and starts a cluster; panics with PostgreSQL's own log if it cannot.
    pub fn start() -> Cluster {
        let bin = bin_directory();
        let as_postgres = is_root();
        let directory = tempfile::Builder::new().prefix("pozo-pg-").tempdir().expect("a temporary directory");
        if as_postgres {
            let status = Command::new("chown").args(["-R", "postgres:postgres"]).arg(directory.path()).status().expect("chown");
            assert!(status.success(), "chown the cluster's directory to postgres");
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("bound").port();
        let cluster = Cluster { directory, bin, port, as_postgres };
        let data = cluster.data();
        let password_file = cluster.directory.path().join("password");
        std::fs::write(&password_file, PASSWORD).expect("the password file");
        cluster.run(
            "initdb",
            &[
                "-D",
                path(&data),
                "-U",
                USER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                &format!("--pwfile={}", path(&password_file)),
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions",
            ],
        );
        let options = format!("-p {port} -k {} -c listen_addresses=127.0.0.1", path(cluster.directory.path()));
        let log = cluster.directory.path().join("postgres.log");
        cluster.run("pg_ctl", &["-D", path(&data), "-l", path(&log), "-o", &options, "-w", "-t", "60", "start"]);
        cluster
    }

    fn data(&self) -> PathBuf {
        self.directory.path().join("data")
    }

    /// One of PostgreSQL's programs, run as `postgres` when we are root.
    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        }
    }

    /// Runs one of PostgreSQL's programs; panics with its output.
    fn run(&self, program: &str, args: &[&str]) {
        let output = self
            .command(program)
            .args(args)
            .env("PGPASSWORD", PASSWORD)
            .current_dir(self.directory.path())
            .output()
            .expect("PostgreSQL's program runs");
        let log = std::fs::read_to_string(self.directory.path().join("postgres.log")).unwrap_or_default();
        assert!(
            output.status.success(),
            "{program} {args:?}: {}\n{}\n{log}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Restarts the cluster (`pg_ctl restart -m fast`): every connection is cut, as when the
    /// database's machine restarts or fails over.
    pub fn restart(&self) {
        let data = self.data();
        let log = self.directory.path().join("postgres.log");
        self.run("pg_ctl", &["-D", path(&data), "-l", path(&log), "-m", "fast", "-w", "-t", "60", "restart"]);
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// A new, empty database in this cluster, and its address.
    pub fn database(&self, name: &str) -> String {
        let port = self.port.to_string();
        self.run("createdb", &["-h", "127.0.0.1", "-p", &port, "-U", USER, name]);
        self.url(name)
    }

    /// The address of database `name`, with the password.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://{USER}:{PASSWORD}@127.0.0.1:{}/{name}", self.port)
    }

    /// Runs one SQL statement in `database` with psql and returns what it printed (unaligned,
    /// tuples only): how a test looks at the tables the controller wrote.
    pub fn sql(&self, database: &str, statement: &str) -> String {
        let output = Command::new(self.bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                USER,
                "-d",
                database,
                "-At",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
            ])
            .arg(statement)
            .env("PGPASSWORD", PASSWORD)
            .output()
            .expect("psql runs");
        assert!(output.status.success(), "psql {statement}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self.command("pg_ctl").args(["-D", path(&data), "-m", "immediate", "-w", "stop"]).output();
    }
}
