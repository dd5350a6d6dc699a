//! `pozo-sim run --plot FILE.svg`: each pool's balance over the simulated night, one line per
//! pool, drawn with plotters as SVG (no fonts or system libraries needed).
//!
//! Amounts are exact decimals everywhere else; a chart's coordinates are the one place they
//! become floats, after all arithmetic, to be drawn.

use std::path::Path;

use anyhow::Context;
use plotters::prelude::*;
use pozo_engine::Money;
use rust_decimal::prelude::ToPrimitive;

use crate::night::NightReport;

/// The chart's size in pixels.
const SIZE: (u32, u32) = (1024, 640);

/// Draws the night's balance series into `path`.
pub fn balances(night: &NightReport, path: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(night.balances.len() >= 2, "the night has no balances to draw (a replay keeps none)");
    let pools: Vec<&String> = night.balances[0].pools.keys().collect();
    let rounds = night.balances.iter().map(|point| point.round).max().unwrap_or(0).max(1);
    let highest = night.balances.iter().flat_map(|point| point.pools.values().copied()).max().unwrap_or(Money::ZERO);
    // Headroom of a tenth above the highest balance, computed exactly.
    let top = pesos(highest + highest / rust_decimal::Decimal::TEN).max(1.0);
    let root = SVGBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).context("drawing the background")?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Pozos: saldo por ronda (semilla {}, {} mesas)", night.seed, night.tables), ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(0u32..rounds, 0f64..top)
        .context("laying out the chart")?;
    chart
        .configure_mesh()
        .x_desc("ronda")
        .y_desc("saldo ($)")
        .y_label_formatter(&|value| format!("$ {value:.0}"))
        .draw()
        .context("drawing the axes")?;
    for (index, pool) in pools.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        let series =
            night.balances.iter().filter_map(|point| point.pools.get(*pool).map(|balance| (point.round, pesos(*balance))));
        chart
            .draw_series(LineSeries::new(series, color.stroke_width(2)))
            .with_context(|| format!("drawing pool {pool}"))?
            .label(pool.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().context("drawing the legend")?;
    root.present().with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// An amount as a chart coordinate, in pesos.
fn pesos(amount: Money) -> f64 {
    amount.decimal().to_f64().unwrap_or(0.0)
}
