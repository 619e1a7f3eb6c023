"""Did-you-mean: every "unknown" the user can cause names the close known ones (one helper)."""

import pytest

from baloot_spec.cli import main
from baloot_spec.suggest import did_you_mean

OVERLAY = """\
overlay: typo
title: a typo
source: "choice: test"
{body}
"""


def test_the_helper():
    assert did_you_mean("kawes", ["kawesh", "ekka"]) == " (did you mean 'kawesh'?)"
    assert did_you_mean("zzz", ["kawesh", "ekka"]) == ""
    assert did_you_mean("ab", ["abc", "abd"]) in (" (did you mean 'abc' or 'abd'?)", " (did you mean 'abd' or 'abc'?)")


@pytest.mark.parametrize("argv, words", [
    (["rules", "check", "--preset", "riyad"], "unknown preset 'riyad' (did you mean 'riyadh'?)"),
    (["rules", "check", "--set", "kawes=true"], "unknown knob 'kawes' (did you mean 'kawesh'?)"),
    (["rules", "check", "--set", "first_lead=buyr"], "not 'buyr' (did you mean 'buyer'?)"),
    (["rules", "check", "--set", "kawesh=ture"], "not 'ture' (did you mean 'true'?)"),
    (["simulate", "--hands", "1", "--set", "kawes=true"], "did you mean 'kawesh'?"),
    (["audit", "-", "--preset", "riyad"], "did you mean 'riyadh'?"),
])
def test_command_line_names(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


@pytest.mark.parametrize("body, words", [
    ("remove: [play.hokum.undertrumps]", "which no rules file defines (did you mean 'play.hokum.undertrump'"),
    ("replace:\n  - {id: fn.led-suits, name: led_suit, expr: 'none', source: 'choice: t'}",
     "(did you mean 'fn.led-suit'"),
    ("add:\n  rule:\n    - {id: x.y, phase: play, only: 'true', source: 'choice: t'}", "(did you mean 'rules'?)"),
    ("add:\n  rules:\n    - {id: x.y, phase: plya, only: 'true', source: 'choice: t'}", "unknown phase 'plya' (did you mean 'play'?)"),
    ("add:\n  rules:\n    - {id: x.y, phase: play, only: 'card.suit == led_sut', source: 'choice: t'}",
     "unknown name 'led_sut' (did you mean 'led_suit'?)"),
    ("add:\n  rules:\n    - {id: x.y, phase: play, only: 'is_trmp(card)', source: 'choice: t'}",
     "unknown function 'is_trmp' (did you mean 'is_trump'?)"),
    ("add:\n  rules:\n    - {id: x.y, phase: play, only: 'card.suits == 1', source: 'choice: t'}",
     "unknown attribute 'suits' (did you mean 'suit'?)"),
    ("add:\n  rules:\n    - {id: x.y, phase: play, only: 'param.ekk', source: 'choice: t'}",
     "unknown knob 'param.ekk' (did you mean 'param.ekka'"),
])
def test_overlay_names(tmp_path, body, words, capsys):
    path = tmp_path / "typo.yaml"
    path.write_text(OVERLAY.format(body=body), encoding="utf-8")
    assert main(["rules", "check", "--overlay", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
