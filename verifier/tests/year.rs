//! A year of jornadas verifies in one call within a bounded memory (issue 42, point 12): the
//! files are checked one at a time in the journal's order, keeping of each only its verdict
//! and what links it to the next.

mod common;

use std::path::PathBuf;
use std::process::Command as Process;

use common::*;
use pozo_core::config::Config;
use pozo_verifier::make::seal;
use pozo_verifier::{PublicKey, SigningKey};

const TEST: &str = "many_jornadas_verify_in_the_memory_of_one";
const FILES: &str = "POZO_VERIFIER_TEST_FILES";
const KEY: &str = "POZO_VERIFIER_TEST_KEY";

/// The peak resident size of this process, KiB (`VmHWM` of /proc/self/status).
fn peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).expect("a size in kB")
}

/// The peak resident size, KiB, of a new process that runs `verify_paths` (what the binary
/// runs) on `files` and finds them conforme: this test, run again, taking the other branch.
fn peak_of(files: &[PathBuf], key: &PublicKey) -> u64 {
    let paths: Vec<&str> = files.iter().map(|file| path(file)).collect();
    let output = Process::new(std::env::current_exe().expect("this test"))
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(FILES, paths.join("\n"))
        .env(KEY, key.hex())
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{out}{}", String::from_utf8_lossy(&output.stderr));
    let line = out.lines().find_map(|line| line.split("peak_kib=").nth(1)).unwrap_or_else(|| panic!("a peak: {out}"));
    eprintln!("peak of {} files: {line} KiB", files.len());
    line.parse().expect("KiB")
}

// Proves point 12: the verifier's peak memory over many consecutive jornadas is about that of
// one, not their sum. 40 nights, each file carrying a 1 MiB rulebook twice (its `files` and its
// opening state's), verify and link in one call with a peak resident size within eight files'
// size of the peak for the last file alone; holding every file (and every state) as before adds
// many times that. Measured in a process of its own (VmHWM), not timed.
#[cfg(target_os = "linux")]
#[test]
fn many_jornadas_verify_in_the_memory_of_one() {
    if let Ok(files) = std::env::var(FILES) {
        let key = PublicKey::parse(&std::env::var(KEY).expect("the key")).expect("a key");
        let files: Vec<PathBuf> = files.lines().map(PathBuf::from).collect();
        let verdict = pozo_verifier::verify_paths(&files, &key).expect("read");
        assert!(verdict.conforme, "{}", pozo_verifier::castellano(&verdict));
        assert_eq!(verdict.links.len(), files.len() - 1);
        println!("peak_kib={}", peak_kib());
        return;
    }
    let mut texts = Config::embedded().texts;
    texts.last_mut().expect("a rulebook").1.push_str(&format!("\n# {}\n", "x".repeat(1 << 20)));
    let config = Config::from_texts(texts).expect("a rulebook with a long comment is valid");
    let directory = tempfile::tempdir().expect("a directory");
    let (key, _) = SigningKey::generate().expect("a key");
    let files: Vec<PathBuf> = nights(config, 100)
        .iter()
        .map(|night| write(directory.path(), &format!("{}.json", night.jornada), &seal(&night.evidence(), &key)))
        .collect();
    let file_kib = std::fs::metadata(files.last().expect("a file")).expect("its size").len() / 1024;
    assert!(file_kib > 1024, "each file carries the rulebook: {file_kib} KiB");
    let one = peak_of(&files[files.len() - 1..], &key.public());
    let all = peak_of(&files, &key.public());
    assert!(
        all < one + 8 * file_kib,
        "100 files peaked at {all} KiB, one at {one} KiB: more than eight files' {file_kib} KiB apart"
    );
}
