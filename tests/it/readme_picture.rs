//! The README's picture of the dashboard, `docs/screenshot.svg`, is the demo exactly as
//! innodebt draws it: the built-in demo (`innodebt --demo`) at +135 s — checkpoint age past
//! the async point, a read view blocking purge for 1m 45s, the purge-lag trap armed — drawn
//! by `innodebt::render::render` at 100×30 in the default theme on ratatui's `TestBackend`, each
//! cell written to SVG text with its colours.
//!
//! The test draws that moment again and compares it with the committed file byte for byte, so
//! the picture cannot fall behind the screen; `docs/screenshot.sh` writes it anew.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use innodebt::app::transport::parse_goto;
use innodebt::app::{App, Recording, Replay};
use innodebt::replay::CaptureSet;
use innodebt::theme::Theme;
use innodebt_engine::verdicts::RecoveryModel;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};

/// The moment and the size of the picture.
const MOMENT: &str = "+135s";
const WIDTH: u16 = 100;
const HEIGHT: u16 = 30;

/// One cell in pixels, the font size and the margin around the screen.
const CELL_W: u32 = 9;
const CELL_H: u32 = 18;
const FONT_PX: u32 = 15;
const MARGIN: u32 = 10;

/// A dark terminal's default foreground and background (what `Color::Reset` shows).
const DEFAULT_FG: (u8, u8, u8) = (0xd0, 0xd0, 0xd0);
const DEFAULT_BG: (u8, u8, u8) = (0x1c, 0x1c, 0x1c);

/// xterm's 16 named colours, in ANSI order.
const ANSI: [(u8, u8, u8); 16] = [
    (0x00, 0x00, 0x00),
    (0xcd, 0x00, 0x00),
    (0x00, 0xcd, 0x00),
    (0xcd, 0xcd, 0x00),
    (0x00, 0x00, 0xee),
    (0xcd, 0x00, 0xcd),
    (0x00, 0xcd, 0xcd),
    (0xe5, 0xe5, 0xe5),
    (0x7f, 0x7f, 0x7f),
    (0xff, 0x00, 0x00),
    (0x00, 0xff, 0x00),
    (0xff, 0xff, 0x00),
    (0x5c, 0x5c, 0xff),
    (0xff, 0x00, 0xff),
    (0x00, 0xff, 0xff),
    (0xff, 0xff, 0xff),
];

fn picture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshot.svg")
}

/// `innodebt --demo` (the same capture, name and recovery model), moved to [`MOMENT`].
fn demo_at(moment: &str) -> App {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("demo/mariadb-10.11-blocker.idbt"),
    )
    .expect("the demo capture reads");
    let set = CaptureSet::from_bytes(
        &bytes,
        "demo (MariaDB 10.11, purge blocked)",
        RecoveryModel::published_default(),
    )
    .expect("the demo opens");
    let replay = Replay::new(Recording::new(set), 0, u64::MAX);
    let mut app = innodebt::dashboard::replay_now(replay, Duration::from_secs(1));
    let at =
        parse_goto(moment, app.replay().expect("replaying")).expect("the moment reads as a time");
    let cmds = app.seek_time(at);
    innodebt::dashboard::settle(&mut app, cmds);
    app
}

fn draw(app: &App, theme: &Theme, w: u16, h: u16) -> Buffer {
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    term.draw(|f| innodebt::render::render(f, app, theme))
        .expect("draw");
    term.backend().buffer().clone()
}

// ---------------------------------------------------------------------------
// The buffer as SVG
// ---------------------------------------------------------------------------

fn rgb(c: Color, default: (u8, u8, u8)) -> (u8, u8, u8) {
    let named = |i: usize| ANSI[i];
    match c {
        Color::Reset => default,
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(i) => indexed(i),
    }
}

