"""docs/architecture.md's capability table points one hop to the files: every
module it names must exist (a split or a deletion that forgets the table goes red)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "openalice"


def table_rows() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("| capability | docs | modules")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def named_paths(row: str) -> list[str]:
    return [t for t in re.findall(r"`([^`\s]+)`", row) if t.endswith((".py", "/", ".html"))]


def exists(token: str) -> bool:
    """A token is a path below openalice/ (`core/fs.py`, `core/git/`), or the bare
    name of a module inside a package named earlier in the row (`reader.py`)."""
    if (PACKAGE / token).exists():
        return True
    name = token.rstrip("/")
    return any(p.name == name for p in PACKAGE.rglob(name))


def test_the_table_has_every_capability_row():
    rows = table_rows()
    assert len(rows) >= 25
    assert all(named_paths(r) for r in rows), [r for r in rows if not named_paths(r)]


def test_every_module_the_table_names_exists():
    missing = [(row.split("|")[1].strip(), token) for row in table_rows()
               for token in named_paths(row) if not exists(token)]
    assert not missing, missing


def test_every_domain_package_is_in_the_table():
    named = " ".join(table_rows())
    packages = [p.name for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").exists() and p.name not in ("core", "cli")]
    absent = [name for name in packages if f"`{name}/" not in named]
    assert not absent, absent
