//! The TMEM occupancy map: one small panel per SM that allocated (or waited for) Tensor
//! Memory. In each panel the x axis is the 512 TMEM columns (1 px per column, so a 32-column
//! allocation is 32 px wide) and the y axis is emulated time, running down, from step 0 to the
//! end of the run. Columns on x reads best: allocations are contiguous column ranges, so each
//! one is a single rectangle whose width is its size and whose height is its lifetime.
//!
//! - an allocation: a rectangle filled with its CTA's colour (stable palette, legend on top);
//! - a leaked allocation (never deallocated): hatched, with a red outline, reaching the bottom;
//! - a blocked `tcgen05.alloc`: a dashed outline over the wait interval, labelled
//!   "CTA 3 waits for 256 cols", placed on the columns it was eventually granted (or across
//!   the whole width when it never was).
//!
//! The output is standalone SVG 1.1 (no scripts, no external references, all text escaped).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::record::{AllocRecord, Blocked, Recorder, Step, TMEM_COLUMNS};

/// Horizontal pixels per TMEM column.
pub const COL_PX: f64 = 1.0;
/// Left edge of a panel's plot area, relative to the panel's origin (room for step labels).
pub const PLOT_LEFT: f64 = 64.0;
const PLOT_TOP: f64 = 26.0;
const PANEL_RIGHT: f64 = 18.0;
const PANEL_BOTTOM: f64 = 40.0;
const PAGE_PAD: f64 = 12.0;
const HEADER_H: f64 = 44.0;
const LEGEND_ROW_H: f64 = 20.0;

/// Colours for CTAs, `cta % len`: Tableau 10 (distinct, readable under white text), then
/// darker variants so adjacent CTA ids rarely share a colour.
const PALETTE: [&str; 16] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f",
    "#bab0ac", "#2f4b7c", "#a05195", "#d45087", "#665191", "#008f7a", "#c49c00", "#845ec2",
];

/// Whether a palette entry is light enough to need dark text (relative luminance > 0.45).
const PALETTE_LIGHT: [bool; 16] = [
    false, false, false, false, true, true, true, false, true, false, false, false, false, false,
    false, false,
];

/// The colour of a CTA in the map and its legend.
pub fn cta_colour(cta: u32) -> &'static str {
    PALETTE[cta as usize % PALETTE.len()]
}

/// Text colour readable on [`cta_colour`].
fn cta_text_colour(cta: u32) -> &'static str {
    if PALETTE_LIGHT[cta as usize % PALETTE.len()] {
        "#111111"
    } else {
        "#ffffff"
    }
}

/// Options of the map.
#[derive(Clone, Debug, Default)]
pub struct TmemMapOptions {
    /// Title; `None` gives "TMEM occupancy".
    pub title: Option<String>,
}

/// A blocked allocation request, drawn over its wait interval.
struct Wait {
    cta: u32,
    cols: u32,
    begin: Step,
    end: Option<Step>,
    /// Columns it was granted afterwards, if any.
    granted_at: Option<u32>,
}

struct Panel<'a> {
    sm: u32,
    allocs: Vec<(usize, &'a AllocRecord)>,
    waits: Vec<Wait>,
}

/// Writes the TMEM occupancy map of `rec` as SVG to `out`.
pub fn write_tmem_map<W: Write>(
    rec: &Recorder,
    opts: &TmemMapOptions,
    mut out: W,
) -> io::Result<()> {
    let svg = render(rec, opts);
    out.write_all(svg.as_bytes())?;
    out.flush()
}

