"""kill -9 across every writer: whole files, working commands, no leftovers
once the next writer has run, no copy of a key once it is removed."""

import pytest

from tests.reliability.conftest import assert_zero
from tests.reliability.machine import WRITERS
from tests.reliability.suite import kill_writer, secret_kill_then_remove

KILLS = 25
# A git writer's child runs about 1.2 s (max_delay): 12 kills, one in each 0.1 s
# slice of it, cover it as 25 do a 60 ms step; make soak kills 300 times.
GIT_KILLS = 12


@pytest.mark.parametrize("entry", WRITERS, ids=lambda w: w.name.replace(" ", "-"))
def test_kill_9_at_random_moments(entry, base):
    kills = GIT_KILLS if entry.git else KILLS
    figures = kill_writer(entry, base, kills=kills, seed=16, check_every=min(10, kills // 2))
    assert figures["kills"] == kills, dict(figures.counts)
    assert figures["next commands run"] >= 2 * len(entry.after), dict(figures.counts)
    assert_zero(figures)


def test_a_kill_during_a_secret_write_then_remove_leaves_no_copy_of_the_key(base):
    figures = secret_kill_then_remove(base, max_kills=400, wanted=2)
    # the kills did leave copies (else this would test nothing) ...
    assert figures["kills that left a temp copy of a key"] >= 1, dict(figures.counts)
    assert figures["temp copies of a key before remove"] >= 1, dict(figures.counts)
    # ... and remove / unset-secret took every one of them
    assert_zero(figures)


def test_every_writer_of_the_table_is_covered():
    """The table is the hook: a writer is one entry (docs/reliability.md)."""
    names = [w.name for w in WRITERS]
    assert len(names) == len(set(names))
    for wanted in ("issue create", "issue update", "inbox push", "mark-all-read", "adapter state",
                   "credentials", "scan with due issues", "studio state", "harness transactions",
                   "source upgrades", "sticker transactions", "harness transactions (git)",
                   "sticker transactions (git)"):
        assert wanted in names
    assert all(w.after for w in WRITERS)
    assert {w.name for w in WRITERS if w.git} == {"harness transactions (git)", "sticker transactions (git)"}
