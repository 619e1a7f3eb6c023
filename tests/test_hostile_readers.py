"""Hostile input to the readers (issue 29, Build 1 and 2): every example of the attack report is a
located error with exit 2, never a traceback, never unbounded time or memory.

The limits are baloot_spec/limits.py's, stated in README.md ("Input limits")."""

import json
import os
import threading
import time

import pytest

from baloot_spec.cli import main
from baloot_spec.conformance.corpus import load_case_file
from baloot_spec.conformance.expectations import load_expected_failures
from baloot_spec.conformance.protocol import ProtocolError, decode
from baloot_spec.errors import CaseError, RulesError
from baloot_spec.limits import MAX_EXPRESSION_CHARS, InputLimitError, loads
from baloot_spec.log.reader import read_logs
from baloot_spec.rules import load_variant
from baloot_spec.rules.yamlpos import load_yaml_text

BIG = "9" * 5000          # over Python's 4,300-digit limit for int()


@pytest.fixture(scope="module")
def log_line(tmp_path_factory):
    """One valid one-hand log document, as text."""
    path = tmp_path_factory.mktemp("log") / "one.jsonl"
    assert main(["simulate", "--hands", "1", "--seed", "3", "--out", str(path)]) == 0
    return path.read_text(encoding="utf-8").strip()


def _audit(tmp_path, text, capsys, name="log.jsonl", extra=()):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code = main(["audit", str(path), "--json", *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def _overlay(tmp_path, body: str, name="hostile") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"overlay: {name}\ntitle: t\nsource: 'choice: test'\n" + body, encoding="utf-8")
    return str(path)


# ---- integers over 4,300 digits -----------------------------------------------------------------

def test_a_huge_integer_in_a_log_is_an_unreadable_document_not_a_traceback(tmp_path, capsys, log_line):
    text = log_line.replace('"NS":', f'"NS":{BIG},"x":', 1)
    code, out, err = _audit(tmp_path, text, capsys)
    assert code == 2 and "Traceback" not in err
    report = json.loads(out)["documents"][0]
    assert "4300" in report["errors"][0]["message"] or "digits" in report["errors"][0]["message"]


def test_a_huge_integer_on_standard_input_is_located(monkeypatch, capsys):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO('{"format": ' + BIG + "}\n"))
    assert main(["audit", "-"]) == 2   # (the probe for a pretty-printed document met the number first)
    out = capsys.readouterr().out
    assert "-:1 $: unreadable: not valid JSON" in out


