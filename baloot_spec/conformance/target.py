"""The variant a conformance run is restricted to (--preset, --set, --overlay), and how a case
is judged and run for it: a case applies when its own variant agrees with the target on every
knob it depends on (conformance/dependencies.json) and the reference engine confirms its
expectation there; it is then run under the target's variant (conformance/README.md,
"Applicability")."""

from __future__ import annotations

import json
from dataclasses import dataclass

from .corpus import Case
from .retarget import knobs_agree, own_knobs, retarget, run_under, variant_spec
from .runner import PASS, Outcome


@dataclass(frozen=True)
class Target:
    """The variant a run is restricted to (--preset, --set, --overlay). With `variant` and `knobs`
    (what command.py gives) a case applies when its own variant agrees with the target on every
    knob the case depends on (conformance/dependencies.json) and the reference engine confirms
    its expectation under the target; it is then run under the target's rules. Without them, or
    for a case the dependencies file does not list, it applies when its own variant resolves to
    the same rules (the same variant hash)."""

    hash: str
    label: str
    variant: dict | None = None       # the case `variant` field of the target
    knobs: dict | None = None         # every knob's value under the target
    overlays: tuple = ()              # the overlay names the target applies


def target_of(preset: str | None, sets: dict | None = None, overlays: list | None = None, label: str | None = None) -> Target:
    """The Target of --preset/--set/--overlay (RulesError, located, if the variant does not resolve)."""
    from ..rules import load_variant
    rules = load_variant(preset or "default", sets or {}, overlays or [])
    label = label or (preset or "default") + "".join(f" {k}={v}" for k, v in (sets or {}).items()) + \
        "".join(f" +{o}" for o in overlays or ())
    typed = {k: rules.variant.knobs[k] for k in sets or {}}      # --set text ("false", "200") as the knob's type
    return Target(rules.hash, label, variant_spec(preset or "default", typed, overlays), dict(rules.variant.knobs),
                  tuple(rules.variant.overlays))


def case_for(case: Case, target: Target | None) -> Case:
    """The case as it is run for `target`: moved to the target's variant where it applies by its
    knobs, else as written."""
    if target is None or target.variant is None or case.depends_on is None:
        return case
    return retarget(case, target.variant)


def run_for(case: Case, target: Target | None) -> Outcome:
    """Run a case in process for the target (moved to its variant where it applies by its knobs)."""
    moved = case_for(case, target)
    return run_under(moved, moved.data["variant"])


def why_not_applicable(case: Case, target: Target) -> str | None:
    """Why a listed case does not apply to the target (None: it applies)."""
    if knobs_agree(case, target.knobs, target.overlays):
        if run_for(case, target).status != PASS:
            return (f"its knobs agree with {target.label} but the reference engine answers it differently there "
                    f"(knobs acting together, or an overlay rule): `baloot conformance derive` re-expects it")
        return None
    own = own_knobs(case)
    if own is None:
        return "its own variant does not resolve"
    differing = [k for k in case.depends_on if own.get(k) != target.knobs.get(k)]
    if differing:
        return "depends on " + ", ".join(f"{k} (written for {json.dumps(own.get(k))}, not {json.dumps(target.knobs.get(k))})"
                                         for k in differing)
    return f"written with other overlays than {target.label}"