/// Renders the map to a string (the picture is small: one element per allocation).
pub fn render(rec: &Recorder, opts: &TmemMapOptions) -> String {
    let panels = panels(rec);
    let end = rec.end_step().max(1);
    let n = panels.len();
    let (per_row, plot_h) = match n {
        0..=1 => (1, 220.0),
        2..=8 => (2, 200.0),
        _ => (4, 110.0),
    };
    let panel_w = PLOT_LEFT + TMEM_COLUMNS as f64 * COL_PX + PANEL_RIGHT;
    let panel_h = PLOT_TOP + plot_h + PANEL_BOTTOM;
    let width = 2.0 * PAGE_PAD + per_row as f64 * panel_w;

    let ctas: BTreeSet<u32> = panels
        .iter()
        .flat_map(|p| {
            p.allocs
                .iter()
                .map(|a| a.1.cta)
                .chain(p.waits.iter().map(|w| w.cta))
        })
        .collect();
    // Legend entries: CTAs (at most 24 shown), then the two markers.
    let shown: Vec<u32> = ctas.iter().copied().take(24).collect();
    let entry_w = 78.0;
    let per_legend_row = (((width - 2.0 * PAGE_PAD) / entry_w) as usize).max(1);
    let legend_entries = shown.len() + (ctas.len() > shown.len()) as usize + 2;
    let legend_rows = legend_entries.div_ceil(per_legend_row);
    let legend_top = PAGE_PAD + HEADER_H;
    let panels_top = legend_top + legend_rows as f64 * LEGEND_ROW_H + 8.0;
    let rows = n.div_ceil(per_row).max(1);
    let height = panels_top + rows as f64 * panel_h + PAGE_PAD;

    let mut s = String::with_capacity(4096 + 600 * rec.allocs.len());
    let _ = writeln!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"#
    );
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="11">"#
    );
    s.push_str(concat!(
        "<defs><pattern id=\"leak-hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" ",
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"none\"/>",
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d62728\" stroke-width=\"2\"/></pattern></defs>\n"
    ));
    let _ = writeln!(
        s,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    );

    // Header.
    let title = opts.title.as_deref().unwrap_or("TMEM occupancy");
    let _ = writeln!(
        s,
        r#"<text x="{PAGE_PAD}" y="{}" font-size="16" font-weight="bold">{}</text>"#,
        PAGE_PAD + 16.0,
        Esc(title)
    );
    let mut sub = format!(
        "{n} SM{} with TMEM activity · x: TMEM column (0–512) · y: emulated step 0–{} (down)",
        if n == 1 { "" } else { "s" },
        rec.end_step()
    );
    if let Some((step, dropped)) = rec.truncated() {
        let _ = write!(
            sub,
            " · TRUNCATED at step {step} ({dropped} records dropped)"
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{PAGE_PAD}" y="{}" fill="#444444">{}</text>"##,
        PAGE_PAD + 34.0,
        Esc(&sub)
    );

    // Legend.
    let mut k = 0usize;
    let mut slot = |s: &mut String, draw: &dyn Fn(&mut String, f64, f64)| {
        let (r, c) = (k / per_legend_row, k % per_legend_row);
        k += 1;
        draw(
            s,
            PAGE_PAD + c as f64 * entry_w,
            legend_top + r as f64 * LEGEND_ROW_H,
        );
    };
    for &c in &shown {
        slot(&mut s, &|s, x, y| {
            let _ = writeln!(
                s,
                r#"<rect class="legend" x="{x}" y="{y}" width="14" height="12" fill="{}"/><text x="{}" y="{}">CTA {c}</text>"#,
                cta_colour(c),
                x + 18.0,
                y + 10.0
            );
        });
    }
    if ctas.len() > shown.len() {
        let more = ctas.len() - shown.len();
        slot(&mut s, &|s, x, y| {
            let _ = writeln!(s, r#"<text x="{x}" y="{}">+{more} more</text>"#, y + 10.0);
        });
    }
    slot(&mut s, &|s, x, y| {
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{y}" width="14" height="12" fill="url(#leak-hatch)" stroke="#d62728" stroke-width="1.5"/><text x="{}" y="{}">leaked</text>"##,
            x + 18.0,
            y + 10.0
        );
    });
    slot(&mut s, &|s, x, y| {
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{y}" width="14" height="12" fill="none" stroke="#333333" stroke-dasharray="3 2"/><text x="{}" y="{}">waiting</text>"##,
            x + 18.0,
            y + 10.0
        );
    });

    if panels.is_empty() {
        let _ = writeln!(
            s,
            r##"<text x="{PAGE_PAD}" y="{}" fill="#444444">no TMEM allocations were recorded</text>"##,
            panels_top + 20.0
        );
    }

    let ys = plot_h / end as f64;
    let y_of = |t: Step| PLOT_TOP + t.min(end) as f64 * ys;
    let x_of = |col: u32| PLOT_LEFT + col as f64 * COL_PX;
    let plot_w = TMEM_COLUMNS as f64 * COL_PX;
    for (i, p) in panels.iter().enumerate() {
        let ox = PAGE_PAD + (i % per_row) as f64 * panel_w;
        let oy = panels_top + (i / per_row) as f64 * panel_h;
        let _ = writeln!(
            s,
            r#"<g class="sm" id="sm-{}" transform="translate({ox},{oy})">"#,
            p.sm
        );
        let _ = writeln!(
            s,
            r#"<text x="{PLOT_LEFT}" y="{}" font-size="13" font-weight="bold">SM {}</text>"#,
            PLOT_TOP - 8.0,
            p.sm
        );
        let _ = writeln!(
            s,
            r##"<rect x="{PLOT_LEFT}" y="{PLOT_TOP}" width="{plot_w}" height="{plot_h}" fill="#f4f4f4" stroke="#999999"/>"##
        );
        // Column ticks every 64, labels every 128.
        for col in (0..=TMEM_COLUMNS).step_by(64) {
            let x = x_of(col);
            let major = col % 128 == 0;
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{PLOT_TOP}" x2="{x}" y2="{}" stroke="#dddddd"/><line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#666666"/>"##,
                PLOT_TOP + plot_h,
                PLOT_TOP + plot_h,
                PLOT_TOP + plot_h + if major { 5.0 } else { 3.0 }
            );
            if major {
                let _ = writeln!(
                    s,
                    r#"<text x="{x}" y="{}" text-anchor="middle">{col}</text>"#,
                    PLOT_TOP + plot_h + 16.0
                );
            }
        }
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="middle" fill="#444444">TMEM column</text>"##,
            PLOT_LEFT + plot_w / 2.0,
            PLOT_TOP + plot_h + 31.0
        );
        // Step ticks.
        let tick = nice_step(end);
        let mut t = 0;
        while t <= end {
            let y = y_of(t);
            let _ = writeln!(
                s,
                r##"<line x1="{}" y1="{y}" x2="{PLOT_LEFT}" y2="{y}" stroke="#666666"/><text x="{}" y="{}" text-anchor="end">{t}</text>"##,
                PLOT_LEFT - 4.0,
                PLOT_LEFT - 6.0,
                y + 4.0
            );
            match t.checked_add(tick) {
                Some(n) => t = n,
                None => break,
            }
        }
        let _ = writeln!(
            s,
            r##"<text transform="translate(14,{}) rotate(-90)" text-anchor="middle" fill="#444444">step</text>"##,
            PLOT_TOP + plot_h / 2.0
        );

        for &(idx, a) in &p.allocs {
            let x = x_of(a.col);
            let w = a.cols.min(TMEM_COLUMNS.saturating_sub(a.col)) as f64 * COL_PX;
            let y0 = y_of(a.begin);
            let y1 = y_of(a.end.unwrap_or(end));
            let h = (y1 - y0).max(1.5);
            let leaked = a.end.is_none();
            let mut tip = format!(
                "CTA {}: columns {}..{} ({} cols), steps {}..{}",
                a.cta,
                a.col,
                a.col as u64 + a.cols as u64,
                a.cols,
                a.begin,
                a.end.map_or("end (leaked)".to_string(), |e| e.to_string())
            );
            if let Some(o) = &a.origin {
                let _ = write!(tip, ", {o}");
            }
            let _ = writeln!(
                s,
                r##"<rect class="alloc" id="alloc-{idx}" x="{x}" y="{y0}" width="{w}" height="{h}" fill="{}" stroke="#ffffff" stroke-width="0.5"><title>{}</title></rect>"##,
                cta_colour(a.cta),
                Esc(&tip)
            );
            if leaked {
                let _ = writeln!(
                    s,
                    r##"<rect class="leak" x="{x}" y="{y0}" width="{w}" height="{h}" fill="url(#leak-hatch)" stroke="#d62728" stroke-width="2"/>"##
                );
            }
            if w >= 40.0 && h >= 14.0 {
                let label = if leaked {
                    format!("CTA {} leaked", a.cta)
                } else {
                    format!("CTA {}", a.cta)
                };
                let _ = writeln!(
                    s,
                    r##"<text x="{}" y="{}" text-anchor="middle" fill="{}" font-weight="bold">{}</text>"##,
                    x + w / 2.0,
                    y0 + h.min(40.0) / 2.0 + 4.0,
                    cta_text_colour(a.cta),
                    Esc(&label)
                );
            }
        }
        for wt in &p.waits {
            let (col, cols) = match wt.granted_at {
                Some(c) => (c, wt.cols.min(TMEM_COLUMNS.saturating_sub(c))),
                None => (0, TMEM_COLUMNS),
            };
            let x = x_of(col);
            let w = cols as f64 * COL_PX;
            let y0 = y_of(wt.begin);
            let h = (y_of(wt.end.unwrap_or(end)) - y0).max(1.5);
            let label = match (wt.end, wt.granted_at) {
                (None, _) => format!("CTA {} waits for {} cols (never granted)", wt.cta, wt.cols),
                _ => format!("CTA {} waits for {} cols", wt.cta, wt.cols),
            };
            let _ = writeln!(
                s,
                r##"<rect class="wait" x="{x}" y="{y0}" width="{w}" height="{h}" fill="{}" fill-opacity="0.12" stroke="{}" stroke-width="1.5" stroke-dasharray="5 3"><title>{}, steps {}..{}</title></rect>"##,
                cta_colour(wt.cta),
                cta_colour(wt.cta),
                Esc(&label),
                wt.begin,
                wt.end.map_or("end".to_string(), |e| e.to_string())
            );
            // Label in the box's bottom-right corner (allocation labels sit at the top-centre
            // of their rectangles, so the two rarely collide), or just below a flat box.
            let ty = if h >= 14.0 {
                y0 + h - 4.0
            } else {
                y0 + h + 10.0
            };
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{ty}" text-anchor="end" fill="#222222" font-size="10" font-style="italic">{}</text>"##,
                x + w - 3.0,
                Esc(&label)
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}

