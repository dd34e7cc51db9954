"""Every module under openalice/ stays within the 400-line budget.

The budget is met by drawing seams (a module per job), so a file that grows past
it is a sign that two jobs share it; this test names the file and its length.
"""

from __future__ import annotations

from pathlib import Path

BUDGET = 400
PACKAGE = Path(__file__).resolve().parent.parent / "openalice"


def module_lengths() -> dict[str, int]:
    lengths = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_symlink() or any(part.startswith(".") for part in path.relative_to(PACKAGE).parts):
            continue
        with path.open("rb") as handle:
            lengths[str(path.relative_to(PACKAGE.parent))] = sum(1 for _ in handle)
    return lengths


def test_every_module_is_within_the_budget():
    over = {name: n for name, n in module_lengths().items() if n > BUDGET}
    assert not over, f"modules over {BUDGET} lines (split them along their seams): {over}"


def test_the_budget_check_sees_the_modules():
    lengths = module_lengths()
    assert "openalice/cli/alice.py" in lengths and lengths["openalice/cli/alice.py"] > 0
    assert len(lengths) > 100
