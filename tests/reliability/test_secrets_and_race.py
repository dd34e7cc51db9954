"""Secret canaries across every command and file; the cat race."""

from tests.reliability.conftest import assert_zero
from tests.reliability.suite import canary_sweep, cat_race


def test_canary_keys_are_in_their_own_files_and_nowhere_else(base):
    figures = canary_sweep(base)
    assert figures["canary: agents that got the key in their environment"] >= 1, dict(figures.counts)
    assert figures["canary: files holding a key (its own 0600 files)"] == 2, dict(figures.counts)
    assert_zero(figures)


def test_cat_1000_times_while_a_parent_is_swapped_for_a_link_prints_no_outside_byte(base):
    figures = cat_race(base, attempts=1000, subprocesses=10)
    assert figures["cat runs"] >= 1010
    assert figures["cat: served"] and figures["cat: refused"], dict(figures.counts)  # it raced
    assert_zero(figures, "outside bytes", "tracebacks", "cat: unexpected exit")
