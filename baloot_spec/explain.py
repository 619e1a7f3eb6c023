"""Scoring steps in words: each step's `doc` in rules/scoring.yaml is a sentence with {name}
holes, filled here with the values the engine computed for a hand (nothing is recomputed), and
{name?...|...} choices between two sentences by whether a value is true ({a=b?...|...}: whether
two values are equal)."""

from __future__ import annotations

import re

_HOLE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# {name?said when the value is true|said when it is false, none or empty}, holes allowed inside
# {a=b?...|...}: the same by whether two values are equal
_CHOICE = re.compile(r"\{([a-z_][a-z0-9_]*(?:=[a-z_][a-z0-9_]*)?)\?((?:[^{}|]|\{[a-z0-9_]+\})*)\|((?:[^{}|]|\{[a-z0-9_]+\})*)\}")


def words(value) -> str:
    """A value as a person reads it: 'NS 11, EW 5', 'sira, baloot', 'nobody', 'yes'."""
    if value is None:
        return "nobody"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} {words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(words, value)) if value else "none"
    return str(value)


def fill(template: str, values: dict) -> str:
    """`template` with each {name} replaced by words(values[name]) (an unknown name is left as is),
    each {name?yes|no} by the part its value chooses."""
    template = _CHOICE.sub(lambda m: m.group(2) if _holds(m.group(1), values) else m.group(3), template)
    return _HOLE.sub(lambda m: words(values[m.group(1)]) if m.group(1) in values else m.group(0), template)


def _holds(condition: str, values: dict) -> bool:
    if "=" in condition:
        left, right = condition.split("=")
        return values.get(left) == values.get(right)
    return bool(values.get(condition))


def step_docs(rules) -> dict:
    """Step id -> (doc, source) for the facts and scoring steps of a variant, as the rules give them."""
    found = {}
    for section in ("facts", "scoring"):
        for item in rules.variant.ruleset.lists[section]:
            found[item["id"]] = (item.get("doc"), item.get("source"))
    return found


def explained_steps(rules, facts: dict, steps: list) -> list:
    """[{step, name, value, words, source}] for a hand's scoring steps (story['scoring'])."""
    docs = step_docs(rules)
    values = dict(facts)
    values.update({s["name"]: s["value"] for s in steps})
    out = []
    for step in steps:
        doc, source = docs.get(step["step"], (None, None))
        out.append({**step, "words": fill(doc, values) if doc else f"{step['name']} = {words(step['value'])}",
                    "source": source})
    return out
