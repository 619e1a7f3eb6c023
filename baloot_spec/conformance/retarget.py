"""A case under another variant than its own: the case moved there, its knobs, and the
reference engine's answer in the case's own `expect` shape.

Used by the knob-dependency computation (which runs every case under perturbed variants), by
applicability (a case whose knobs agree with a run's target is run under the target's rules)
and by `conformance derive` (which writes the answers as a new corpus).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from functools import lru_cache

from ..errors import BalootError
from ..rules import load_variant, resolve_variant
from ..rules.open_variants import OpenVariantCache
from .corpus import Case
from .runner import FAIL, PASS, run_case


def variant_spec(preset: str = "default", sets: dict | None = None, overlays=None) -> dict:
    """A case's `variant` field for these arguments (no empty `set`/`overlays` noise beyond `set`)."""
    out = {"preset": preset, "set": dict(sets or {})}
    if overlays:
        out["overlays"] = list(overlays)
    return out


def spec_of(case: Case) -> dict:
    variant = case.data["variant"]
    return variant_spec(variant.get("preset", "default"), variant.get("set"), variant.get("overlays"))


def retarget(case: Case, variant: dict) -> Case:
    """The same case (id, file, index, setup, expect) to be run under `variant`."""
    return Case(dict(case.data, variant=variant), case.file, case.index)


def _key(variant: dict) -> tuple:
    return (variant.get("preset", "default"), tuple(sorted((k, json.dumps(v)) for k, v in (variant.get("set") or {}).items())),
            tuple(variant.get("overlays") or ()))


@lru_cache(maxsize=None)
def _resolved(key: tuple):
    preset, sets, overlays = key
    rules = _rules(key)
    return dict(rules.variant.knobs), tuple(rules.variant.overlays)


def resolved(variant: dict) -> tuple[dict, tuple]:
    """(every knob's value, the overlay names) of a variant; RulesError when it does not resolve
    (an unknown knob, a combination the constraints of params.yaml refuse)."""
    return _resolved(_key(variant))


def try_resolved(variant: dict):
    try:
        return resolved(variant)
    except BalootError:
        return None


_RULES: dict = {}
_OPEN: OpenVariantCache | None = None   # within knobs_at_run_time()


@contextmanager
def knobs_at_run_time():
    """Within it, each variant's rules come from one compilation per set of rules files and
    overlays, with the knobs read at run time (rules/open_variants.py: milliseconds a variant
    instead of half a second), for a tool that visits thousands of variants
    (tools/case_dependencies.py)."""
    global _OPEN
    saved, _OPEN = _OPEN, OpenVariantCache()
    _RULES.clear()
    try:
        yield
    finally:
        _OPEN = saved
        _RULES.clear()


def _rules(key: tuple):
    rules = _RULES.get(key)
    if rules is None:
        preset, sets, overlays = key
        sets = {k: json.loads(v) for k, v in sets}
        if _OPEN is None:
            rules = load_variant(preset, sets, list(overlays))
        else:
            rules = _OPEN.rules(resolve_variant(preset, sets, list(overlays)))
        _RULES[key] = rules
    return rules


def forget_rules() -> None:
    """Drop every compiled variant held here and by load_variant (memory; resolved knobs stay)."""
    from ..rules import forget_compiled
    _RULES.clear()
    forget_compiled()


def run_under(case: Case, variant: dict):
    """The outcome of the case moved to `variant` (its rules loaded once per process, even for an
    overlay given by path, which load_variant itself does not keep)."""
    moved = retarget(case, variant)
    try:
        rules = _rules(_key(variant))
    except BalootError:
        return run_case(moved)          # the error outcome, with its message
    return run_case(moved, rules)


def own_knobs(case: Case) -> dict | None:
    """Every knob's value under the case's own variant (None if that variant does not resolve)."""
    got = try_resolved(case.data["variant"])
    return None if got is None else got[0]


def knobs_agree(case: Case, knobs: dict, overlays: tuple) -> bool:
    """Whether the case's own variant agrees with (knobs, overlays) on every knob the case depends
    on (conformance/dependencies.json) and has the same overlays or none (an overlay's effect on a
    case is not a knob: target.py has the reference engine confirm the expectation under it).
    False for a case the file does not list: its dependencies are unknown."""
    depends = case.depends_on
    own = try_resolved(case.data["variant"])
    if depends is None or own is None:
        return False
    own_values, own_overlays = own
    return own_overlays in ((), tuple(overlays)) and all(own_values.get(k) == knobs.get(k) for k in depends)


def answer_status(case: Case, variant: dict) -> str:
    """pass / fail / error of the reference engine for the case moved to `variant`."""
    return run_under(case, variant).status


def reference_answer(case: Case, variant: dict):
    """(status, answer): the reference engine's answer for the case under `variant`, in the shape
    of the case's `expect` (pass: the case's own expect; fail: the new answer; error: None with
    the reason as status detail)."""
    outcome = run_under(case, variant)
    if outcome.status == PASS:
        return PASS, case.data["expect"], ""
    if outcome.status != FAIL:
        return outcome.status, None, outcome.message
    actual = outcome.actual
    if case.kind == "legal":
        out = {"turn": actual["turn"], "legal": [json.loads(a) for a in actual["legal"]]}
        if "phase" in case.data["expect"]:
            out["phase"] = actual["phase"]
        return FAIL, out, ""
    if case.kind == "reject":
        if actual.get("reject") is None:
            return "accepted", None, "the action is accepted under this variant: there is no refusal to expect"
        return FAIL, {"reject": actual["reject"]}, ""
    return FAIL, {k: actual[k] for k in case.data["expect"] if k in actual}, ""