def test_a_huge_integer_in_an_overlay_params_and_an_expression_is_located(tmp_path, rules_copy):
    with pytest.raises(RulesError) as info:
        load_variant("default", {}, [_overlay(tmp_path, f"remove: [{BIG}]\n")])
    assert "digits" in info.value.message and info.value.location.line == 4
    params = rules_copy / "params.yaml"
    params.write_text(params.read_text(encoding="utf-8").replace("default: 0", f"default: {BIG}", 1)
                      if "default: 0" in params.read_text(encoding="utf-8") else params.read_text(encoding="utf-8")
                      + f"\nhuge: {BIG}\n", encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_variant("default")
    assert "digits" in info.value.message and info.value.location.file == "rules/params.yaml"


def test_a_huge_integer_literal_in_an_expression_is_a_load_error(tmp_path):
    overlay = _overlay(tmp_path, "add:\n  functions:\n    - id: fn.huge\n      name: huge\n"
                                 f"      expr: \"{'9' * 5000} + 1\"\n      source: 'choice: test'\n")
    with pytest.raises(RulesError) as info:
        load_variant("default", {}, [overlay])
    assert info.value.location.file.endswith("hostile.yaml") and info.value.location.line


def test_a_huge_integer_in_an_engine_reply_or_expected_failures_is_located(tmp_path):
    with pytest.raises(ProtocolError):
        decode(b'{"seq": 0, "n": ' + BIG.encode() + b"}")
    path = tmp_path / "xf.json"
    path.write_text('{"a": ' + BIG + "}", encoding="utf-8")
    with pytest.raises(CaseError) as info:
        load_expected_failures(str(path))
    assert "digits" in info.value.message and info.value.location.line == 1


def test_replay_prints_the_largest_valid_score_and_refuses_a_larger_one(tmp_path, capsys, log_line):
    document = json.loads(log_line)
    document["match"]["start"] = {"NS": 2 ** 53 - 1, "EW": 0}
    document["hands"][0].pop("match_scores", None)
    document.pop("claimed", None)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(path)]) in (0, 1)
    assert str(2 ** 53 - 1) in capsys.readouterr().out
    document["match"]["start"]["NS"] = 10 ** 4000
    path.write_text(json.dumps(document), encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "maximum" in err and "Traceback" not in err


# ---- depth ---------------------------------------------------------------------------------------

def test_json_nested_deeply_is_refused_everywhere(tmp_path, capsys):
    deep = "[" * 100000 + "]" * 100000
    code, out, err = _audit(tmp_path, deep, capsys)
    assert code == 2 and "nested too deeply" in out
    with pytest.raises(ProtocolError):
        decode(('{"seq":0,"x":' + "[" * 60 + "]" * 60 + "}").encode())
    case_file = tmp_path / "cases.json"
    case_file.write_text('{"cases": ' + deep + "}", encoding="utf-8")
    with pytest.raises(CaseError, match="nested"):
        load_case_file(case_file)


def test_yaml_nested_deeply_and_self_referencing_aliases_are_load_errors(tmp_path):
    with pytest.raises(RulesError, match="nested more than"):
        load_yaml_text("a: " + "[" * 5000 + "]" * 5000, "deep.yaml")
    with pytest.raises(RulesError, match="nested more than"):
        load_yaml_text("".join("  " * i + "k:\n" for i in range(3000)), "deep.yaml")
    with pytest.raises(RulesError) as info:
        load_variant("default", {}, [_overlay(tmp_path, "remove: &a [*a]\n")])
    assert "aliases" in info.value.message and info.value.location.line == 4


@pytest.mark.parametrize("text", [
    "not " * 2000 + "true",
    "true" + " and true" * 50000,
    "1" + " + 1" * 100000,
    "1 if true else " * 5000 + "2",
    "not " * 600 + "true",                 # short enough, too deep
], ids=["2000-nots", "50000-ands", "100000-plus-terms", "5000-if-else", "600-nots"])
def test_long_and_deep_expressions_are_located_load_errors(tmp_path, text):
    overlay = _overlay(tmp_path, "add:\n  functions:\n    - id: fn.long\n      name: long_one\n"
                                 f"      expr: \"{text}\"\n      source: 'choice: test'\n")
    started = time.monotonic()
    with pytest.raises(RulesError) as info:
        load_variant("default", {}, [overlay])
    assert time.monotonic() - started < 10
    assert info.value.rule_id == "fn.long" and info.value.location.line >= 7
    assert "characters long" in info.value.message or "deep" in info.value.message


def test_redundant_parentheses_are_no_depth(tmp_path):
    overlay = _overlay(tmp_path, "add:\n  functions:\n    - id: fn.parens\n      name: parens\n"
                                 f"      expr: \"{'(' * 300 + '1' + ')' * 300}\"\n      source: 'choice: test'\n")
    load_variant("default", {}, [overlay])


def test_a_long_flat_expression_within_the_limits_still_loads(tmp_path):
    body = "1" + " + 1" * 30     # (flat enough: within the depth limit)
    assert len(body) < MAX_EXPRESSION_CHARS
    overlay = _overlay(tmp_path, "add:\n  functions:\n    - id: fn.ok\n      name: ok_one\n"
                                 f"      expr: \"{body}\"\n      source: 'choice: test'\n")
    load_variant("default", {}, [overlay])


# ---- alias expansion ("billion laughs") ----------------------------------------------------------

LAUGHS = "".join(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 10))


def test_billion_laughs_in_an_overlay_is_refused_at_once(tmp_path):
    overlay = _overlay(tmp_path, "x0: &l0 [lol]\n" + LAUGHS)
    started = time.monotonic()
    with pytest.raises(RulesError, match="aliases"):
        load_variant("default", {}, [overlay])
    assert time.monotonic() - started < 5


def test_billion_laughs_through_the_rules_dir_is_refused(rules_copy):
    path = rules_copy / "laughs.yaml"
    path.write_text("x0: &l0 [lol]\n" + LAUGHS, encoding="utf-8")
    with pytest.raises(RulesError) as info:
        load_variant("default")
    assert info.value.location.file == "rules/laughs.yaml" and "aliases" in info.value.message


# ---- logs never choose what the auditor reads -----------------------------------------------------

def test_a_log_naming_an_overlay_path_is_refused_without_opening_it(tmp_path, capsys, log_line, monkeypatch):
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n  bad: [indent\n", encoding="utf-8")
    laughs = tmp_path / "laughs.yaml"
    laughs.write_text("overlay: laughs\nx0: &l0 [lol]\n" + LAUGHS, encoding="utf-8")
    opened = []
    real_open = open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)
    for target in (secret, laughs):
        document = json.loads(log_line)
        document["variant"]["overlays"] = [str(target)]
        monkeypatch.setattr("builtins.open", spy)
        code, out, err = _audit(tmp_path, json.dumps(document), capsys)
        monkeypatch.setattr("builtins.open", real_open)
        assert code == 2
        assert "hunter2" not in out + err and "indent" not in out + err
        assert "never a file" in out
        assert str(target) not in opened


# ---- control characters, broken schema, duplicate keys, shadowed builtins --------------------------

def test_a_nul_byte_in_an_overlay_is_located(tmp_path):
    overlay = _overlay(tmp_path, "remove: [a\x00b]\n")
    with pytest.raises(RulesError) as info:
        load_variant("default", {}, [overlay])
    assert "control character" in info.value.message and info.value.location.line == 4


