"""tools/specialization.py: the hot instructions CPython's adaptive interpreter left generic."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parent.parent / "tools" / "specialization.py"
sys.path.insert(0, str(TOOL.parent))

import specialization  # noqa: E402


def test_generic_and_specialised_instructions_are_told_apart():
    assert specialization._is_generic("LOAD_ATTR_WITH_HINT") and specialization._is_generic("COMPARE_OP")
    assert specialization._is_generic("BINARY_SUBSCR_ADAPTIVE")
    for name in ("LOAD_ATTR_SLOT", "COMPARE_OP_STR_JUMP", "CALL_ADAPTIVE", "FOR_ITER", "BINARY_SUBSCR_DICT"):
        assert not specialization._is_generic(name), name


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="reads CPython 3.11's adaptive instructions")
def test_a_survey_counts_the_sites_per_hand_and_finds_the_records_field_reads():
    out = subprocess.run([sys.executable, str(TOOL), "--hands", "30", "--json"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["bytecodes_per_hand"] > 10_000 and 0 < found["generic_per_hand"] < found["bytecodes_per_hand"]
    sites = found["sites"]
    assert sites == sorted(sites, key=lambda s: -s["per_hand"])
    # a record's field read is a Python __getattribute__ subscripting a dict subclass: generic
    assert any(s["function"] == "__getattribute__" and s["instruction"].startswith("BINARY_SUBSCR") for s in sites)


def test_too_few_hands_is_a_usage_error():
    out = subprocess.run([sys.executable, str(TOOL), "--hands", "0"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--hands must be at least 1" in out.stderr


def test_an_unknown_preset_is_one_line_and_exit_2():
    out = subprocess.run([sys.executable, str(TOOL), "--preset", "no-such-preset", "--hands", "1"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown preset 'no-such-preset'" in out.stderr and "Traceback" not in out.stderr
