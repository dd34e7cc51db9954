"""Where the suite's recorded test data lives: ``tests/data/`` in this checkout.

The data is part of the repository (see ``tests/data/README.md``), so there is
nothing to find: no environment variable, no walk up the directory tree.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA", "AGENT_STREAMS", "JSON_SCHEMA_SUITE"]

DATA = Path(__file__).resolve().parent / "data"
AGENT_STREAMS = DATA / "agent-streams"
JSON_SCHEMA_SUITE = DATA / "json-schema-test-suite" / "draft2020-12"
