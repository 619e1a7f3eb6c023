"""`baloot rules names`: taken from the compiler's scopes; the hand-written meanings cannot drift."""

import json
import re

import pytest

from baloot_spec.cli import main
from baloot_spec.expr.builtins import BUILTIN_DOCS
from baloot_spec.expr.compiler import AGGREGATES
from baloot_spec.rules import load_variant
from baloot_spec.rules.scopes import GENERIC_ATTRIBUTES, GENERIC_STATE, MATCH_CONTEXT, names_in as _names_in
from baloot_spec.rules.names import (AGGREGATE_DOCS, ATTRIBUTE_TYPES, BUILTIN_TYPES, ENGINE_FIELDS, MATCH_FIELDS,
                                     names_listing)


def test_the_written_meanings_cover_exactly_the_compilers_sets():
    assert set(ENGINE_FIELDS) == GENERIC_STATE
    assert set(MATCH_FIELDS) == MATCH_CONTEXT
    assert set(AGGREGATE_DOCS) == AGGREGATES
    assert set(BUILTIN_TYPES) == set(BUILTIN_DOCS)
    assert set(ATTRIBUTE_TYPES) == GENERIC_ATTRIBUTES


@pytest.fixture(scope="module")
def listing():
    return names_listing(load_variant("default").variant)


def test_every_name_the_rules_use_in_a_phase_is_listed_there(listing):
    """The rules' own expressions use only listed names (or their loop variables)."""
    variant = load_variant("default").variant
    everywhere = {e["name"].split("(")[0] for group in listing["everywhere"].values() for e in group}
    for section in ("rules", "effects"):
        for item in variant.ruleset.lists[section]:
            listed = {e["name"] for e in listing["contexts"][f"phase {item['phase']}"]} | everywhere | {"param", "const"}
            texts = [item[k] for k in ("when", "only", "require") if isinstance(item.get(k), str)]
            texts += [v for v in (item.get("set") or {}).values() if isinstance(v, str)]
            for text in texts:
                loop_vars = set(re.findall(r"\bfor (\w+) in\b", text))
                assert _names_in(text) - loop_vars <= listed, item["id"]


def test_the_play_phase(listing):
    play = {e["name"]: e for e in listing["contexts"]["phase play"]}
    assert play["card"]["kind"] == "action field" and play["card"]["type"] == "card"
    assert play["ekka"]["type"] == "bool" and play["trick"]["kind"] == "engine state"
    assert play["level"]["type"] == "int" and "Double" in play["level"]["meaning"]
    assert play["mode"]["type"] == "unknown (none at first)"       # nothing declares it: not invented
    functions = {e["name"]: e for e in listing["everywhere"]["functions"]}
    assert functions["wins(c)"]["type"] == "bool" and functions["card_points(c)"]["type"] == "int"
    knobs = {e["name"]: e for e in listing["everywhere"]["knobs"]}
    assert knobs["param.first_lead"]["type"] == "one of 'dealer_right', 'buyer'"
    assert knobs["param.match_target"]["type"].startswith("int ")
    constants = {e["name"]: e for e in listing["everywhere"]["constants"]}
    assert constants["const.teams"]["type"] == "list of text"


def test_an_overlay_adds_its_names(tmp_path, capsys):
    overlay = tmp_path / "o.yaml"
    overlay.write_text('overlay: o\ntitle: t\nsource: "choice: t"\nadd:\n  functions:\n'
                       '    - {id: fn.house, name: house_rule, doc: "A house function.", expr: "len(trick) == 3", source: "choice: t"}\n'
                       '    - {id: fn.house2, name: house_flag, doc: "Whether the first play won.", expr: "first(p.seat == winning.seat for p in trick)", source: "choice: t"}\n',
                       encoding="utf-8")
    assert main(["rules", "names", "--overlay", str(overlay), "--phase", "play", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    found = [e for e in data["everywhere"]["functions"] if e["name"] == "house_rule"]
    assert found == [{"name": "house_rule", "kind": "function", "type": "bool", "meaning": "A house function."}]
    assert [e["type"] for e in data["everywhere"]["functions"] if e["name"] == "house_flag"] == ["bool (from its doc)"]
    assert list(data["contexts"]) == ["phase play"]


def test_the_text_listing_and_errors(capsys):
    assert main(["rules", "names", "--phase", "match"]) == 0
    out = capsys.readouterr().out
    assert "match: state and action names" in out and "hand.<step name>" in out and "param.match_target" in out
    assert main(["rules", "names", "--phase", "plya"]) == 2
    assert "did you mean 'play'?" in capsys.readouterr().err
