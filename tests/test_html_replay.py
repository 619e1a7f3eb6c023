"""The HTML replay (`baloot replay --html`, `baloot audit --html`): one self-contained page, tested
in a real browser (headless Chromium driven by Playwright) where one is installed.

Without Playwright or Chromium the browser tests are skipped with one reason line; the page's
self-containment and data are checked without a browser all the same."""

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from baloot_spec.cli import main

GAMES = Path(__file__).resolve().parent.parent / "conformance" / "games" / "default"
CHROMIUM = os.environ.get("BALOOT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _page(tmp_path, argv, name="replay.html"):
    out = tmp_path / name
    main([*argv, "--html", str(out)])
    return out


def _data(html: str) -> dict:
    blob = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(blob)


@pytest.fixture
def violating(tmp_path):
    """match-long.json with two plays swapped in trick 1 and in trick 2: a card out of turn in
    each (the second marked as following the first), and the hand goes on."""
    document = json.loads((GAMES / "match-long.json").read_text(encoding="utf-8"))
    events = document["hands"][0]["events"]
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    j, k = plays[1], plays[5]
    for i in (j, k):
        events[i], events[i + 1] = events[i + 1], events[i]
    path = tmp_path / "violating.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, j, k


def test_the_page_is_self_contained(tmp_path):
    html = _page(tmp_path, ["replay", str(GAMES / "match-long.json")]).read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
    assert "<link" not in html and "@import" not in html and "url(" not in html
    data = _data(html)
    assert len(data["logs"][0]["hands"]) == 11 and data["logs"][0]["sheet"]["result"]["winner"] == "NS"


def test_audit_html_marks_the_violations(violating, tmp_path, capsys):
    path, j, k = violating
    out = tmp_path / "audit.html"
    assert main(["audit", str(path), "--html", str(out)]) == 1
    assert "turn.out-of-turn" in capsys.readouterr().out      # the audit's report is still printed
    frames = _data(out.read_text(encoding="utf-8"))["logs"][0]["hands"][0]["frames"]
    marked = [f["event"] for f in frames if f.get("violation")]
    assert marked == [j, k] and all(frames[m + 1]["violation"]["source"] for m in marked)


# ---- in a browser -------------------------------------------------------------------------------

def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright for Python (pip install playwright); not installed")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"browser tests need Chromium ({CHROMIUM}; Debian: apt-get install chromium); not found")
    return sync_playwright


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _browser_or_skip()
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
