"""The reliability suite runs short here (CI); ``make soak`` runs it long
(:mod:`tests.reliability.soak`) and writes the figures to docs/reliability.md."""

import pytest


@pytest.fixture
def base(tmp_path):
    return tmp_path / "machine"


def assert_zero(figures, *names):
    from tests.reliability.suite import ZERO

    bad = figures.failures(*(names or ZERO))
    assert not bad, f"{bad}\n" + "\n".join(figures.notes) + f"\nall figures: {dict(figures.counts)}"
