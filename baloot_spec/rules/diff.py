"""Compare any two variants: a variant is a preset, knob values and overlays, written on the
command line as `riyadh` or `preset=riyadh,set=kawesh=true,overlay=club.yaml`.

The comparison lists every knob whose value differs (with the source of each value) and every
item of the rules (rule, function, effect, fact, step, phase) that one side has and the other
lacks or has in another form (with the fields that differ and both sources).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import BalootError
from ..suggest import did_you_mean
from .identity import plain

SPEC_KEYS = ("preset", "set", "overlay")


class SpecError(BalootError):
    """A variant written on the command line that cannot be read (a usage error)."""


@dataclass
class VariantSpec:
    preset: str = "default"
    sets: dict = field(default_factory=dict)
    overlays: list = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.preset + "".join(f" {k}={v}" for k, v in self.sets.items()) + "".join(f" +{o}" for o in self.overlays)


def parse_spec(text: str) -> VariantSpec:
    """`riyadh`, or comma-separated `preset=P`, `set=KNOB=VALUE`, `overlay=NAME|FILE` (the last two
    repeatable); a first item without `=` is the preset."""
    spec, preset_given = VariantSpec(), False
    for number, item in enumerate(part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            if number == 0:
                spec.preset, preset_given = key, True
                continue
            raise SpecError(f"variant {text!r}: {item!r} is not KEY=VALUE (keys: {', '.join(SPEC_KEYS)})")
        value = value.strip()
        if key == "preset":
            if preset_given:
                raise SpecError(f"variant {text!r} names two presets")
            spec.preset, preset_given = value, True
        elif key == "set":
            name, eq, knob_value = value.partition("=")
            if not eq or not name.strip():
                raise SpecError(f"variant {text!r}: set takes KNOB=VALUE, not {value!r}")
            spec.sets[name.strip()] = knob_value.strip()
        elif key == "overlay":
            if not value:
                raise SpecError(f"variant {text!r}: overlay= needs a name or a .yaml path")
            spec.overlays.append(value)
        else:
            raise SpecError(f"variant {text!r}: unknown key {key!r}{did_you_mean(key, SPEC_KEYS)} (keys: {', '.join(SPEC_KEYS)})")
    return spec


def _sources(source) -> str:
    if source is None:
        return ""
    items = source if isinstance(source, list) else [source]
    return "; ".join(str(s) for s in items)


def _knob_source(knob, value) -> str:
    if knob.values:
        return _sources(knob.values.get(value, {}).get("source"))
    return _sources(knob.source)


def compare_variants(left, right) -> dict:
    """The differences between two resolved variants (loader.Variant)."""
    knobs = []
    for name, knob in left.params.items():
        va, vb = left.knobs[name], right.knobs.get(name, knob.default)
        if va != vb:
            knobs.append({"knob": name, "a": va, "b": vb, "source a": _knob_source(knob, va),
                          "source b": _knob_source(right.params.get(name, knob), vb)})
    items_a = {item["id"]: (section, plain(item)) for section, item in left.ruleset.items()}
    items_b = {item["id"]: (section, plain(item)) for section, item in right.ruleset.items()}
    rules = []
    for item_id in sorted(set(items_a) | set(items_b)):
        section, ia = items_a.get(item_id, (None, None))
        section_b, ib = items_b.get(item_id, (None, None))
        if ia is not None and ib is not None and json.dumps(ia, sort_keys=True) == json.dumps(ib, sort_keys=True):
            continue
        entry = {"id": item_id, "section": section or section_b}
        if ib is None:
            entry.update(difference="only in a", source=_sources(ia.get("source")))
        elif ia is None:
            entry.update(difference="only in b", source=_sources(ib.get("source")))
        else:
            fields = sorted(key for key in set(ia) | set(ib) if ia.get(key) != ib.get(key))
            entry.update(difference="changed", fields=fields, source=_sources(ib.get("source")),
                         **{"source a": _sources(ia.get("source")), "source b": _sources(ib.get("source"))})
        rules.append(entry)
    return {"a": left.describe(), "b": right.describe(), "knobs": knobs, "rules": rules}


def diff_specs(a: VariantSpec, b: VariantSpec, preset_dirs: tuple = ()) -> dict:
    """Resolve and compile both sides (a located RulesError on any problem), then compare."""
    from . import load_variant
    left = load_variant(a.preset, a.sets, a.overlays, preset_dirs).variant
    right = load_variant(b.preset, b.sets, b.overlays, preset_dirs).variant
    result = compare_variants(left, right)
    result["a"]["label"], result["b"]["label"] = a.label, b.label
    return result
