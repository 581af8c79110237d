//! The report as one self-contained HTML page: no script, no font or image fetched from
//! anywhere (a Content-Security-Policy says so to the browser too), the charts inline SVG.
//! Light and dark follow the reader's setting; printed, it is black on white with no chart
//! or problem cut across pages. Every string is escaped here, once.

use std::fmt::Write as _;

use super::doc::{Block, Chart, Inline, symbol};
use innodebt_engine::figures::Severity;

/// `&`, `<`, `>`, `"` and `'` as entities, control characters dropped: safe as text and as an
/// attribute value.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The page's stylesheet: light by default, dark on request, plain on paper.
const CSS: &str = r#"
:root{color-scheme:light dark;--bg:#ffffff;--fg:#1f2328;--dim:#59636e;--rule:#d1d9e0;--card:#f6f8fa;--ok:#1a7f37;--unknown:#6e7781;--warning:#9a6700;--warning-bg:#fff8c5;--critical:#cf222e;--critical-bg:#ffebe9;--code:#eff2f5}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#9198a1;--rule:#3d444d;--card:#151b23;--ok:#3fb950;--unknown:#9198a1;--warning:#d29922;--warning-bg:#2e2410;--critical:#f85149;--critical-bg:#3a1619;--code:#262c36}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Liberation Sans",Arial,sans-serif}
main{max-width:1060px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:1.6em;margin:0 0 4px}
h2{font-size:1.25em;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--rule)}
h3{font-size:1.05em;margin:0 0 6px}
h4{font-size:1em;margin:18px 0 6px}
p{margin:6px 0}
.sub,.dim,figcaption,footer{color:var(--dim)}
code{font:0.92em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;background:var(--code);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.sev{font-weight:600;white-space:nowrap}
.sev-ok{color:var(--ok)}.sev-unknown{color:var(--unknown)}.sev-warning{color:var(--warning)}.sev-critical{color:var(--critical)}
.problem{border:1px solid var(--rule);border-left:5px solid var(--unknown);border-radius:6px;padding:10px 14px;margin:12px 0;background:var(--card)}
.problem.sev-warning{border-left-color:var(--warning)}.problem.sev-critical{border-left-color:var(--critical)}
.problem.sev-warning h3{color:var(--warning)}.problem.sev-critical h3{color:var(--critical)}
.problem,.problem p,.problem dd{color:var(--fg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
dl.facts dt{color:var(--dim)}dl.facts dd{margin:0}
table{border-collapse:collapse;margin:8px 0;width:100%}
th,td{text-align:left;vertical-align:top;padding:4px 10px 4px 0;border-bottom:1px solid var(--rule)}
th{font-weight:600;color:var(--dim)}
ul{margin:6px 0;padding-left:22px}
figure{margin:14px 0 22px}
figure svg{display:block;width:100%;height:auto;max-width:1000px}
footer{margin-top:40px;padding-top:8px;border-top:1px solid var(--rule);font-size:0.9em}
@media print{
:root{--bg:#fff;--fg:#000;--dim:#444;--rule:#bbb;--card:#fff;--code:#f2f2f2}
body{font-size:11pt}
main{max-width:none;padding:0}
section,figure,.problem,table{break-inside:avoid}
h2{break-after:avoid}
}
"#;

/// The page. `title` names it in the browser's tab; `blocks` are its sections in order.
pub fn page(title: &str, header: &[Block], blocks: &[Block], footer: &[Inline]) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str("<meta name=\"color-scheme\" content=\"light dark\">\n");
    // Nothing runs and nothing is fetched, whatever the page holds.
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n",
    );
    let _ = writeln!(out, "<title>{}</title>", esc(title));
    let _ = writeln!(out, "<style>{CSS}{}</style>", super::chart::CSS);
    out.push_str("</head>\n<body>\n<main>\n<header>\n");
    for b in header {
        block(&mut out, b, true);
    }
    out.push_str("</header>\n");
    let mut open = false;
    for b in blocks {
        if let Block::Heading { id, .. } = b {
            if open {
                out.push_str("</section>\n");
            }
            let _ = writeln!(out, "<section id=\"{}\">", esc(id));
            open = true;
        }
        block(&mut out, b, false);
    }
    if open {
        out.push_str("</section>\n");
    }
    out.push_str("<footer><p>");
    inlines(&mut out, footer);
    out.push_str("</p></footer>\n</main>\n</body>\n</html>\n");
    out
}

fn block(out: &mut String, b: &Block, top: bool) {
    match b {
        Block::Heading { text, .. } if top => {
            let _ = writeln!(out, "<h1>{}</h1>", esc(text));
        }
        Block::Heading { text, .. } => {
            let _ = writeln!(out, "<h2>{}</h2>", esc(text));
        }
        Block::Subheading(text) => {
            let _ = writeln!(out, "<h4>{}</h4>", esc(text));
        }
        Block::Para(parts) => {
            out.push_str(if top { "<p class=\"sub\">" } else { "<p>" });
            inlines(out, parts);
            out.push_str("</p>\n");
        }
        Block::Problem {
            severity,
            title,
            body,
        } => {
            let _ = write!(
                out,
                "<article class=\"problem {}\">\n<h3>",
                class(*severity)
            );
            inlines(out, title);
            out.push_str("</h3>\n");
            for b in body {
                block(out, b, false);
            }
            out.push_str("</article>\n");
        }
        Block::List(items) => {
            out.push_str("<ul>\n");
            for item in items {
                out.push_str("<li>");
                inlines(out, item);
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        Block::Facts(pairs) => {
            out.push_str("<dl class=\"facts\">\n");
            for (name, value) in pairs {
                let _ = write!(out, "<dt>{}</dt><dd>", esc(name));
                inlines(out, value);
                out.push_str("</dd>\n");
            }
            out.push_str("</dl>\n");
        }
        Block::Table { head, rows } => {
            out.push_str("<table>\n<thead><tr>");
            for h in head {
                let _ = write!(out, "<th>{}</th>", esc(h));
            }
            out.push_str("</tr></thead>\n<tbody>\n");
            for row in rows {
                out.push_str("<tr>");
                for cell in row {
                    out.push_str("<td>");
                    inlines(out, cell);
                    out.push_str("</td>");
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n</table>\n");
        }
        Block::Chart(c) => chart(out, c),
    }
}

fn chart(out: &mut String, c: &Chart) {
    let _ = writeln!(out, "<figure id=\"chart-{}\">", esc(c.name));
    out.push_str(&c.svg);
    let _ = writeln!(
        out,
        "\n<figcaption>{}</figcaption>\n</figure>",
        esc(&c.caption)
    );
}

fn class(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "sev-ok",
        Severity::Unknown => "sev-unknown",
        Severity::Warning => "sev-warning",
        Severity::Critical => "sev-critical",
    }
}

fn inlines(out: &mut String, parts: &[Inline]) {
    for p in parts {
        match p {
            Inline::Text(s) => out.push_str(&esc(s)),
            Inline::Strong(s) => {
                let _ = write!(out, "<strong>{}</strong>", esc(s));
            }
            Inline::Code(s) => {
                let _ = write!(out, "<code>{}</code>", esc(s));
            }
            Inline::Dim(s) => {
                let _ = write!(out, "<span class=\"dim\">{}</span>", esc(s));
            }
            Inline::Severity(s) => {
                let _ = write!(
                    out,
                    "<span class=\"sev {}\">{} {}</span>",
                    class(*s),
                    symbol(*s),
                    s.as_str()
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_is_text() {
        assert_eq!(
            esc("</svg><script>alert('x')</script> & \"q\""),
            "&lt;/svg&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
        assert_eq!(esc("a\u{1b}[31mb\nc"), "a[31mb c");
    }
}
