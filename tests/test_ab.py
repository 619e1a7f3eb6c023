"""tools/ab.py runs this tree's engine, another revision's and the oracle over the same recorded
hands; the timings are for the commit messages and BENCHMARKS.md, not asserted here. What is
checked: the three arms run and report, the ratios are the arms' own quotients, the temporary
work tree is removed, and a revision that does not exist is a clear error (exit 2)."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import ab  # noqa: E402

in_git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "HEAD"], capture_output=True).returncode == 0
needs_git = pytest.mark.skipif(not in_git, reason="tools/ab.py compares git revisions")


def _worktrees() -> str:
    return subprocess.run(["git", "-C", ROOT, "worktree", "list"], capture_output=True, text=True).stdout


@pytest.fixture
def scratch_dirs(monkeypatch) -> list:
    """The temporary folders ab.py makes (its base work tree lives in one), recorded so a test
    can check that exactly those are gone: other processes (another checkout's ab.py run) may
    add and remove work trees of the same repository meanwhile."""
    made = []
    real = ab.tempfile.mkdtemp

    def mkdtemp(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]
    monkeypatch.setattr(ab.tempfile, "mkdtemp", mkdtemp)
    return made


def _left_behind(made: list) -> list:
    """Those of `made` still on disk or still registered as a work tree."""
    listed = _worktrees()
    return [path for path in made if os.path.exists(path) or path in listed]


@needs_git
def test_ab_compares_head_with_this_tree_and_the_oracle(capsys, scratch_dirs):
    assert ab.main(["HEAD", "--hands", "4", "--rounds", "1", "--repeat", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rev"] == "HEAD" and out["hands"] == 4
    assert all(out[k] > 0 for k in ("base_us_per_hand", "this_us_per_hand", "oracle_us_per_hand"))
    assert out["this_base_ratio"] == pytest.approx(out["this_us_per_hand"] / out["base_us_per_hand"], rel=0.01)
    assert out["this_oracle_ratio"] == pytest.approx(out["this_us_per_hand"] / out["oracle_us_per_hand"], rel=0.01)
    # one round: each paired ratio is that round's own quotient
    assert out["this_oracle_ratio_paired"] == pytest.approx(out["this_us_per_hand"] / out["oracle_us_per_hand"], rel=0.01)
    assert out["this_oracle_ratio_paired_range"][0] == out["this_oracle_ratio_paired_range"][1]
    assert scratch_dirs and not _left_behind(scratch_dirs)   # the temporary work tree is gone


def test_each_timed_round_starts_one_arm_later():
    arms = ("base", "this", "oracle")
    assert [ab.rotated(arms, n) for n in range(4)] == [
        ("base", "this", "oracle"), ("this", "oracle", "base"), ("oracle", "base", "this"), ("base", "this", "oracle")]


def test_a_paired_ratio_is_the_median_of_the_rounds_own_ratios():
    # best over best would pair this arm's best round (1.0) with the oracle's (1.0): 1.0; round by
    # round this arm is 0.5, 1.5 and 0.8 of the oracle
    rounds = [{"this": 1.0, "oracle": 2.0}, {"this": 1.5, "oracle": 1.0}, {"this": 2.4, "oracle": 3.0}]
    assert ab.paired(rounds, "this", "oracle", 3) == {"median": 0.8, "range": [0.5, 1.5]}


@needs_git
def test_the_simulate_workload_has_two_arms_and_no_oracle(capsys):
    assert ab.main(["HEAD", "--workload", "simulate", "--hands", "3", "--rounds", "1", "--repeat", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["workload"] == "simulate" and out["hands"] == 3
    assert out["base_us_per_hand"] > 0 and out["this_us_per_hand"] > 0
    assert not any("oracle" in key for key in out)
    assert out["this_base_ratio"] == pytest.approx(out["this_us_per_hand"] / out["base_us_per_hand"], rel=0.01)
    assert ab.main(["HEAD", "--workload", "simulate", "--preset", "no-such-preset", "--hands", "2"]) == 2
    assert "unknown preset 'no-such-preset'" in capsys.readouterr().err


@needs_git
def test_an_unknown_revision_is_a_clear_error(capsys):
    assert ab.main(["no-such-revision-xyz", "--hands", "2", "--rounds", "1", "--repeat", "1"]) == 2
    assert "cannot check out 'no-such-revision-xyz'" in capsys.readouterr().err


def test_sizes_below_one_are_refused():
    with pytest.raises(SystemExit) as exc:
        ab.main(["HEAD", "--hands", "0"])
    assert exc.value.code == 2


@needs_git
@pytest.mark.skipif(__import__("shutil").which("valgrind") is None, reason="--instructions runs valgrind")
def test_instructions_are_counted_exactly_so_an_a_a_run_agrees(capsys):
    # the same tree twice: callgrind counts the same instructions (to well within 0.1% a hand).
    # (10 hands, not 3: what a process does once moves by a few thousand instructions between
    # two layouts, and over 3 hands that read 0.9987-1.0033 a hand; over 30, 0.9991-0.9996)
    assert ab.main(["HEAD", "--instructions", "--hands", "10", "--layouts", "1", "--json"]) == 0   # (one layout: time)
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 10 and all(out[k] > 10_000 for k in (
        "base_instructions_per_hand", "this_instructions_per_hand", "oracle_instructions_per_hand"))
    if subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--", "baloot_spec"]).returncode == 0:
        assert out["this_base_ratio"] == pytest.approx(1.0, abs=0.002)
    assert out["this_oracle_ratio"] == pytest.approx(
        out["this_instructions_per_hand"] / out["oracle_instructions_per_hand"], rel=0.01)


def test_cycles_are_the_instructions_plus_the_priced_misses(capsys, monkeypatch):
    # (the arithmetic and the report, on made-up counts: callgrind's own run is the next test's)
    counted = {"base": 1000.0, "this": 900.0, "oracle": 800.0}
    made_up = lambda tree, hands_file, hands, preset, engine, simulate, cache=None, shift=0: {
        "Ir": counted["oracle" if engine == "oracle" else "this" if tree.name == "this" else "base"],
        "I1mr": 3.0, "D1mr": 2.0, "D1mw": 1.0, "ILmr": 0.5, "DLmr": 0.0, "DLmw": 0.0, "Bcm": 4.0, "Bim": 6.0}
    monkeypatch.setattr(ab, "events", made_up)
    monkeypatch.setattr(ab, "warm", lambda *args: None)
    monkeypatch.setattr(ab, "record", lambda *args: True)
    monkeypatch.setattr(ab.shutil, "which", lambda name: "/usr/bin/valgrind")
    assert ab.main(["HEAD", "--cycles", "--hands", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for arm, instructions in counted.items():   # 6 first-level misses, 0.5 last-level, 10 mispredicted
        assert out["events_per_hand"][arm] == {"instructions": instructions, "L1_misses": 6.0, "LL_misses": 0.5,
                                               "mispredicted": 10.0, "cycles": instructions + 60 + 100 + 200}
        assert out[f"{arm}_cycles_per_hand"] == instructions + 360
    assert out["this_oracle_ratio"] == round(1260 / 1160, 3) and out["this_base_ratio"] == round(1260 / 1360, 4)


@pytest.mark.skipif(__import__("shutil").which("valgrind") is None, reason="--cycles runs valgrind")
def test_callgrinds_cache_and_branch_events_are_read(tmp_path):
    hands = tmp_path / "hands.json"
    assert ab.record(hands, 1, 5, "default")
    figures = ab.cycles(ab.ROOT, hands, 1, "default", "oracle")
    assert figures["instructions"] > 10_000 and figures["L1_misses"] > 0 and figures["mispredicted"] > 0
    assert figures["cycles"] > figures["instructions"] + 10 * figures["L1_misses"]


def test_instructions_and_cycles_are_one_or_the_other(capsys):
    with pytest.raises(SystemExit) as exc:
        ab.main(["HEAD", "--instructions", "--cycles"])
    assert exc.value.code == 2 and "one or the other" in capsys.readouterr().err


def test_instructions_without_valgrind_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(ab.shutil, "which", lambda name: None)
    assert ab.main(["HEAD", "--instructions", "--hands", "2"]) == 2
    assert "needs valgrind" in capsys.readouterr().err
    assert ab.main(["HEAD", "--cycles", "--hands", "2"]) == 2
    assert "--cycles needs valgrind" in capsys.readouterr().err


@needs_git
def test_an_unknown_preset_is_one_line_and_exit_2(capsys, scratch_dirs):
    assert ab.main(["HEAD", "--preset", "no-such-preset", "--hands", "2", "--rounds", "1", "--repeat", "1"]) == 2
    assert "unknown preset 'no-such-preset'" in capsys.readouterr().err
    assert scratch_dirs and not _left_behind(scratch_dirs)   # (no work tree left behind)


def _fake_counts(monkeypatch, counts: dict) -> list:
    """ab's counting faked: each arm's successive counts from `counts`; returned, the calls of
    warm and events in order, as ("warm" or "count", arm, cache dir, its files at the call, shift)."""
    calls, left = [], {arm: list(figures) for arm, figures in counts.items()}
    arm_of = lambda tree, engine: "oracle" if engine == "oracle" else "this" if tree.name == "this" else "base"

    def warm(tree, hands_file, preset, engine, cache, shift=0):
        calls.append(("warm", arm_of(tree, engine), str(cache), sorted(os.listdir(cache)), shift))
        (cache / "warmed").write_text("")

    def events(tree, hands_file, hands, preset, engine, simulate, cache=None, shift=0):
        calls.append(("count", arm_of(tree, engine), str(cache), sorted(os.listdir(cache)), shift))
        return {"Ir": left[arm_of(tree, engine)].pop(0)}
    monkeypatch.setattr(ab, "warm", warm)
    monkeypatch.setattr(ab, "events", events)
    monkeypatch.setattr(ab, "record", lambda *args: True)
    monkeypatch.setattr(ab.shutil, "which", lambda name: "/usr/bin/valgrind")
    return calls


def test_instructions_are_counted_in_several_fresh_warmed_caches(capsys, monkeypatch):
    # one cache's count is one layout's luck (the disk cache's contents move it by up to 5%):
    # each arm is counted in --layouts fresh caches, each warmed just before; the median is reported
    calls = _fake_counts(monkeypatch, {"base": [1000.0, 1100.0, 1020.0], "this": [900.0, 950.0, 990.0],
                                       "oracle": [800.0, 800.0, 810.0]})
    assert ab.main(["HEAD", "--instructions", "--hands", "2", "--layouts", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["layouts"] == 3
    assert (out["base_instructions_per_hand"], out["this_instructions_per_hand"], out["oracle_instructions_per_hand"]) \
        == (1020.0, 950.0, 800.0)
    assert out["base_instructions_range"] == [1000.0, 1100.0] and out["this_instructions_range"] == [900.0, 990.0]
    assert out["oracle_instructions_range"] == [800.0, 810.0]
    assert out["this_base_ratio"] == round(950 / 1020, 4)
    assert out["this_base_ratio_range"] == [round(900 / 1100, 4), round(990 / 1000, 4)]
    assert out["this_oracle_ratio_range"] == [round(900 / 810, 3), round(990 / 800, 3)]
    assert len(calls) == 18   # 3 arms x 3 layouts, a warm-up then a count in each
    for number in range(0, 18, 2):
        warmed, counted = calls[number], calls[number + 1]
        assert warmed[0] == "warm" and warmed[3] == []   # a fresh, empty cache...
        assert counted[:3] == ("count", warmed[1], warmed[2]) and counted[3] == ["warmed"]   # ...counted once warm
        assert warmed[4] == counted[4] == number // 2 % 3   # the n-th layout's heap shifted by n objects
    assert len({call[2] for call in calls}) == 9


def test_the_spread_over_layouts_is_printed(capsys, monkeypatch):
    _fake_counts(monkeypatch, {"base": [1000.0, 1100.0], "this": [900.0, 1000.0], "oracle": [800.0, 800.0]})
    assert ab.main(["HEAD", "--instructions", "--hands", "2", "--layouts", "2"]) == 0
    out = capsys.readouterr().out
    assert "this tree: 950 instructions a hand" in out   # (the median of two: their mean)
    assert "over 2 layouts (fresh disk caches), min-max: base 1,000-1,100; this 900-1,000" in out
    assert "this/base 0.8182-1.0" in out
    with pytest.raises(SystemExit) as exc:
        ab.main(["HEAD", "--instructions", "--layouts", "0"])
    assert exc.value.code == 2


@needs_git
def test_this_tree_is_measured_from_a_copy_beside_the_base_checkout(tmp_path):
    # the arms' paths are as long as each other (a longer path moved an A/A count by 0.2 %), and
    # the copy is this tree as it is: an uncommitted change is measured, a deleted file is absent
    untracked = os.path.join(ROOT, "tools", "ab_copy_probe_untracked.py")
    with open(untracked, "w") as handle:
        handle.write("# uncommitted\n")
    try:
        this = ab.copy_of_this(tmp_path / "this")
    finally:
        os.remove(untracked)
    assert len(str(this)) == len(str(tmp_path / "base"))
    assert (this / "tools" / "ab_copy_probe_untracked.py").read_text() == "# uncommitted\n"
    assert (this / "tools" / "ab.py").read_bytes() == open(os.path.join(ROOT, "tools", "ab.py"), "rb").read()
    assert (this / "baloot_spec" / "__init__.py").is_file() and not (this / ".git").exists()


def test_a_layout_shifts_the_heap_by_objects_made_first():
    plain, shifted = ab._arm(ab.ROOT, "h.json", 1, "default", "dsl"), ab._arm(ab.ROOT, "h.json", 1, "default", "dsl", 2)
    assert shifted[2] == "_layout = [(i, -i) for i in range(2)]\n" + plain[2] and shifted[3:] == plain[3:]
    assert ab._arm(ab.ROOT, (5, 1), 1, "default", "simulate", 1)[2].startswith("_layout = [(i, -i) for i in range(1)]")


def test_a_warm_up_fills_a_fresh_cache_with_what_the_counted_run_reads(tmp_path):
    hands = tmp_path / "hands.json"
    assert ab.record(hands, 2, 5, "default")
    cache = tmp_path / "cache"
    cache.mkdir()
    ab.warm(ab.ROOT, hands, "default", "dsl", cache)
    written = sorted(path.name.split("-")[1] for path in cache.iterdir())
    assert "plan" in written and "phase" in written   # the plan and the specialised phases the hands reach
