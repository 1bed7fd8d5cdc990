"""One self-contained ``index.html``: inline CSS, inline SVG figures, no script, no font,
no external reference of any kind (the only links are to the page's own sections and
to the CSV files beside it).

Structure for assistive technology: one ``<h1>``, an ``<h2>`` per section and an
``<h3>`` per deposit, a contents list in a labelled ``<nav>``, every table with a
``<caption>`` and ``<th scope="col">`` headers, every figure a ``<figure>`` whose
``<svg role="img">`` carries its title and alt text, and a ``<figcaption>`` pointing at
the table with the same numbers.
"""

from __future__ import annotations

from html import escape
from typing import Any

from .tables import Figure, Link, Report, Table, format_cell

__all__ = ["render_html"]

CSS = """
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 4rem; color: #111; background: #fff;
       line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.3rem; margin-top: 2.5rem; border-bottom: 2px solid #111; padding-bottom: 0.2rem; }
h3 { font-size: 1.1rem; margin-top: 2rem; overflow-wrap: anywhere; }
a { color: #0b3d91; }
a:focus, a:hover { outline: 2px solid #111; outline-offset: 1px; }
nav ol { columns: 2; }
.summary { color: #333; overflow-wrap: anywhere; }
.table-wrap { margin: 1rem 0; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85rem; max-width: 100%; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; caption-side: top; }
th, td { border: 1px solid #999; padding: 0.2rem 0.45rem; vertical-align: top; }
th { background: #eee; text-align: left; overflow-wrap: break-word; }
td { overflow-wrap: break-word; }
td.brk { overflow-wrap: anywhere; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; overflow-wrap: normal; }
table.wide { font-size: 0.78rem; }
table.wide th, table.wide td { padding: 0.15rem 0.3rem; }
.csv { font-size: 0.8rem; }
figure { margin: 1.2rem 0; }
figure svg { width: 100%; max-width: 720px; height: auto; display: block; }
figcaption { font-size: 0.85rem; color: #333; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.1rem 1rem; font-size: 0.9rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.deposit { border-top: 1px solid #999; }
.back { font-size: 0.8rem; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  nav, .back { display: none; }
  body { max-width: none; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; }
  table { font-size: 7.5pt; }
  table.wide { font-size: 6.8pt; }
  th, td, table.wide th, table.wide td { padding: 0.1rem 0.15rem; }
  tr, figure { break-inside: avoid; }
  figure svg { max-width: 100%; }
}
"""

NUMERIC = {"int", "score", "signed", "pct", "corr", "rank", "num"}
# From this many columns a table is set smaller and tighter, so that it fits a 1,280-pixel
# page and an A4 print without a horizontal scroll (text cells wrap; numbers never do).
WIDE_COLUMNS = 10


# A cell with a token this long (a hash, a SWHID, a URL, a path) may break anywhere, so
# that it never widens its table past the page; shorter words (sub-metric ids) stay whole.
LONG_TOKEN = 28


def _text_td(text: str) -> str:
    long = any(len(token) > LONG_TOKEN for token in text.split())
    return '<td class="brk">' if long else "<td>"


def _wrappable(text: str) -> str:
    # Identifiers (sub-metric ids, penalty ids) may wrap after an underscore, and only
    # there: a break opportunity the text itself (and the CSV) does not carry.
    return escape(text).replace("_", "_<wbr>")


def _cell(kind: str, value: Any) -> str:
    text = format_cell(kind, value)
    if isinstance(value, Link):
        return f'{_text_td(text)}<a href="#{escape(value.anchor)}">{_wrappable(text)}</a></td>'
    if kind in NUMERIC:
        return f'<td class="n">{escape(text) if text else "&#8212;"}</td>'
    return f"{_text_td(text)}{_wrappable(text)}</td>"


