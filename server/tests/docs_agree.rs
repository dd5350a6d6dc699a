//! The docs say what the binaries do: what a newcomer copies from the README and the pages'
//! guide is checked against a run of the real binary and the real controller.

mod common;

use std::process::Command;

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

fn repository_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The subcommands `pozo-server --help` lists.
fn subcommands() -> Vec<String> {
    let output = Command::new(BIN).arg("--help").output().expect("pozo-server --help runs");
    let help = String::from_utf8(output.stdout).expect("UTF-8");
    let listed = help.split("Commands:").nth(1).expect("a command list").split("Options:").next().expect("its end");
    listed
        .lines()
        .filter_map(|line| line.strip_prefix("  ").and_then(|line| line.split_whitespace().next()))
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The README's table of what is here names every command the controller's binary has, and
/// no other.
#[test]
fn the_readme_names_every_command_of_the_binary() {
    let readme = repository_file("README.md");
    let row = readme.lines().find(|line| line.starts_with("| `server/` |")).expect("the server's row");
    let named: Vec<&str> = row.split("commands ").nth(1).expect("its command list").split('`').skip(1).step_by(2).collect();
    let commands = subcommands();
    assert!(commands.len() >= 13, "{commands:?}");
    for command in &commands {
        assert!(named.contains(&command.as_str()), "the README does not name `{command}`: {row}");
    }
    for name in named.iter().filter(|name| !name.contains(' ')) {
        assert!(commands.iter().any(|command| command == name), "the README names `{name}`, which is no command");
    }
}

/// Every `/cartel?…` address the pages' guide gives as an example answers 200 on the
/// embedded layout (`/cartel?flor=1` was a 404: the flores are named F1…F5). A salon's sign needs
/// a layout with salons, which the embedded one is not (its own test is in `salons.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cartel_addresses_of_the_pages_guide_answer() {
    let guide = repository_file("docs/pages.md");
    let examples: Vec<&str> = guide
        .split('`')
        .filter(|quoted| quoted.starts_with("/cartel?") && !quoted.contains(' ') && !quoted.contains("salon="))
        .collect();
    assert!(examples.len() >= 3, "{examples:?}");
    let server = TestServer::with_pages().await;
    let http = reqwest::Client::new();
    for example in examples {
        let response = http.get(format!("{}{example}", server.pages_url().trim_end_matches('/'))).send().await.expect("answered");
        assert_eq!(response.status(), 200, "{example}");
    }
    server.stop().await;
}

/// The README's `pozo-server status` sample has the lines a real run prints, in order (the
/// version line was missing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_status_sample_has_the_lines_a_run_prints() {
    let readme = repository_file("README.md");
    let sample = readme.split("$ pozo-server status\n").nth(1).expect("the sample").split("```").next().expect("its end");
    let server = TestServer::with_pages().await;
    let pages = server.pages_url();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(BIN).args(["status", "--pages", &pages]).env("NO_COLOR", "1").output().expect("status runs")
    })
    .await
    .expect("joined");
    let printed = String::from_utf8(output.stdout).expect("UTF-8");
    // A line is told by its first word (the pools by their indentation).
    let first_words = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.starts_with("  "))
            .filter_map(|line| line.split_whitespace().next())
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(first_words(sample), first_words(&printed), "README sample:\n{sample}\nprinted:\n{printed}");
    server.stop().await;
}
