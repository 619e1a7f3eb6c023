"""baloot_spec.parallel.ordered_map: the process pool behind `audit --jobs N`. It must give every
answer once, in input order, whatever the workers' speeds; keep only a bounded part of the input
in flight; carry items larger than a pipe; raise a worker's exception in the parent; and turn a
worker that dies into a clear error, not a hang."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baloot_spec.errors import BalootError
from baloot_spec.parallel import WorkerDied, ordered_map


def _square_slowly(item, extra):
    # uneven work: some chunks finish long after later ones
    if item % 7 == 0:
        time.sleep(0.002)
    return (item * item, extra)


def _length(item, extra):
    return len(item)


def _fail_on(item, extra):
    if item == extra:
        raise ValueError(f"item {item} is bad")
    return item


def _slow_first(item, extra):
    time.sleep(0.3 if item == 0 else 0)
    return item


def _die_on(item, extra):
    if item == extra:
        os._exit(3)
    return item


def test_every_answer_once_in_input_order():
    got = list(ordered_map(_square_slowly, range(500), jobs=3, chunk=7, extra="x"))
    assert got == [(n * n, "x") for n in range(500)]


@pytest.mark.parametrize("count, jobs", [(0, 2), (1, 4), (5, 2)])
def test_fewer_items_than_workers_or_chunks(count, jobs):
    assert list(ordered_map(_square_slowly, range(count), jobs=jobs, chunk=3)) == [(n * n, None) for n in range(count)]


def _counted(count):
    """range(count) as a generator, and the list of the items it has given so far."""
    taken = []

    def source():
        for n in range(count):
            taken.append(n)
            yield n

    return taken, source()


def test_only_a_bounded_part_of_the_input_is_taken_ahead():
    taken, source = _counted(1000)
    answers = ordered_map(_square_slowly, source, jobs=2, chunk=10, in_flight=2, ahead=5)
    for position, _ in enumerate(answers):
        # at most `ahead` chunks given out past the first one not yet yielded
        assert len(taken) - position <= 5 * 10
        if position == 300:
            break
    answers.close()


def test_a_slow_chunk_does_not_let_the_answers_behind_it_pile_up():
    taken, source = _counted(400)
    answers = ordered_map(_slow_first, source, jobs=2, chunk=10, ahead=6)
    assert next(answers) == 0   # (while item 0 sleeps, the other worker would run through the rest)
    assert len(taken) <= 6 * 10
    assert list(answers) == list(range(1, 400))


def test_answers_that_free_the_ahead_limit_do_not_leave_the_parent_waiting_on_no_worker():
    # Chunk 0 is slow, chunk 1 (the other worker) answered first: with ahead=2 the parent gives
    # out nothing more until chunk 0 is answered; once both are yielded it must give out chunk
    # 2, not wait for an answer from workers that hold nothing (the pool used to hang here for
    # ever: the answers were yielded after the fill, not before). In a child process, so that a
    # hang is a failed test, not a stuck suite.
    script = ("import sys; sys.path.insert(0, sys.argv[1]); from test_parallel import _slow_first; "
              "from baloot_spec.parallel import ordered_map; "
              "print(list(ordered_map(_slow_first, range(5), jobs=2, chunk=1, ahead=2)))")
    done = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2, 3, 4]"


def test_an_item_larger_than_a_pipe_goes_through():
    big = ["x" * (3 << 20), "y", "z" * (2 << 20)]
    assert list(ordered_map(_length, big, jobs=2, chunk=1)) == [3 << 20, 1, 2 << 20]


def test_a_workers_exception_is_raised_in_the_parent():
    with pytest.raises(ValueError, match="item 42 is bad"):
        list(ordered_map(_fail_on, range(100), jobs=2, chunk=5, extra=42))


def test_a_worker_that_dies_is_a_clear_error_not_a_hang():
    started = time.monotonic()
    with pytest.raises(WorkerDied, match="exit code 3") as caught:
        list(ordered_map(_die_on, range(100), jobs=2, chunk=5, extra=37))
    assert isinstance(caught.value, BalootError)   # (the CLI prints it in one line, exit 2)
    assert time.monotonic() - started < 10


def _frozen_objects(item, extra):
    import gc
    return gc.get_freeze_count()


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="fork: Linux only")
def test_forked_workers_start_with_the_parents_objects_frozen_and_the_parent_is_unfrozen_after():
    # (frozen objects are never examined by the cyclic GC, which would write to them and make a
    # forked worker copy the pages it shares with the parent)
    import gc
    counts = list(ordered_map(_frozen_objects, range(4), 2, 2))
    assert all(count > 1000 for count in counts)
    assert gc.get_freeze_count() == 0
