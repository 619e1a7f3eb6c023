"""The HTML replay: one self-contained page (no network, no external assets, works from file://).

The page's data is one JSON blob made in Python (the replay's stories with a frame per event,
the audit's findings, the score sheet); its look and behaviour are the package data files
page.html, replay.css and replay.js here, inlined into the page when it is written.
"""

from __future__ import annotations

import json
from importlib import resources

from ..errors import BalootError

DATA_MARK, CSS_MARK, JS_MARK = "/*__DATA__*/", "/*__CSS__*/", "/*__JS__*/"


def render_page(entries: list[dict]) -> str:
    """The page for replayed logs (entries as `baloot replay` builds them, with frames and sheet)."""
    files = resources.files(__name__)
    page = files.joinpath("page.html").read_text(encoding="utf-8")
    data = json.dumps({"logs": [_page_entry(e) for e in entries]}, separators=(",", ":"), ensure_ascii=False)
    # Inside <script> the text "</" would end the element early; "<\/" is the same JSON string.
    data = data.replace("</", "<\\/").replace("<!--", "<\\!--")
    return (page.replace(CSS_MARK, files.joinpath("replay.css").read_text(encoding="utf-8"))
                .replace(JS_MARK, files.joinpath("replay.js").read_text(encoding="utf-8"))
                .replace(DATA_MARK, data))


def write_html(path: str, entries: list[dict]) -> None:
    """Write the page to `path` (a BalootError, exit 2, if it cannot be written)."""
    text = render_page(entries)
    try:
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
    except OSError as exc:
        raise BalootError(f"cannot write {path}: {exc.strerror or exc}") from None


def _page_entry(entry: dict) -> dict:
    audit = entry.get("audit") or {}
    return {"log": entry["log"], "variant": {"preset": entry["variant"]["preset"], "hash": entry["variant"]["hash"]},
            "hands": entry["hands"], "sheet": entry.get("sheet"),
            "violations": audit.get("violations", []), "notes": audit.get("notes", [])}
