"""Sections a test directory adds to the end of the terminal report.

A directory's conftest fills ``section(title)`` with ``(text, markup)`` lines in
its ``pytest_sessionfinish``; tests/conftest.py prints them.  Under pytest-xdist
the tests ran in the workers, which the controller never sees: each worker hands
its sections over (``workeroutput``) and the controller prints them once.
"""

from __future__ import annotations

SECTIONS: dict[str, list[tuple[str, dict]]] = {}


def section(title: str) -> list[tuple[str, dict]]:
    """The lines of section ``title`` (created empty)."""
    return SECTIONS.setdefault(title, [])


def merge(sections: dict) -> None:
    """Add a worker's sections, leaving out lines already there (every worker
    reports the same install state)."""
    for title, lines in sections.items():
        mine = section(title)
        for text, markup in lines:
            if (text, markup) not in mine:
                mine.append((text, markup))
