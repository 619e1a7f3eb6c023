"""Byte ranges of JSON Lines files: every line read once, whole, with its line number, whatever
the cut offsets (jsonl_ranges.py), as the one-process reader (log/reader.py) reads the file."""

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_spec.jsonl_ranges import RangeReadError, read_range, split
from baloot_spec.log.reader import _read_stream


def _one_process(data: bytes) -> list:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    return [(line, text) for _, line, text in _read_stream(stream, "f.jsonl", True)]


def _by_ranges(data: bytes, ranges) -> list:
    out, base = [], 0
    for start, end in ranges:
        lines = read_range(lambda: io.BytesIO(data), start, end)
        try:
            while True:
                k, text = next(lines)
                out.append((base + k, text))
        except StopIteration as stop:
            base += stop.value
    return out


_pieces = st.lists(st.sampled_from(['{"a": 1}', '{"b": [1, 2]}', "", "  ", "x" * 40, '{"é": "ü"}', "\r"]),
                   max_size=30)
_ends = st.sampled_from(["\n", "\r\n", "\r", ""])


@settings(max_examples=300, deadline=None)
@given(_pieces, st.lists(_ends, min_size=30, max_size=30), st.integers(1, 40), st.booleans())
def test_any_cut_reads_every_line_once_with_its_number(pieces, ends, size, final_newline):
    text = "".join(p + e for p, e in zip(pieces, ends))
    if final_newline:
        text += "\n"
    data = text.encode("utf-8")
    assert _by_ranges(data, split(len(data), size)) == _one_process(data)


def test_a_line_starting_exactly_at_a_cut_belongs_to_the_range_before():
    data = b"aaaa\nbbbb\ncccc\n"
    # Range [0, 5) owns the lines starting in [0, 5]: "aaaa" and "bbbb" (at 5); [5, 10): "cccc".
    assert _by_ranges(data, [(0, 5)]) == [(1, "aaaa"), (2, "bbbb")]
    assert list(read_range(lambda: io.BytesIO(data), 5, 10)) == [(1, "cccc")]
    assert list(read_range(lambda: io.BytesIO(data), 10, 15)) == []


def test_split_covers_the_file():
    assert split(0) == [(0, 0)]
    assert split(10, 4) == [(0, 4), (4, 8), (8, 10)]


def test_bad_utf8_and_a_missing_file_are_reported_after_the_lines_before():
    data = b'{"a": 1}\n\xff\xfe\n{"b": 2}\n'
    lines = read_range(lambda: io.BytesIO(data), 0, len(data))
    assert next(lines) == (1, '{"a": 1}')
    try:
        next(lines)
    except RangeReadError as exc:
        assert exc.reason.startswith("not UTF-8 text")
    else:
        raise AssertionError("no error for a line that is not UTF-8")

    def gone():
        raise FileNotFoundError(2, "No such file or directory")
    try:
        list(read_range(gone, 0, 10))
    except RangeReadError as exc:
        assert exc.reason == "cannot read: No such file or directory"
    else:
        raise AssertionError("no error for a missing file")
