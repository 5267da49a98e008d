//! The TMEM map parsed back with an independent XML parser (roxmltree): one rectangle per
//! allocation at the right columns, leaks and waits marked, plus a snapshot of a small map.

mod synthetic;

use roxmltree::{Document, Node};
use tmemu_trace::{
    cta_colour, render_tmem_map, write_tmem_map, Recorder, TmemMapOptions, COL_PX, PLOT_LEFT,
};

const SVG_NS: &str = "http://www.w3.org/2000/svg";

fn num(n: Node<'_, '_>, attr: &str) -> f64 {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("{attr} missing"))
        .parse()
        .unwrap()
}

fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.has_tag_name((SVG_NS, "rect")) && n.attribute("class") == Some(class))
        .collect()
}

/// The SM panel (`<g class="sm" id="sm-N">`) an element sits in.
fn panel_sm(n: Node<'_, '_>) -> u32 {
    let g = n
        .ancestors()
        .find(|a| a.attribute("class") == Some("sm"))
        .expect("inside an SM panel");
    g.attribute("id").unwrap()["sm-".len()..].parse().unwrap()
}

/// The plot background of the panel an element sits in.
fn plot_area<'a, 'i>(n: Node<'a, 'i>) -> Node<'a, 'i> {
    let g = n
        .ancestors()
        .find(|a| a.attribute("class") == Some("sm"))
        .unwrap();
    g.children()
        .find(|c| c.has_tag_name("rect") && c.attribute("fill") == Some("#f4f4f4"))
        .unwrap()
}

