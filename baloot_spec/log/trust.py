"""What a log may make the auditor load: rules it already has, chosen by name.

A log comes from players the auditor need not trust. Its `variant` names a preset, knob values
and overlays; the overlays must be names from the auditor's own registry (`rules/overlays/`),
never a path: otherwise a submitted log could make `audit` open any file of the auditor's
machine and print part of it in an error message. Nothing here opens a file the log names.
"""

from __future__ import annotations

from ..errors import Location, RulesError


def log_variant(variant: dict) -> tuple[str, dict, list]:
    """(preset, set, overlays) of a log's `variant`, the overlays checked to be registry names.

    RulesError (located at the JSON path) for an overlay that is not one; the message shows the
    entry clipped, and says nothing about any file of that name."""
    overlays = list(variant.get("overlays") or [])
    if not overlays:   # (the common case: no registry to read, once per audited document)
        return variant.get("preset", "default"), dict(variant.get("set") or {}), overlays
    from ..rules.loader import load_overlays
    known = load_overlays()
    for index, entry in enumerate(overlays):
        if entry not in known:
            shown = entry if len(entry) <= 60 else entry[:60] + "..."
            raise RulesError(f"unknown overlay {shown!r}: a log names overlays of the auditor's registry "
                             f"({', '.join(sorted(known)) or 'none'}), never a file; to audit under another "
                             "overlay, give it with --overlay", Location(f"$.variant.overlays[{index}]"))
    return variant.get("preset", "default"), dict(variant.get("set") or {}), overlays