def render_table(table: Table, *, csv_link: bool = True, element_id: str | None = None) -> str:
    columns = [(i, col) for i, col in enumerate(table.columns) if col.html]
    rows = table.rows if table.shown is None else table.rows[: table.shown]
    wide = ' class="wide"' if len(columns) >= WIDE_COLUMNS else ""
    out = [f'<div class="table-wrap"><table id="{escape(element_id or "table-" + table.id)}"{wide}>',
           f"<caption>{escape(table.html_caption())}</caption>",
           "<thead><tr>" + "".join(f'<th scope="col">{_wrappable(col.label)}</th>' for _, col in columns) + "</tr></thead>",
           "<tbody>"]  # fmt: skip
    for row in rows:
        out.append("<tr>" + "".join(_cell(col.kind, row[i]) for i, col in columns) + "</tr>")
    out.append("</tbody></table></div>")
    if csv_link:
        out.append(f'<p class="csv">Data: <a href="{escape(table.csv_name)}">{escape(table.csv_name)}</a></p>')
    return "\n".join(out)


def render_figure(figure: Figure) -> str:
    return (
        f'<figure id="{escape(figure.id)}">\n{figure.svg}'
        f"<figcaption>{escape(figure.title)}. The numbers are in the table "
        f'<a href="#table-{escape(figure.table)}">{escape(figure.table)}</a>.</figcaption>\n</figure>'
    )


def _block(block: Any) -> str:
    if isinstance(block, Table):
        return render_table(block)
    if isinstance(block, Figure):
        return render_figure(block)
    return f"<p>{escape(str(block))}</p>"


def render_html(report: Report) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        '<header id="top">',
        f"<h1>{escape(report.title)}</h1>",
        *(f'<p class="summary">{escape(line)}</p>' for line in report.summary),
        "</header>",
        '<nav aria-label="Contents"><h2 id="contents">Contents</h2><ol>',
        *(f'<li><a href="#{escape(s.id)}">{escape(s.title)}</a></li>' for s in report.sections),
    ]
    if report.deposits:
        parts.append('<li><a href="#deposits">Deposits</a></li>')
    parts += ["</ol></nav>", "<main>"]
    for section in report.sections:
        parts.append(f'<section id="{escape(section.id)}" aria-labelledby="{escape(section.id)}-h">')
        parts.append(f'<h2 id="{escape(section.id)}-h">{escape(section.title)}</h2>')
        if section.intro:
            parts.append(f"<p>{escape(section.intro)}</p>")
        parts += [_block(block) for block in section.blocks]
        parts.append("</section>")
    if report.deposits:
        parts.append('<section id="deposits" aria-labelledby="deposits-h">')
        parts.append('<h2 id="deposits-h">Deposits</h2>')
        parts.append("<p>Each deposit linked from the tables above: its category profile, ranked fixes, "
                     "sub-metrics with evidence, history, failures and execution outcome. The rows of all "
                     "deposits are in the CSV files tables/deposit_*.csv.</p>")  # fmt: skip
        for deposit in report.deposits:
            item = deposit.item
            parts.append(f'<article class="deposit" id="{escape(item.anchor)}" aria-labelledby="{escape(item.anchor)}-h">')
            parts.append(f'<h3 id="{escape(item.anchor)}-h">{escape(item.label)}</h3>')
            score = f"RRS {format_cell('score', deposit.rrs)}"
            if deposit.compare_rrs is not None:
                score += f"; under the second rubric {format_cell('score', deposit.compare_rrs)}"
            if deposit.rcs is not None:
                score += (f"; ROS {format_cell('score', deposit.ros) or '—'}, RCS {format_cell('score', deposit.rcs)}"
                          f" (α {format_cell('corr', deposit.alpha) or '—'})")
            parts.append(f"<p><strong>{escape(score)}</strong></p>")
            parts.append('<dl class="facts">' + "".join(
                f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in deposit.facts) + "</dl>")  # fmt: skip
            parts += [render_table(t, csv_link=False, element_id=f"{item.anchor}-{t.id}") for t in deposit.tables]
            parts.append('<p class="back"><a href="#top">Back to the top</a></p>')
            parts.append("</article>")
        parts.append("</section>")
    parts += ["</main>", "</body>", "</html>", ""]
    return "\n".join(parts)
