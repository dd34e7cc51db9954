"""A fuzz of every parser: 2,000 generated inputs, every one handled."""

from tests.reliability.conftest import assert_zero
from tests.reliability.fuzz import fuzz, targets


def test_two_thousand_inputs_over_every_parser(base):
    figures = fuzz(base, inputs=2000, seed=2016)
    assert figures["fuzz: inputs"] == 2000
    assert figures["fuzz: exit 2"] > 500 and figures["fuzz: exit 0"] > 100, dict(figures.counts)
    assert_zero(figures)


def test_the_fuzz_covers_every_state_file_kind():
    kinds = {t.kind for t in targets({"session": "s", "entry": "e", "task": "t", "catalog": "c"})}
    assert kinds == {"json", "jsonl", "markdown", "env", "binary"}