def test_invalid_json_in_a_copied_rules_dirs_schema_is_located(rules_copy):
    (rules_copy / "schema" / "rules.schema.json").write_text('{"type": "object",,}', encoding="utf-8")
    from baloot_spec.rules.loader import _schema
    _schema.cache_clear()
    try:
        with pytest.raises(RulesError) as info:
            load_variant("default")
        assert info.value.location.file == "rules/schema/rules.schema.json" and info.value.location.line == 1
    finally:
        _schema.cache_clear()


def test_duplicate_json_keys_are_errors_in_every_reader(tmp_path, capsys, log_line):
    duplicated = log_line.replace('{"format":', '{"format":"x","format":', 1)
    code, out, _ = _audit(tmp_path, duplicated, capsys)
    assert code == 2 and "duplicate key 'format'" in out
    with pytest.raises(ProtocolError, match="duplicate key"):
        decode(b'{"seq": 0, "seq": 1}')
    path = tmp_path / "xf.json"
    path.write_text('{"a": "x", "a": "y"}', encoding="utf-8")
    with pytest.raises(CaseError, match="duplicate key"):
        load_expected_failures(str(path))
    with pytest.raises(InputLimitError, match="NaN"):
        loads('{"a": NaN}')


def test_a_duplicate_json_key_is_located_at_its_second_occurrence():
    # the same key in two different objects is fine; the second 'a' of the outer object is not
    text = '{"a": 1,\n "b": {"a": "a", "c": ["a", {"a": 0}]},\n  "a": 3}'
    with pytest.raises(InputLimitError, match="duplicate key 'a'") as info:
        loads(text)
    assert (info.value.line, info.value.column) == (3, 3)
    with pytest.raises(InputLimitError) as info:     # a key with an escaped quote, in an array
        loads('[{"k\\"q": 1, "x": "k\\"q", "k\\"q": 2}]')
    assert info.value.message == "duplicate key 'k\"q'" and (info.value.line, info.value.column) == (1, 27)


def test_an_overlay_function_named_like_a_builtin_is_a_load_error(tmp_path):
    for name in ("len", "sum"):
        overlay = _overlay(tmp_path, f"add:\n  functions:\n    - id: fn.mine\n      name: {name}\n"
                                     "      params: [x]\n      expr: '0'\n      source: 'choice: test'\n", name="shadow")
        with pytest.raises(RulesError) as info:
            load_variant("default", {}, [overlay])
        assert "builtin" in info.value.message and info.value.rule_id == "fn.mine"


# ---- empty, unreadable and special inputs -----------------------------------------------------------

def test_empty_inputs_exit_2_with_a_reason(tmp_path, capsys):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    for source in (str(tmp_path / "empty.jsonl"), os.devnull, str(tmp_path)):
        assert main(["audit", source]) == 2
        captured = capsys.readouterr()
        assert "no log document" in captured.err or "holds no" in captured.out


def test_a_fifo_is_read_not_no_such_file(tmp_path, capsys, log_line):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "w", encoding="utf-8") as stream:
            stream.write(log_line + "\n")
    writer = threading.Thread(target=feed)
    writer.start()
    code = main(["audit", str(fifo)])
    writer.join(5)
    assert code == 0, capsys.readouterr()


def test_an_unreadable_directory_exits_2(tmp_path, capsys, monkeypatch, log_line):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "a.jsonl").write_text(log_line + "\n", encoding="utf-8")
    folder.chmod(0)
    try:
        if os.geteuid() == 0:   # root reads anything: pretend the permission is missing
            monkeypatch.setattr(os, "access", lambda path, mode: not str(path).endswith("locked"))
        assert main(["audit", str(folder)]) == 2
        assert "cannot read the directory" in capsys.readouterr().out
    finally:
        folder.chmod(0o755)


def test_an_unreadable_folder_inside_a_directory_is_reported(tmp_path, capsys, monkeypatch, log_line):
    (tmp_path / "good.jsonl").write_text(log_line + "\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):   # (root reads any folder: the walk is told it cannot)
        for entry in real_walk(top, onerror=onerror, **kwargs):
            if entry[0].endswith("sub"):
                onerror(PermissionError(13, "Permission denied", entry[0]))
                continue
            yield entry
    monkeypatch.setattr(os, "walk", walk)
    assert main(["audit", str(tmp_path)]) == 2
    assert "sub" in capsys.readouterr().out


def test_an_over_long_log_line_is_skipped_with_a_reason_in_bounded_memory(tmp_path, monkeypatch, log_line):
    monkeypatch.setattr("baloot_spec.log.reader.MAX_LOG_LINE_BYTES", 1000)
    path = tmp_path / "long.jsonl"
    path.write_text("x" * 5000 + "\n" + log_line + "\n", encoding="utf-8")
    items = list(read_logs([str(path)]))
    assert "longer than the limit" in items[0].errors[0]["message"]
    assert items[1].line == 2   # (the log line itself is over 1000 too, reported the same way)
