//! The rules on the command line: `award` computes one round's awards from a round file, and
//! `rulebooks` checks rulebook files and lists their pools.

use std::path::PathBuf;

use crate::config::rulebooks::{self, read_bounded};
use crate::tools::award::{self, ROUND_FILE_BYTES_MAX};
use pozo_engine::format_ars;

pub(super) fn run_award(round: &std::path::Path, rulebook_files: &[PathBuf], text: bool) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    let content = read_bounded(round, ROUND_FILE_BYTES_MAX)?;
    let name = round.display();
    let parsed = award::parse_round(&content).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    let report = award::calculate(&rulebooks, &parsed).map_err(|error| anyhow::anyhow!("{name}: {error}"))?;
    if text {
        print!("{}", award::render_text(&report));
    } else {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}

pub(super) fn run_rulebooks(rulebook_files: &[PathBuf]) -> anyhow::Result<()> {
    let rulebooks = rulebooks::load(rulebook_files)?;
    for rules in rulebooks.pools() {
        // What the minimum means (minimum_kind): a floor of the sign (IPLyC 3.2.2, 11.2.2,
        // 15.2.3) or the amount the pool starts and restarts at (Póquer sin descarte 6.2-6.3, AJ 2.5.6.3).
        let minimum = match rules.minimum_kind {
            pozo_engine::MinimumKind::Floor => "mínimo garantizado",
            pozo_engine::MinimumKind::Start => "monto inicial",
        };
        println!(
            "{:<20} {:<18} {minimum} {:>14}  apuesta {:>10}  incremento {}  ({}, arts. {})",
            rules.id,
            rules.policy.name(),
            format_ars(rules.minimum),
            format_ars(rules.side_bet),
            increment(rules),
            rules.file,
            rules.articles
        );
        let bets = if rules.fixed_bet() {
            format!("única de {}", format_ars(rules.side_bet))
        } else {
            format!("de {} a {}", format_ars(rules.bet_min), format_ars(rules.bet_max))
        };
        let shortfall = match rules.shortfall_from {
            pozo_engine::Shortfall::House => "la casa",
            pozo_engine::Shortfall::ReserveThenHouse => "el pozo de reserva, luego la casa",
        };
        println!(
            "    apuesta {bets}; lo que falte lo pone {shortfall}; Venta-Pagos: porcentajes y premios de más de {}",
            format_ars(rules.venta_pagos_over)
        );
        for group in &rules.exclusive {
            println!("    excluyentes en una mano: {}", group.join(", "));
        }
        for prize in &rules.prizes {
            println!("    {:<24} {}", prize.code, prize.article);
        }
    }
    Ok(())
}

/// The share of each bet the pool's meters grow by, as a Spanish reader writes it ("0,65";
/// 3.2.1, 11.2.3, 15.2.4): in a pool with levels, the levels' shares added, as the signs'
/// `increment_rate` (docs/readings.md, "Levels").
fn increment(rules: &pozo_engine::PoolRules) -> String {
    let rate = match rules.levels.is_empty() {
        true => rules.contribution_rate,
        false => rules.levels.iter().filter(|level| !level.house).map(|level| level.share).sum(),
    };
    let mut text = rate.normalize().to_string();
    match text.split_once('.') {
        None => text.push_str(",00"),
        Some((_, decimals)) if decimals.len() < 2 => text.push('0'),
        Some(_) => {}
    }
    text.replace('.', ",")
}
