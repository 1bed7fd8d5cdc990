"""The report in a real browser: Debian's chromium, headless, driven by playwright
(``executable_path``: playwright never downloads a browser here). The page must load
from its file with no console error and no request other than the file itself, render
its figures, follow a deposit link within the page, and give a screenshot.

This test is never skipped: without chromium it fails and says how to install it
(``.ci/run`` does).
"""

from __future__ import annotations

import os
import struct
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
    synthetic_collection.build(db, zenodo=120, swh=30, local=5, nights=4)
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
