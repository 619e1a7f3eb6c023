"""The variant hash covers what a variant is: rules_version, non-default knobs, overlay content."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from baloot_spec.audit import audit_text
from baloot_spec.rules import load_variant
from baloot_spec.rules.identity import content_digest, read_version
from baloot_spec.simulate import simulate_hands

ROOT = Path(__file__).resolve().parent.parent

HOUSE_A = """\
overlay: house
title: "House A: no Gahwa"
source: "choice: a test overlay"
replace:
  - id: fn.next-step
    name: next_step
    expr: "'double' if level == 1 else ('triple' if level == 2 and mode == 'hokum' else ('four' if level == 3 else none))"
    source: "choice: the ladder ends at Four"
"""

HOUSE_B = """\
overlay: house
title: "House B: Belote over-trumping"
source: "choice: a test overlay"
replace:
  - id: play.hokum.overtrump-on-trump-lead
    phase: play
    when: "mode == 'hokum' and len(trick) > 0 and led_suit == trump"
    only: "is_trump(card) and wins(card)"
    if_possible: true
    explain: "{actor} must over-trump"
    source: "choice: over-trump even over the partner"
"""


def _write(path: Path, text: str, newline: str = "\n") -> str:
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return str(path)


def test_same_name_different_content_different_hash(tmp_path):
    a = load_variant("default", {}, [_write(tmp_path / "a.yaml", HOUSE_A)])
    b = load_variant("default", {}, [_write(tmp_path / "b.yaml", HOUSE_B)])
    assert a.variant.overlays == b.variant.overlays == ["house"]
    assert a.hash != b.hash
    assert a.hash != load_variant("default").hash


def test_same_content_same_hash_whatever_the_name_layout_or_line_endings(tmp_path):
    first = load_variant("default", {}, [_write(tmp_path / "a.yaml", HOUSE_A)])
    renamed = HOUSE_A.replace("overlay: house", "overlay: club-rules")
    relaid = "# a comment\n" + renamed.replace('title: "House A: no Gahwa"', "title:   'House A: no Gahwa'   # same text")
    second = load_variant("default", {}, [_write(tmp_path / "sub.yaml", relaid, "\r\n")])
    assert second.variant.overlays == ["club-rules"]
    assert first.hash == second.hash


def test_hash_is_the_documented_canonical_json(tmp_path):
    """No path, machine or file detail: the hash is sha256 of this exact text."""
    version = read_version()["rules_version"]
    rules = load_variant("default", {"kawesh": "true"})
    text = '{"knobs":{"kawesh":true},"overlays":[],"rules_version":%d}' % version
    assert rules.hash == hashlib.sha256(text.encode()).hexdigest()[:16]
    overlay = load_variant("default", {}, [_write(tmp_path / "a.yaml", HOUSE_A)])
    content = {"title": "House A: no Gahwa", "source": "choice: a test overlay", "replace": [{
        "id": "fn.next-step", "name": "next_step", "source": "choice: the ladder ends at Four",
        "expr": "'double' if level == 1 else ('triple' if level == 2 and mode == 'hokum' else ('four' if level == 3 else none))"}]}
    text = json.dumps({"knobs": {}, "overlays": [content], "rules_version": version}, sort_keys=True, separators=(",", ":"))
    assert overlay.hash == hashlib.sha256(text.encode()).hexdigest()[:16]


def _edited(rules_copy, tmp_path, monkeypatch) -> Path:
    """Another copy of the rules (load_variant caches by the folder's path within a process)."""
    edited = tmp_path / "edited"
    shutil.copytree(rules_copy, edited)
    monkeypatch.setenv("BALOOT_RULES_DIR", str(edited))
    return edited


def test_a_knob_added_at_its_default_changes_no_hash(rules_copy, tmp_path, monkeypatch):
    before = {name: load_variant(name).hash for name in ("default", "riyadh")}
    rules_copy = _edited(rules_copy, tmp_path, monkeypatch)
    params = rules_copy / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("knobs:\n", """knobs:
  house_extra:
    type: bool
    values:
      true: {doc: "on", source: "choice: test"}
      false: {doc: "off", source: "choice: test"}
    default: false
""", 1), encoding="utf-8")
    assert content_digest(rules_copy) != read_version(rules_copy)["content_digest"]
    assert {name: load_variant(name).hash for name in before} == before
    assert load_variant("default", {"house_extra": "true"}).hash != before["default"]


def test_another_rules_version_changes_every_hash(rules_copy, tmp_path, monkeypatch):
    before = load_variant("default").hash
    rules_copy = _edited(rules_copy, tmp_path, monkeypatch)
    version = read_version(rules_copy)
    (rules_copy / "version.json").write_text(json.dumps(dict(version, rules_version=version["rules_version"] + 1)))
    assert load_variant("default").hash != before


def test_a_broken_version_file_is_a_located_error(rules_copy):
    from baloot_spec.errors import RulesError
    (rules_copy / "version.json").write_text('{"rules_version": "one"}')
    with pytest.raises(RulesError, match="rules/version.json"):
        load_variant("default")


def test_rehash_check_passes_on_the_repository():
    """Every stored hash is current and rules/ is the content its rules_version recorded."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "rehash.py"), "--check", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["stale"] == [] and report["content"] == "recorded"


def test_rehash_rewrites_only_the_hash_digits():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from rehash import rehash_text
    finally:
        sys.path.remove(str(ROOT / "tools"))
    current = load_variant("default").hash
    text = '{\n  "variant": {"preset": "default",  "set": {}, "hash": "0000000000000000"},\n  "x": 1\n}\n'
    rewritten, changes = rehash_text(text, {})
    assert rewritten == text.replace("0000000000000000", current) and changes == [("0000000000000000", current)]
    assert rehash_text(rewritten, {}) == (rewritten, [])


def test_audit_reports_a_same_named_overlay_with_other_content(tmp_path):
    a, b = _write(tmp_path / "a.yaml", HOUSE_A), _write(tmp_path / "b.yaml", HOUSE_B)
    played = load_variant("default", {}, [a])
    document = next(iter(simulate_hands(played, 1, seed=3)))
    text = json.dumps(document)
    assert document["variant"]["overlays"] == ["house"] and document["variant"]["hash"] == played.hash
    override = {"preset": "default", "set": {}, "overlays": [a]}
    clean = audit_text("log", None, text, override)
    assert not [v for v in clean["violations"] if v["rule"] == "log.variant-hash"]
    other = audit_text("log", None, text, {"preset": "default", "set": {}, "overlays": [b]})
    found = [v for v in other["violations"] if v["rule"] == "log.variant-hash"]
    assert len(found) == 1
    other_hash = load_variant("default", {}, [b]).hash
    assert found[0]["claimed"] == played.hash and found[0]["recomputed"] == other_hash


def test_audit_reports_a_registry_overlay_edited_since_the_game(rules_copy, tmp_path, monkeypatch):
    """A log names a shipped overlay; the overlay has changed since: the hashes differ."""
    played = load_variant("default", {}, ["no-gahwa"])
    text = json.dumps(next(iter(simulate_hands(played, 1, seed=5))))
    edited = _edited(rules_copy, tmp_path, monkeypatch)
    path = edited / "overlays" / "no-gahwa.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace('title: "', 'title: "Edited. ', 1), encoding="utf-8")
    report = audit_text("log", None, text)
    assert report["errors"] == []
    found = [v for v in report["violations"] if v["rule"] == "log.variant-hash"]
    assert len(found) == 1 and found[0]["claimed"] == played.hash
    assert found[0]["recomputed"] == load_variant("default", {}, ["no-gahwa"]).hash != played.hash