/// Allocations and blocked requests grouped by SM, SMs in ascending order.
fn panels(rec: &Recorder) -> Vec<Panel<'_>> {
    let mut sms: BTreeSet<u32> = rec.allocs.iter().map(|a| a.sm).collect();
    for sp in &rec.spans {
        if let Blocked::TmemAlloc { .. } = sp.what {
            sms.insert(sp.warp.sm);
        }
    }
    sms.into_iter()
        .map(|sm| {
            let allocs: Vec<_> = rec
                .allocs
                .iter()
                .enumerate()
                .filter(|(_, a)| a.sm == sm)
                .collect();
            let waits = rec
                .spans
                .iter()
                .filter(|sp| sp.warp.sm == sm)
                .filter_map(|sp| match sp.what {
                    Blocked::TmemAlloc { cols } => {
                        // The grant ends the wait: the first allocation of this CTA and size
                        // at or after the wait's end.
                        let granted_at = sp.end.and_then(|e| {
                            allocs
                                .iter()
                                .find(|(_, a)| {
                                    a.cta == sp.warp.cta && a.cols == cols && a.begin >= e
                                })
                                .map(|(_, a)| a.col)
                        });
                        Some(Wait {
                            cta: sp.warp.cta,
                            cols,
                            begin: sp.begin,
                            end: sp.end,
                            granted_at,
                        })
                    }
                    _ => None,
                })
                .collect();
            Panel { sm, allocs, waits }
        })
        .collect()
}

/// A tick spacing of 1, 2 or 5 times a power of ten giving at most about 6 ticks.
fn nice_step(end: Step) -> Step {
    let raw = end.div_ceil(5).max(1);
    let mut mag = 1u64;
    while mag.saturating_mul(10) <= raw {
        mag *= 10;
    }
    for m in [1, 2, 5, 10] {
        if mag.saturating_mul(m) >= raw {
            return mag.saturating_mul(m);
        }
    }
    mag.saturating_mul(10)
}

/// XML text/attribute escaping.
struct Esc<'a>(&'a str);

impl std::fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for ch in self.0.chars() {
            match ch {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&apos;")?,
                // XML 1.0 forbids most control characters even escaped; drop them.
                c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(1), 1);
        assert_eq!(nice_step(10), 2);
        assert_eq!(nice_step(1000), 200);
        assert_eq!(nice_step(1234), 500);
        assert_eq!(nice_step(u64::MAX), 5_000_000_000_000_000_000);
    }

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            Esc("a<b>&\"c'\u{1}").to_string(),
            "a&lt;b&gt;&amp;&quot;c&apos;"
        );
    }
}
