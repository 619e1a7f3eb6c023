"""The HTML replay (`baloot replay --html`, `baloot audit --html`): one self-contained page, and
the data it is drawn from. In a real browser: tests/test_html_browser.py."""

import json
import re
from pathlib import Path

import pytest

from baloot_spec.cli import main

GAMES = Path(__file__).resolve().parent.parent / "conformance" / "games" / "default"


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