/// xterm's 256-colour palette: 16 named, a 6×6×6 cube, 24 greys.
fn indexed(i: u8) -> (u8, u8, u8) {
    match i {
        0..16 => ANSI[usize::from(i)],
        16..232 => {
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            let v = i - 16;
            (level(v / 36), level(v / 6 % 6), level(v % 6))
        }
        _ => {
            let g = 8 + 10 * (i - 232);
            (g, g, g)
        }
    }
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What a cell shows: its colours after REVERSED, and the modifiers SVG can draw.
#[derive(Clone, PartialEq)]
struct Look {
    fg: String,
    bg: String,
    bold: bool,
    dim: bool,
    italic: bool,
    underlined: bool,
    crossed: bool,
}

fn look(cell: &Cell) -> Look {
    let m = cell.modifier;
    let (mut fg, mut bg) = (rgb(cell.fg, DEFAULT_FG), rgb(cell.bg, DEFAULT_BG));
    if m.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
    }
    if m.contains(Modifier::HIDDEN) {
        fg = bg;
    }
    Look {
        fg: hex(fg),
        bg: hex(bg),
        bold: m.contains(Modifier::BOLD),
        dim: m.contains(Modifier::DIM),
        italic: m.contains(Modifier::ITALIC),
        underlined: m.contains(Modifier::UNDERLINED),
        crossed: m.contains(Modifier::CROSSED_OUT),
    }
}

/// The cells a terminal shows in one row: (column, width in cells, symbol, look); the
/// trailing half of a wide character is skipped.
fn visible_cells(row: &[Cell]) -> Vec<(usize, usize, &str, Look)> {
    let mut out = Vec::new();
    let mut col = 0usize;
    while col < row.len() {
        let cell = &row[col];
        let w = ratatui::text::Span::raw(cell.symbol()).width().max(1);
        out.push((col, w, cell.symbol(), look(cell)));
        col += w;
    }
    out
}

