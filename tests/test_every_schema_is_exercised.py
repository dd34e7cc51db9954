"""Every schema in spec/ is used by at least one test (so it is checked
against real output or real files somewhere)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_schema_is_named_in_a_test():
    tests_text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py")
                           if p.name != Path(__file__).name)
    missing = []
    for path in sorted((ROOT / "spec").glob("*.schema.json")):
        name = path.name[: -len(".schema.json")]
        if not re.search(rf"""["']{re.escape(name)}["']|{re.escape(path.name)}""", tests_text):
            missing.append(name)
    assert missing == []
