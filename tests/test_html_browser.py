"""The HTML replay in a real browser: headless Chromium (Debian's package) driven by Playwright
for Python with the system browser (never a downloaded one). The page loads with no console
errors, stepping moves through the tricks, the sheet's totals are the log's, a violation shows at
its event; a screenshot of a hand in progress is written as an artefact (its path is printed;
BALOOT_ARTEFACTS names the directory, else a new temporary one).

Without Playwright or Chromium this whole module is skipped with one reason line."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("BALOOT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
try:
    from playwright.sync_api import sync_playwright
except ImportError:
    pytest.skip("browser tests need Playwright for Python (pip install playwright); not installed", allow_module_level=True)
if not Path(CHROMIUM).exists():
    pytest.skip(f"browser tests need Chromium ({CHROMIUM}; Debian: apt-get install chromium); not found", allow_module_level=True)

from test_html_replay import GAMES, _page, violating  # noqa: E402,F401  (the log with violations: a fixture)

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="baloot-chromium-")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
                                                       viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


def _open(browser, path):
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append(f"network request {r.url}") if not r.url.startswith(("file:", "data:", "about:")) else None)
    page.goto(path.as_uri())
    page.wait_for_selector("#events li")
    return page, errors


def _trick(page) -> list:
    return page.eval_on_selector_all("#trick .card", "cards => cards.map(c => c.dataset.card)")


def test_the_page_loads_without_console_errors(browser, tmp_path):
    page, errors = _open(browser, _page(tmp_path, ["replay", str(GAMES / "match-long.json")]))
    for key in ["ArrowRight"] * 12 + ["ArrowDown", "PageDown", "End", "ArrowUp", "Home", "PageUp"]:
        page.keyboard.press(key)
    page.click("#hand-tabs button:nth-child(11)")
    assert errors == []
    page.close()


def test_stepping_forward_and_back_changes_the_trick(browser, tmp_path):
    page, errors = _open(browser, _page(tmp_path, ["replay", str(GAMES / "match-long.json")]))
    first_play = next(f for f in page.evaluate("balootReplay.data.logs[0].hands[0].frames")[1:] if f["action"]["type"] == "play")
    page.evaluate(f"balootReplay.go(0, {first_play['event'] + 1})")
    assert _trick(page) == [first_play["action"]["card"]]
    page.keyboard.press("ArrowRight")
    two = _trick(page)
    assert len(two) == 2 and two[0] == first_play["action"]["card"]
    page.keyboard.press("ArrowLeft")
    assert _trick(page) == [first_play["action"]["card"]]
    page.click("#next-trick")                 # to the end of the trick: four cards and its winner
    assert len(_trick(page)) == 4 and "won by" in page.inner_text("#trick-caption")
    page.click("#next")                       # the next trick's first card
    assert len(_trick(page)) == 1
    page.click("#prev")
    assert len(_trick(page)) == 4
    assert errors == []
    page.close()


def test_the_sheet_totals_match_the_log(browser, tmp_path):
    document = json.loads((GAMES / "match-long.json").read_text(encoding="utf-8"))
    page, errors = _open(browser, _page(tmp_path, ["replay", str(GAMES / "match-long.json")]))
    written = page.eval_on_selector_all("table.sheet td[data-written]", "cells => cells.map(c => JSON.parse(c.dataset.written))")
    assert written == [h["claimed"]["written"] for h in document["hands"]]
    shown = json.loads(page.get_attribute("#sheet-result", "data-scores"))
    assert shown == document["claimed"]["scores"]
    scores = document["claimed"]["scores"]
    assert f"NS {scores['NS']}, EW {scores['EW']}" in page.inner_text("#sheet-result")
    assert errors == []
    page.close()


def test_a_violation_is_visible_at_its_event(browser, violating, tmp_path):
    path, j, k = violating
    page, errors = _open(browser, _page(tmp_path, ["audit", str(path)]))
    page.evaluate(f"balootReplay.go(0, {j})")             # the position before the illegal card
    assert not page.is_visible("#violation")
    page.keyboard.press("ArrowRight")                      # the illegal card
    assert page.is_visible("#violation")
    box = page.inner_text("#violation")
    assert "turn.out-of-turn" in box and "Uhrzeigersinn" in box and "Legal instead" in box
    assert page.eval_on_selector("#events li.current", "li => li.classList.contains('bad')")
    assert page.is_visible("#trick .card.illegal")
    page.keyboard.press("ArrowRight")                      # the skipped seat plays: in turn again
    assert not page.is_visible("#violation")
    page.evaluate(f"balootReplay.go(0, {k + 1})")         # the next one, marked as following the first
    box = page.inner_text("#violation")
    assert "turn.out-of-turn" in box and f"events[{j}]" in box
    page.evaluate(f"balootReplay.go(0, {j + 1})")         # the screenshot: the first illegal card on the table
    artefacts = Path(os.environ.get("BALOOT_ARTEFACTS") or tempfile.mkdtemp(prefix="baloot-html-"))
    artefacts.mkdir(parents=True, exist_ok=True)
    shot = artefacts / "replay-hand-with-violation.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"\nscreenshot of a hand in progress with a violation: {shot}")
    assert errors == []
    page.close()
