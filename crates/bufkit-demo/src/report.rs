//! Plain text for the stories: tables, durations, byte counts, and strategies timed against a
//! baseline. The first three print as `bufkit`'s summaries do; the demo is not shipped, so it
//! keeps its own copy rather than make the CLI a library.

#![forbid(unsafe_code)]

/// Renders rows as a left-aligned first column and right-aligned others.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(&widths).enumerate() {
            let pad = w - cell.chars().count();
            if i == 0 {
                out.push_str(cell);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str("  ");
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            }
        }
        out.trim_end().to_string()
    };
    let mut out = line(header.to_vec());
    out.push('\n');
    out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
    out.push('\n');
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

/// A duration in the unit that keeps 3 significant digits readable.
pub fn duration(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 1e-3 {
        format!("{:.2} ms", secs * 1e3)
    } else {
        format!("{:.1} µs", secs * 1e6)
    }
}

/// A byte count in binary units.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{n} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

/// One strategy's best time.
pub struct Strategy {
    pub name: String,
    pub seconds: f64,
}

impl Strategy {
    /// A strategy and its best time.
    pub fn timed(name: impl Into<String>, seconds: f64) -> Strategy {
        Strategy { name: name.into(), seconds }
    }
}

/// One strategy as printed in JSON: its ratio to the strategy the demo compares against.
#[derive(serde::Serialize)]
struct Timed {
    strategy: String,
    seconds: f64,
    ratio_to_bufkit: f64,
}

/// Prints timed strategies as JSON, or as a heading and a table with a ratio column against
/// `baseline` seconds (labelled `vs`).
pub fn timed_strategies(rows: Vec<Strategy>, baseline: f64, json: bool, heading: &str, vs: &str) -> Result<(), String> {
    let rows: Vec<Timed> = rows
        .into_iter()
        .map(|r| Timed { strategy: r.name, seconds: r.seconds, ratio_to_bufkit: r.seconds / baseline })
        .collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!("{heading}\n");
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r.strategy.clone(), duration(r.seconds), format!("{:.2}x", r.ratio_to_bufkit)])
        .collect();
    print!("{}", table(&["strategy", "time", vs], &cells));
    Ok(())
}
