"""The report in a real browser: Debian's chromium, headless, driven by playwright
(``executable_path``: playwright never downloads a browser here). The page must load
from its file with no console error and no request other than the file itself, render
its figures, follow a deposit link within the page, and give a screenshot.

Layout: at a 1,280-pixel viewport the page never scrolls sideways and every table and
figure lies within its container; in print (media ``print`` at the A4 printable width
the page's ``@page`` rule leaves) the same holds, and the PDF chromium prints (A4) holds
the last column of every table (chromium drops what falls off the page, so a cut column
is missing from the PDF's text) with no text starting in the right margin. Every
section is screenshotted (``$REPROSCORE_REPORT_SHOTS`` or the test's tmp folder).

This test is never skipped: without chromium it fails and says how to install it
(``.ci/run`` does).
"""

from __future__ import annotations

import os
import re
import struct
import unicodedata
from pathlib import Path

import pytest
import synthetic_collection

from reproscore import api

CHROMIUM = os.environ.get("REPROSCORE_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("browser")
    db = base / "collection.db"
    synthetic_collection.build(db, zenodo=120, swh=30, local=5, nights=4, outcomes_every=4)
    return api.collection_report(db, base / "out", compare_rubric="bioinformatics-v1").index


def test_the_report_opens_in_headless_chromium(report, tmp_path):
    assert Path(CHROMIUM).is_file(), (
        f"{CHROMIUM} not found: the browser test needs Debian's chromium "
        "(apt-get install -y --no-install-recommends chromium; .ci/run installs it)"
    )
    from playwright.sync_api import sync_playwright

    url = report.resolve().as_uri()
    requests: list[str] = []
    failed: list[str] = []
    console: list[tuple[str, str]] = []
    errors: list[str] = []
    screenshot = tmp_path / "report.png"
    figure_shot = tmp_path / "figure.png"
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a fresh, empty user data dir
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 1000},
        )
        try:
            context.on("request", lambda r: requests.append(r.url))
            context.on("requestfailed", lambda r: failed.append(r.url))
            page = context.new_page()
            page.on("console", lambda m: console.append((m.type, m.text)))
            page.on("pageerror", lambda e: errors.append(str(e)))
            response = page.goto(url, wait_until="load")
            assert response is not None and response.ok
            page.wait_for_load_state("networkidle")
            assert page.title().startswith("Readiness audit")
            assert page.locator("h1").count() == 1
            figures = page.locator("figure svg[role=img]")
            assert figures.count() >= 10
            for k in range(figures.count()):
                box = figures.nth(k).bounding_box()
                assert box is not None and box["width"] > 300 and box["height"] > 100, k
            # A deposit link in a table leads to the deposit's section on the same page.
            link = page.locator("#table-need_work a").first
            target = link.get_attribute("href")
            link.click()
            assert page.evaluate("location.hash") == target
            assert page.locator(f"{target} h3").is_visible()
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(screenshot))
            page.locator("#fig-categories").screenshot(path=str(figure_shot))
        finally:
            context.close()
    assert requests == [url], requests
    assert not failed, failed
    assert not errors, errors
    assert not [m for m in console if m[0] in ("error", "warning")], console
    width, height = _png_size(screenshot)
    assert (width, height) == (1280, 1000)
    assert screenshot.stat().st_size > 20_000, "the screenshot is nearly empty"
    assert figure_shot.stat().st_size > 5_000


# The page's @page rule: A4 (210 mm) less 12 mm margins left and right, in CSS pixels.
A4_PRINTABLE = round((210 - 2 * 12) / 25.4 * 96)
A4_POINTS = (595.92, 842.88)
MARGIN_POINTS = 12 / 25.4 * 72

OVERFLOW = """() => {
  const out = [];
  for (const el of document.querySelectorAll('table, figure, figure svg, .table-wrap, dl.facts, h1, h3, p')) {
    const box = el.getBoundingClientRect();
    const parent = el.parentElement.getBoundingClientRect();
    if (box.width === 0) continue;
    if (box.left < parent.left - 0.5 || box.right > parent.right + 0.5 || el.scrollWidth > el.clientWidth + 1)
      out.push([el.tagName, el.id || el.parentElement.id, Math.round(box.right), Math.round(parent.right)]);
  }
  return out;
}"""


def _browser(p, tmp_path: Path, width: int):
    return p.chromium.launch_persistent_context(
        str(tmp_path / f"profile-{width}"), executable_path=CHROMIUM, headless=True, args=FLAGS,
        viewport={"width": width, "height": 1000},
    )


def test_the_report_fits_the_page_and_an_a4_print(report, tmp_path):
    import report_html
    from playwright.sync_api import sync_playwright
    from pypdf import PdfReader

    shots = Path(os.environ.get("REPROSCORE_REPORT_SHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    pdf = tmp_path / "report.pdf"
    url = report.resolve().as_uri()
    with sync_playwright() as p:
        context = _browser(p, tmp_path, 1280)
        try:
            page = context.new_page()
            page.goto(url, wait_until="load")
            assert page.evaluate("document.documentElement.scrollWidth") <= 1280
            assert page.evaluate(OVERFLOW) == []
            sections = page.locator("main > section")
            names = []
            for k in range(sections.count()):
                section = sections.nth(k)
                name = section.get_attribute("id")
                if name == "deposits":  # dozens of deposits: the first two tell how they read
                    for j in range(2):
                        section.locator("article").nth(j).screenshot(path=str(shots / f"{k:02d}-{name}-{j}.png"))
                else:
                    section.screenshot(path=str(shots / f"{k:02d}-{name}.png"))
                names.append(name)
            page.pdf(path=str(pdf), format="A4")
        finally:
            context.close()
        context = _browser(p, tmp_path, A4_PRINTABLE)
        try:
            page = context.new_page()
            page.emulate_media(media="print")
            page.goto(url, wait_until="load")
            assert page.evaluate("document.documentElement.scrollWidth") <= A4_PRINTABLE
            assert page.evaluate(OVERFLOW) == []
        finally:
            context.close()
    assert names[:3] == ["collection", "rrs", "categories"] and {"outcomes", "compare", "deposits"} <= set(names)
    for name in names:
        path = next(shots.glob(f"*-{name}*.png"))
        width, height = _png_size(path)
        assert width <= 1280 and height > 100, name
    # The PDF: A4 pages, every table's last column printed, nothing in the right margin.
    reader = PdfReader(pdf)
    assert len(reader.pages) > 10
    starts: list[float] = []

    def visit(text, cm, tm, font, size):
        if text.strip():
            starts.append(cm[0] * tm[4] + cm[2] * tm[5] + cm[4])

    texts = []
    for page in reader.pages:
        assert [round(float(v), 2) for v in page.mediabox[2:]] == list(A4_POINTS)
        texts.append(page.extract_text(visitor_text=visit))
    flat = re.sub(r"\s+", "", unicodedata.normalize("NFKC", "".join(texts)))
    assert max(starts) < A4_POINTS[0] - MARGIN_POINTS
    parsed = report_html.parse(report.read_text(encoding="utf-8"))
    missing = []
    for table_id, table in parsed.tables.items():
        for text in [table.headers[-1], *(table.rows[-1][-1:] if table.rows else [])]:
            if re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)) not in flat:
                missing.append((table_id, text))
    assert missing == []
    assert "Gain3(points)" in flat and "Δclamping" in flat