#[test]
fn gemm_map_has_one_rect_per_allocation_at_its_columns() {
    let (rec, plan) = synthetic::gemm_run();
    let mut out = Vec::new();
    write_tmem_map(&rec, &TmemMapOptions::default(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let doc = Document::parse(&text).expect("SVG parses as XML");
    let root = doc.root_element();
    assert!(root.has_tag_name((SVG_NS, "svg")));
    assert_eq!(root.attribute("version"), Some("1.1"));

    let rects = with_class(&doc, "alloc");
    assert_eq!(rects.len(), rec.allocs().len());
    assert_eq!(rects.len(), plan.allocs.len());
    for (i, a) in rec.allocs().iter().enumerate() {
        let r = rects
            .iter()
            .find(|r| r.attribute("id") == Some(&*format!("alloc-{i}")))
            .unwrap();
        assert_eq!(panel_sm(*r), a.sm);
        assert_eq!(num(*r, "x"), PLOT_LEFT + a.col as f64 * COL_PX, "alloc {i}");
        assert_eq!(num(*r, "width"), a.cols as f64 * COL_PX, "alloc {i}");
        assert_eq!(r.attribute("fill"), Some(cta_colour(a.cta)));
        let tip = r.first_element_child().unwrap();
        assert!(tip.has_tag_name("title"));
        assert!(tip
            .text()
            .unwrap()
            .starts_with(&format!("CTA {}: columns", a.cta)));
    }
    // The plan's allocations: (sm, cta, col, cols, leaked).
    let expect: Vec<_> = plan
        .allocs
        .iter()
        .map(|&(sm, cta, col, cols, _)| (sm, cta, col, cols))
        .collect();
    let got: Vec<_> = rec
        .allocs()
        .iter()
        .map(|a| (a.sm, a.cta, a.col, a.cols))
        .collect();
    assert_eq!(got, expect);

    // Time runs down: a later allocation on the same SM starts lower.
    let by_id = |i: usize| {
        *rects
            .iter()
            .find(|r| r.attribute("id") == Some(&*format!("alloc-{i}")))
            .unwrap()
    };
    let y = |i: usize| num(by_id(i), "y");
    assert!(
        y(2) > y(0),
        "CTA 2 was granted after CTA 0 freed its columns"
    );

    // Exactly one leak (CTA 3 on SM 1), drawn over its allocation down to the end of the run.
    let leaks = with_class(&doc, "leak");
    assert_eq!(leaks.len(), 1);
    let leak = leaks[0];
    assert_eq!(panel_sm(leak), 1);
    let leaked_alloc = rects
        .iter()
        .find(|r| r.attribute("id") == Some("alloc-3"))
        .unwrap();
    assert_eq!(num(leak, "x"), num(*leaked_alloc, "x"));
    let area = plot_area(leak);
    let bottom = num(area, "y") + num(area, "height");
    assert!((num(leak, "y") + num(leak, "height") - bottom).abs() < 1e-9);
    assert_eq!(leak.attribute("stroke"), Some("#d62728"));

    // The blocked request of CTA 2: dashed, on SM 0, on the columns it got, over its wait.
    let waits = with_class(&doc, "wait");
    assert_eq!(waits.len(), 1);
    let w = waits[0];
    assert_eq!(panel_sm(w), 0);
    assert!(w.attribute("stroke-dasharray").is_some());
    assert_eq!(num(w, "x"), PLOT_LEFT);
    assert_eq!(num(w, "width"), 512.0 * COL_PX);
    assert!(num(w, "y") < y(2) && num(w, "y") + num(w, "height") <= y(2) + 1e-9);
    assert!(doc
        .descendants()
        .any(|n| n.has_tag_name("text") && n.text() == Some("CTA 2 waits for 512 cols")));

    // Legend lists each CTA once.
    for c in 0..4 {
        let label = format!("CTA {c}");
        let n = doc
            .descendants()
            .filter(|n| n.has_tag_name("text") && n.text() == Some(&*label))
            .count();
        assert!(n >= 1, "legend entry {label}");
    }
    assert_eq!(with_class(&doc, "legend").len(), 4);
}

#[test]
fn only_sms_with_tmem_activity_get_a_panel() {
    let mut rec = Recorder::new();
    rec.tmem_alloc(0, 7, 1, 32, 32, None);
    rec.tmem_alloc(0, 3, 2, 0, 64, None);
    rec.finish(10);
    let svg = render_tmem_map(&rec, &TmemMapOptions::default());
    let doc = Document::parse(&svg).unwrap();
    let sms: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("sm"))
        .map(|n| n.attribute("id").unwrap().to_string())
        .collect();
    assert_eq!(sms, ["sm-3", "sm-7"]);
}

#[test]
fn empty_and_hostile_inputs_still_give_valid_svg() {
    let svg = render_tmem_map(&Recorder::new(), &TmemMapOptions::default());
    Document::parse(&svg).unwrap();

    let mut rec = Recorder::with_limit(3);
    // Out-of-range columns, zero-length lifetimes, huge steps, markup in labels.
    rec.tmem_alloc(u64::MAX - 1, 0, 9, 500, 64, Some("<script>&\"'\u{1}"));
    rec.tmem_alloc(5, 0, 9, 0, 0, None);
    rec.tmem_alloc(5, 0, 9, 0, 32, None);
    rec.tmem_alloc(6, 0, 9, 64, 32, None); // dropped by the cap
    rec.finish(u64::MAX);
    let opts = TmemMapOptions {
        title: Some("a <b> & \"c\"".into()),
    };
    let svg = render_tmem_map(&rec, &opts);
    let doc = Document::parse(&svg).unwrap();
    assert_eq!(with_class(&doc, "alloc").len(), 3);
    let title = doc.descendants().find(|n| n.has_tag_name("text")).unwrap();
    assert_eq!(title.text(), Some("a <b> & \"c\""));
    assert!(svg.contains("TRUNCATED"));
    // The allocation past column 512 is clipped to the TMEM width.
    let r = with_class(&doc, "alloc")[0];
    assert_eq!(num(r, "x") + num(r, "width"), PLOT_LEFT + 512.0 * COL_PX);
}

#[test]
fn small_map_snapshot() {
    let rec = synthetic::small_run();
    let svg = render_tmem_map(&rec, &TmemMapOptions::default());
    Document::parse(&svg).unwrap();
    insta::assert_snapshot!("small_map", svg);
}

/// Renders the GEMM example into docs/images when asked (`TMEMU_WRITE_DOCS_IMAGES=1`).
#[test]
fn docs_example_image() {
    let (rec, _) = synthetic::gemm_run();
    let opts = TmemMapOptions {
        title: Some("TMEM occupancy: synthetic warp-specialised GEMM (4 CTAs on 2 SMs)".into()),
    };
    let svg = render_tmem_map(&rec, &opts);
    Document::parse(&svg).unwrap();
    if std::env::var_os("TMEMU_WRITE_DOCS_IMAGES").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/images/tmem-map-example.svg"
        );
        std::fs::write(path, &svg).unwrap();
    }
}
