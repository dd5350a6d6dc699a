//! The floor's guide (`docs/guia/`, issue 45 point 11) agrees with the repository: every
//! screenshot it shows is in `docs/img/` (and a screen shown at 1024×768 is shown at 1280×800
//! too, where both were agreed), every relative link leads to a file, every screenshot agreed for
//! the guide is in it, the installation follows the systemd unit of `deploy/`, and every
//! `pozo-server`, `pozo-agent` and `pozo-verifier` command it gives names a real subcommand and
//! real options: `pozo-server`'s as its own `--help` lists them (the real binary, as
//! `docs_agree.rs` reads it), the agent's and the verifier's as their command-line definitions
//! declare them (`table-agent/src/cli.rs`, `verifier/src/main.rs`: their binaries are other
//! packages', not built for this one's tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pozo-server");

/// The screenshots the issue agreed on for the guide (issue 45, "The screenshots"), each of
/// which the guide must show. The 1920×1080 ones of the README are not the guide's.
const AGREED: [&str; 16] = [
    "monitor-1024x768.png",
    "monitor-1280x800.png",
    "monitor-rechazo-1024x768.png",
    "monitor-suspendido-1024x768.png",
    "monitor-inspector-1024x768.png",
    "monitor-premio-1024x768.png",
    "flor-1024x768.png",
    "flor-1280x800.png",
    "cartel-1024x768.png",
    "cartel-1280x800.png",
    "sala-1024x768.png",
    "sala-1280x800.png",
    "venta-pagos-1024x768.png",
    "venta-pagos-1280x800.png",
    "planilla-1280x800.png",
    "conciliacion-1280x800.png",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn repository_file(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// Every page of the guide, by its path in the repository, with its text.
fn guide() -> BTreeMap<String, String> {
    let directory = root().join("docs/guia");
    let mut pages = BTreeMap::new();
    for entry in std::fs::read_dir(&directory).unwrap_or_else(|error| panic!("docs/guia: {error}")) {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|extension| extension == "md") {
            let name = format!("docs/guia/{}", path.file_name().expect("a name").to_string_lossy());
            pages.insert(name.clone(), repository_file(&name));
        }
    }
    for page in
        ["README.md", "crupier.md", "inspector.md", "venta-pagos.md", "jefe-de-sala.md", "fin-de-jornada.md", "instalacion.md"]
    {
        assert!(pages.contains_key(&format!("docs/guia/{page}")), "the guide has no {page}");
    }
    pages
}

/// A fenced code block: its language (empty when none) and its text.
struct Block {
    language: String,
    text: String,
}

/// The fenced code blocks of a page, and the page without them (its prose).
fn split_code(page: &str) -> (Vec<Block>, String) {
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut open: Option<(String, usize, String)> = None;
    for line in page.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match open.take() {
            None if trimmed.starts_with("```") => {
                open = Some((trimmed.trim_start_matches('`').trim().to_owned(), indent, String::new()))
            }
            None => {
                prose.push_str(line);
                prose.push('\n');
            }
            Some((language, _, text)) if trimmed.starts_with("```") => blocks.push(Block { language, text }),
            Some((language, fence_indent, mut text)) => {
                text.push_str(line.get(fence_indent.min(indent)..).unwrap_or(trimmed));
                text.push('\n');
                open = Some((language, fence_indent, text));
            }
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    (blocks, prose)
}

/// The targets of the Markdown links of some prose: `(is an image, target)`.
fn links(prose: &str) -> Vec<(bool, String)> {
    // Inline code is not a link: `[[key]]` and the like.
    let prose: String = prose.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let mut found = Vec::new();
    let mut rest = prose.as_str();
    while let Some(at) = rest.find("](") {
        let before = &rest[..at];
        let Some(open) = before.rfind('[') else {
            rest = &rest[at + 2..];
            continue;
        };
        let image = before[..open].ends_with('!');
        let after = &rest[at + 2..];
        let end = after.find(')').expect("a link's target ends with `)`");
        found.push((image, after[..end].trim().to_owned()));
        rest = &after[end..];
    }
    found
}

/// Every image of the guide is a file of `docs/img/`, linked as `../img/NAME.png`; a screen shown
/// at 1024×768 is shown at 1280×800 on the same page wherever both sizes were agreed; and every
/// agreed screenshot is in the guide. Fails until the screenshots are committed to `docs/img/`.
#[test]
fn every_screenshot_of_the_guide_is_in_docs_img_and_each_screen_at_both_sizes() {
    let mut shown = BTreeSet::new();
    for (page, text) in guide() {
        let (_, prose) = split_code(&text);
        let images: Vec<String> = links(&prose).into_iter().filter(|(image, _)| *image).map(|(_, target)| target).collect();
        for target in &images {
            let name = target.strip_prefix("../img/").unwrap_or_else(|| panic!("{page}: image `{target}` is not in ../img/"));
            assert!(name.ends_with(".png") && !name.contains('/'), "{page}: image `{target}` is not a PNG of docs/img/");
            assert!(root().join("docs/img").join(name).is_file(), "{page}: the image `{target}` is not in docs/img/");
            shown.insert(name.to_owned());
        }
        for target in &images {
            if let Some(screen) = target.strip_prefix("../img/").and_then(|name| name.strip_suffix("-1024x768.png")) {
                let larger = format!("{screen}-1280x800.png");
                if AGREED.contains(&larger.as_str()) {
                    assert!(
                        images.contains(&format!("../img/{larger}")),
                        "{page}: shows {screen} at 1024×768 but not at 1280×800"
                    );
                }
            }
        }
    }
    for name in AGREED {
        assert!(shown.contains(name), "the guide does not show the agreed screenshot {name}");
    }
}

/// Every relative link of the guide (not its images: the screenshot test's) leads to a file or directory of the
/// repository; the index links every page of the guide.
#[test]
fn every_link_of_the_guide_resolves() {
    let pages = guide();
    let mut checked = 0;
    for (page, text) in &pages {
        let (_, prose) = split_code(text);
        let directory = root().join(page).parent().expect("a directory").to_path_buf();
        // Images are the screenshot test's, which names the missing ones.
        for (_, target) in links(&prose).into_iter().filter(|(image, _)| !image) {
            if target.starts_with("http://") || target.starts_with("https://") || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().expect("a path");
            if path.is_empty() {
                continue;
            }
            assert!(directory.join(path).exists(), "{page}: the link `{target}` leads nowhere");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} relative links");
    let index = &pages["docs/guia/README.md"];
    let linked: Vec<String> = links(&split_code(index).1).into_iter().map(|(_, target)| target).collect();
    for page in pages.keys().filter(|page| !page.ends_with("README.md")) {
        let name = page.trim_start_matches("docs/guia/");
        assert!(linked.iter().any(|target| target == name), "the index does not link {name}");
    }
}

/// The installation puts the files where the systemd unit of `deploy/` looks for them: every
/// path of its `ExecStart` is in the guide's installation page.
#[test]
fn the_installation_follows_the_systemd_unit() {
    let unit = repository_file("deploy/pozo-server.service");
    let installation = repository_file("docs/guia/instalacion.md");
    let exec = unit.split("ExecStart=").nth(1).expect("an ExecStart").split("\n#").next().expect("its end");
    let paths: Vec<&str> = exec.split_whitespace().filter(|word| word.starts_with('/')).collect();
    assert!(paths.len() >= 6, "{paths:?}");
    for path in paths {
        assert!(installation.contains(path), "docs/guia/instalacion.md does not name {path}, which the unit uses");
    }
}

/// A program's command line as the guide may give it: its subcommands (each with its options),
/// and the options accepted before any subcommand.
#[derive(Default, Debug)]
struct Program {
    options: BTreeSet<String>,
    subcommands: BTreeMap<String, Program>,
    /// Whether a subcommand is required (`pozo-server` has no default action).
    needs_subcommand: bool,
}

/// The `--options` a `--help` lists.
fn help_options(help: &str) -> BTreeSet<String> {
    help.lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .flat_map(|line| line.split("  ").next().unwrap_or("").split_whitespace())
        .filter(|word| word.starts_with("--"))
        .map(|word| word.trim_end_matches(',').split(['=', '[', '<']).next().expect("a name").to_owned())
        .collect()
}

/// The subcommands a `--help` lists.
fn help_subcommands(help: &str) -> Vec<String> {
    let Some(listed) = help.split("Commands:").nth(1) else { return Vec::new() };
    listed
        .split("Options:")
        .next()
        .expect("its end")
        .lines()
        .filter_map(|line| line.strip_prefix("  ").and_then(|line| line.split_whitespace().next()))
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

fn help(args: &[&str]) -> String {
    let output = Command::new(BIN).args(args).arg("--help").output().expect("pozo-server --help runs");
    assert!(output.status.success(), "pozo-server {args:?} --help: {output:?}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// `pozo-server` as its `--help` (and each subcommand's, and `change`'s subcommands') lists it.
fn pozo_server() -> Program {
    let top = help(&[]);
    let mut program = Program { options: help_options(&top), needs_subcommand: true, ..Program::default() };
    for name in help_subcommands(&top) {
        let text = help(&[&name]);
        let mut subcommand = Program { options: help_options(&text), ..Program::default() };
        for nested in help_subcommands(&text) {
            subcommand.needs_subcommand = true;
            let nested_help = help(&[&name, &nested]);
            subcommand.subcommands.insert(nested, Program { options: help_options(&nested_help), ..Program::default() });
        }
        program.subcommands.insert(name, subcommand);
    }
    assert!(program.subcommands.len() >= 13, "{:?}", program.subcommands.keys());
    program
}

/// `snake_case` or `CamelCase` to the `kebab-case` clap derives.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '_' {
            out.push('-');
        } else {
            out.push(c);
        }
    }
    out
}

/// The `--options` a clap derive block declares (`#[arg(long…)]` over a field), each with
/// whether it is `global`.
fn declared_options(block: &str) -> Vec<(String, bool)> {
    let mut options = Vec::new();
    let mut pending: Option<(Option<String>, bool)> = None;
    for line in block.lines().map(str::trim) {
        if line.starts_with("#[arg(") && (line.contains("(long") || line.contains(" long")) {
            let named = line.split("long = \"").nth(1).map(|rest| rest.split('"').next().expect("a name").to_owned());
            pending = Some((named, line.contains("global = true")));
        } else if !line.starts_with('#')
            && !line.starts_with("//")
            && line.contains(':')
            && let Some((named, global)) = pending.take()
        {
            let field = line.split(':').next().expect("a field").trim().trim_start_matches("pub ").trim();
            options.push((format!("--{}", named.unwrap_or_else(|| kebab(field))), global));
        }
    }
    options
}

/// The text of `{ … }` after `head` in `source`, up to the closing brace at the start of a line.
fn block_after<'a>(source: &'a str, head: &str) -> &'a str {
    let start = source.find(head).unwrap_or_else(|| panic!("`{head}` not found"));
    let rest = &source[start + head.len()..];
    &rest[..rest.find("\n}").expect("the block's end")]
}

/// `pozo-agent` as `table-agent/src/cli.rs` declares it: its options, and its subcommands (the
/// variants of `AgentCommand`) with their own options and the global ones.
fn pozo_agent() -> Program {
    let source = repository_file("table-agent/src/cli.rs");
    let top = declared_options(block_after(&source, "struct Cli {"));
    assert!(top.len() >= 8, "{top:?}");
    let global: BTreeSet<String> = top.iter().filter(|(_, global)| *global).map(|(name, _)| name.clone()).collect();
    let mut program = Program { options: top.into_iter().map(|(name, _)| name).collect(), ..Program::default() };
    let commands = block_after(&source, "enum AgentCommand {");
    let mut variant: Option<(String, String)> = None;
    for line in commands.lines() {
        let is_variant = line.starts_with("    ") && !line.starts_with("     ") && line.trim_end().ends_with('{');
        if is_variant {
            if let Some((name, body)) = variant.take() {
                program.subcommands.insert(name, agent_subcommand(&body, &global));
            }
            variant = Some((kebab(line.trim().trim_end_matches('{').trim()), String::new()));
        } else if let Some((_, body)) = variant.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    if let Some((name, body)) = variant {
        program.subcommands.insert(name, agent_subcommand(&body, &global));
    }
    assert!(program.subcommands.contains_key("status"), "{:?}", program.subcommands.keys());
    program
}

fn agent_subcommand(body: &str, global: &BTreeSet<String>) -> Program {
    let mut options: BTreeSet<String> = declared_options(body).into_iter().map(|(name, _)| name).collect();
    options.extend(global.iter().cloned());
    Program { options, ..Program::default() }
}

/// `pozo-verifier` as `verifier/src/main.rs` declares it: options and files, no subcommand.
fn pozo_verifier() -> Program {
    let source = repository_file("verifier/src/main.rs");
    let options: BTreeSet<String> =
        declared_options(block_after(&source, "struct Cli {")).into_iter().map(|(name, _)| name).collect();
    assert!(options.contains("--public-key"), "{options:?}");
    Program { options, ..Program::default() }
}

/// The commands of a shell text: lines joined at a trailing `\`, comments dropped, split at
/// `&&`, `||`, `|` and `;`, each with `sudo -u USER` and `VAR=value` taken off the front.
fn shell_commands(text: &str) -> Vec<Vec<String>> {
    let joined = text.replace("\\\n", " ");
    let mut commands = Vec::new();
    for line in joined.lines() {
        let line = match line.find(" #") {
            Some(at) => &line[..at],
            None if line.trim_start().starts_with('#') => "",
            None => line,
        };
        let line = line.trim_start_matches("$ ");
        let mut current: Vec<String> = Vec::new();
        for word in line.split_whitespace() {
            if matches!(word, "&&" | "||" | "|" | ";") {
                commands.push(std::mem::take(&mut current));
            } else {
                current.push(word.to_owned());
            }
        }
        commands.push(current);
    }
    commands
        .into_iter()
        .map(|mut words| {
            loop {
                if words.first().is_some_and(|word| word == "sudo") {
                    words.remove(0);
                    while words.first().is_some_and(|word| word.starts_with('-')) {
                        let option = words.remove(0);
                        if option == "-u" && !words.is_empty() {
                            words.remove(0);
                        }
                    }
                } else if words.first().is_some_and(|word| word.contains('=') && !word.starts_with('-')) {
                    words.remove(0);
                } else {
                    break;
                }
            }
            words
        })
        .filter(|words| !words.is_empty())
        .collect()
}

/// Checks one invocation's words (after the program) against the program; `None` when it is
/// sound, else what is wrong.
fn check_invocation(program: &Program, words: &[String], in_block: bool) -> Option<String> {
    let mut current = program;
    let mut allowed: BTreeSet<String> = program.options.clone();
    let mut expecting_subcommand = !program.subcommands.is_empty();
    let mut path = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if matches!(word.as_str(), ">" | ">>" | "2>" | "2>>" | "<") || word.starts_with('>') || word.starts_with("2>") {
            break;
        }
        if let Some(option) = word.strip_prefix("--") {
            let name = format!("--{}", option.split('=').next().expect("a name"));
            if !allowed.contains(&name) {
                return Some(format!("`{name}` is not an option of `{}` (it has {:?})", path.join(" "), allowed));
            }
            continue;
        }
        if expecting_subcommand && !word.starts_with('-') {
            let previous = if i == 0 { None } else { words.get(i - 1) };
            // The value of an option given before the subcommand (`--log-format json serve`).
            if previous.is_some_and(|previous| previous.starts_with("--") && !previous.contains('='))
                && !current.subcommands.contains_key(word)
            {
                continue;
            }
            match current.subcommands.get(word) {
                Some(next) => {
                    path.push(word.clone());
                    // After a subcommand clap takes its options only (the global ones are among them).
                    allowed = next.options.clone();
                    expecting_subcommand = !next.subcommands.is_empty();
                    current = next;
                }
                None if current.needs_subcommand => {
                    return Some(format!("`{word}` is no subcommand (there are {:?})", current.subcommands.keys()));
                }
                None => expecting_subcommand = false,
            }
        }
    }
    if in_block && current.needs_subcommand {
        return Some(format!("no subcommand after `{}`", path.join(" ")));
    }
    None
}

/// Every `pozo-server`, `pozo-agent` and `pozo-verifier` command of the guide's shell blocks
/// names a real subcommand and real options, and so does every one in its inline code that
/// names a subcommand or an option.
#[test]
fn every_command_the_guide_gives_is_real() {
    let programs: BTreeMap<&str, Program> =
        [("pozo-server", pozo_server()), ("pozo-agent", pozo_agent()), ("pozo-verifier", pozo_verifier())].into_iter().collect();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (page, text) in guide() {
        let (blocks, prose) = split_code(&text);
        let shell = blocks.iter().filter(|block| matches!(block.language.as_str(), "" | "sh" | "bash" | "console"));
        let block_commands = shell.flat_map(|block| shell_commands(&block.text)).map(|words| (true, words));
        let inline_commands = prose.split('`').skip(1).step_by(2).flat_map(shell_commands).map(|words| (false, words));
        for (in_block, words) in block_commands.chain(inline_commands) {
            let name = words[0].rsplit('/').next().expect("a name");
            let Some((&program_name, program)) = programs.get_key_value(name) else { continue };
            // Inline code is an invocation when a subcommand or an option follows the program's
            // name; otherwise it is what a program printed (`pozo-server listening on …`).
            let invoked =
                words.get(1).is_none_or(|word| word.starts_with('-') || program.subcommands.contains_key(word.as_str()));
            if !in_block && !invoked {
                continue;
            }
            *seen.entry(program_name).or_default() += 1;
            if let Some(problem) = check_invocation(program, &words[1..], in_block) {
                wrong.push(format!("{page}: `{}`: {problem}", words.join(" ")));
            }
        }
    }
    assert!(wrong.is_empty(), "commands of the guide that the programs would refuse:\n{}", wrong.join("\n"));
    assert!(seen.get("pozo-server").is_some_and(|n| *n >= 10), "{seen:?}");
    assert!(seen.get("pozo-agent").is_some_and(|n| *n >= 2), "{seen:?}");
    assert!(seen.get("pozo-verifier").is_some_and(|n| *n >= 2), "{seen:?}");
}

/// The checker itself refuses what the programs refuse: an unknown subcommand, an option of
/// another subcommand, an agent option that is not global after `status`, and a verifier option
/// it does not have.
#[test]
fn the_command_check_refuses_what_the_programs_refuse() {
    let server = pozo_server();
    let agent = pozo_agent();
    let verifier = pozo_verifier();
    let words = |line: &str| shell_commands(line).remove(0);
    let check = |program: &Program, line: &str| check_invocation(program, &words(line)[1..], true);
    assert_eq!(check(&server, "sudo -u pozo pozo-server backup --to /x --keys /k"), None);
    assert_eq!(check(&server, "pozo-server --log-format json serve --data /d"), None);
    assert_eq!(check(&server, "pozo-server change approve --key k --keys /k CB-000001"), None);
    assert!(check(&server, "pozo-server backups --to /x").is_some());
    assert!(check(&server, "pozo-server backup --data /x").is_some());
    assert!(check(&server, "pozo-server").is_some());
    assert!(check(&server, "pozo-server change").is_some());
    assert_eq!(check(&agent, "pozo-agent status --table B1 --key-file k --server https://a:1 --tls-ca ca"), None);
    assert_eq!(check(&agent, "pozo-agent --table B1 --key-file k --monitor 127.0.0.1:8090 --input unix:/s"), None);
    assert!(check(&agent, "pozo-agent status --monitor 127.0.0.1:8090").is_some());
    assert!(check(&agent, "pozo-agent --tabla B1").is_some());
    assert_eq!(check(&verifier, "pozo-verifier --public-key k.pub a.json b.json"), None);
    assert!(check(&verifier, "pozo-verifier --key k.pub a.json").is_some());
}
