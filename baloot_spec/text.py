"""Small value conversions shared by the reports: values as rule text, values as plain JSON."""

from __future__ import annotations


def show(value) -> str:
    """A knob or rule value as the rules write it: true, false, none, or its text."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    return str(value)


def plain(value):
    """Records and tuples as plain dicts and lists, ready for json.dumps."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
