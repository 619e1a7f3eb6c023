"""The overlays of rules/overlays/ and the guide rules/OVERLAYS.md: each overlay loads, is listed,
has cases; every example in the guide loads (or, quoting a base rule, quotes it exactly)."""

import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from baloot_spec.conformance.corpus import load_corpus
from baloot_spec.rules import load_variant
from baloot_spec.rules.loader import load_overlays, load_rule_files

ROOT = Path(__file__).resolve().parent.parent
OVERLAYS = sorted(load_overlays())
GUIDE = (ROOT / "rules" / "OVERLAYS.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```yaml\n(.*?)```", GUIDE, re.S)


@lru_cache(maxsize=1)
def _corpus():
    return load_corpus()


def test_there_are_overlays():
    assert len(OVERLAYS) >= 3


@pytest.mark.parametrize("name", OVERLAYS)
def test_each_overlay_loads_is_listed_and_has_cases(name):
    rules = load_variant("default", {}, [name])
    assert rules.variant.overlays == [name] and rules.hash != load_variant("default").hash
    readme = (ROOT / "rules" / "overlays" / "README.md").read_text(encoding="utf-8")
    assert f"| `{name}` |" in readme
    cases = [c for c in _corpus() if name in (c.data.get("variant", {}).get("overlays") or [])]
    assert len(cases) >= 3
    assert all(c.data["source"]["ref"].startswith(("choice:", "de:", "nl:", "smsf:")) and c.data.get("note") for c in cases)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.startswith("overlay:") and "..." not in b])
def test_every_overlay_example_in_the_guide_loads(block, tmp_path):
    path = tmp_path / "example.yaml"
    path.write_text(block, encoding="utf-8")
    rules = load_variant("default", {}, [str(path)])
    name = yaml.safe_load(block)["overlay"]
    assert rules.variant.overlays == [name]
    if name in OVERLAYS:   # the guide shows the shipped overlay's items as they are
        shipped = {item["id"]: item for item in yaml.safe_load((ROOT / "rules" / "overlays" / f"{name}.yaml").read_text())
                   .get("replace", []) + sum(yaml.safe_load((ROOT / "rules" / "overlays" / f"{name}.yaml").read_text())
                                               .get("add", {}).values(), [])}
        shown = yaml.safe_load(block)
        for item in shown.get("replace", []) + sum(shown.get("add", {}).values(), []):
            for key in ("when", "only", "require", "if_possible", "expr", "phase"):
                if key in item:
                    assert " ".join(str(item[key]).split()) == " ".join(str(shipped[item["id"]][key]).split()), (item["id"], key)


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.startswith("- id:")])
def test_every_base_rule_quoted_in_the_guide_is_quoted_exactly(block):
    item = yaml.safe_load(block)[0]
    _, base = load_rule_files().find(item["id"])
    assert base is not None
    for key, value in item.items():
        assert base[key] == value, (item["id"], key)