/// The buffer as an SVG image: one rectangle per run of a background other than the
/// terminal's, one `<text>` per run of cells alike, stretched to the cell grid
/// (`textLength`) so that any monospace font lines up.
fn svg(buf: &Buffer) -> String {
    let (w, h) = (u32::from(buf.area.width), u32::from(buf.area.height));
    let (px_w, px_h) = (w * CELL_W + 2 * MARGIN, h * CELL_H + 2 * MARGIN);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{px_w}" height="{px_h}" viewBox="0 0 {px_w} {px_h}" font-family="'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace" font-size="{FONT_PX}">"#
    );
    // No double hyphen may appear in an XML comment.
    out.push_str("<!-- the built-in demo at +135s, 100x30, drawn by innodebt::render::render: written by docs/screenshot.sh, do not edit -->\n");
    let _ = writeln!(
        out,
        r#"<rect width="{px_w}" height="{px_h}" rx="6" fill="{}"/>"#,
        hex(DEFAULT_BG)
    );
    let rows: Vec<Vec<(usize, usize, &str, Look)>> = buf
        .content
        .chunks(usize::from(buf.area.width).max(1))
        .map(visible_cells)
        .collect();
    let x_of = |col: usize| MARGIN + CELL_W * u32::try_from(col).unwrap_or(0);
    let cells = |n: usize| CELL_W * u32::try_from(n).unwrap_or(0);
    out.push_str("<g shape-rendering=\"crispEdges\">\n");
    for (r, row) in rows.iter().enumerate() {
        let y = MARGIN + CELL_H * u32::try_from(r).unwrap_or(0);
        for run in row.chunk_by(|a, b| a.3.bg == b.3.bg) {
            let bg = &run[0].3.bg;
            if *bg == hex(DEFAULT_BG) {
                continue;
            }
            let span: usize = run.iter().map(|c| c.1).sum();
            let _ = writeln!(
                out,
                r#"<rect x="{}" y="{y}" width="{}" height="{CELL_H}" fill="{bg}"/>"#,
                x_of(run[0].0),
                cells(span)
            );
        }
    }
    out.push_str("</g>\n<g xml:space=\"preserve\">\n");
    for (r, row) in rows.iter().enumerate() {
        // The baseline sits a little above the cell's bottom, as in a terminal.
        let y = MARGIN + CELL_H * u32::try_from(r).unwrap_or(0) + CELL_H - 5;
        for run in row.chunk_by(|a, b| a.3 == b.3) {
            let text: String = run.iter().map(|c| c.2).collect();
            let look = &run[0].3;
            if text.trim().is_empty() && !look.underlined && !look.crossed {
                continue;
            }
            let span: usize = run.iter().map(|c| c.1).sum();
            let mut attrs = format!(r#" fill="{}""#, look.fg);
            if look.bold {
                attrs.push_str(r#" font-weight="bold""#);
            }
            if look.dim {
                attrs.push_str(r#" fill-opacity="0.6""#);
            }
            if look.italic {
                attrs.push_str(r#" font-style="italic""#);
            }
            match (look.underlined, look.crossed) {
                (true, true) => attrs.push_str(r#" text-decoration="underline line-through""#),
                (true, false) => attrs.push_str(r#" text-decoration="underline""#),
                (false, true) => attrs.push_str(r#" text-decoration="line-through""#),
                (false, false) => {}
            }
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{y}" textLength="{}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                x_of(run[0].0),
                cells(span),
                escape(&text)
            );
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

/// The committed picture is the current render of the same moment. `docs/screenshot.sh`
/// (which sets `INNODEBT_WRITE_PICTURE`) writes it instead; CI only ever compares.
#[test]
fn the_readme_picture_is_the_current_render() {
    let buf = draw(&demo_at(MOMENT), &Theme::default(), WIDTH, HEIGHT);
    let text: String = buf.content.iter().map(Cell::symbol).collect();
    // The picture shows what the README says it shows.
    for words in [
        "REPLAY",
        "blocked by read view",
        "report@localhost",
        "past async",
        "purge lag trap",
    ] {
        assert!(text.contains(words), "the demo at {MOMENT} lacks {words:?}");
    }
    let picture = svg(&buf);
    let path = picture_path();
    if std::env::var_os("INNODEBT_WRITE_PICTURE").is_some() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI compares the picture, never writes it"
        );
        std::fs::write(&path, &picture).expect("docs/screenshot.svg is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: run docs/screenshot.sh", path.display()));
    assert!(
        committed == picture,
        "docs/screenshot.svg is not the current render of `innodebt --demo` at {MOMENT}: the \
         screen changed. Run docs/screenshot.sh, look at the picture, and commit it."
    );
}

/// The SVG writer keeps the grid, the colours and the modifiers, and escapes markup.
#[test]
fn svg_keeps_cells_colours_and_escapes() {
    let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 6, 1));
    buf.set_string(0, 0, "<a&b>", ratatui::style::Style::default());
    buf[(5, 0)]
        .set_symbol("x")
        .set_fg(Color::Indexed(208))
        .set_bg(Color::Rgb(1, 2, 3))
        .set_style(
            ratatui::style::Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED),
        );
    let s = svg(&buf);
    assert!(s.contains(">&lt;a&amp;b&gt;</text>"), "{s}");
    assert!(s.contains(r#"textLength="45""#), "five cells of 9 px: {s}");
    // Reversed: the text takes the background colour, the cell the foreground (208 = #ff8700).
    assert!(
        s.contains(r##"<rect x="55" y="10" width="9" height="18" fill="#ff8700"/>"##),
        "{s}"
    );
    assert!(
        s.contains(r##"fill="#010203" font-weight="bold">x</text>"##),
        "{s}"
    );
    assert_eq!(indexed(16), (0, 0, 0));
    assert_eq!(indexed(231), (255, 255, 255));
    assert_eq!(indexed(244), (128, 128, 128));
}
