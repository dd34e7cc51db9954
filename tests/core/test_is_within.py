"""``core.paths.is_within``: containment by path components, never by string prefix."""

import pytest

from openalice.core.paths import is_within


@pytest.mark.parametrize("child,parent", [
    ("/w/notes", "/w/notes"),
    ("/w/notes/", "/w/notes"),
    ("/w/notes/a", "/w/notes"),
    ("/w/notes/a/b.md", "/w/notes/"),
    ("/w/notes/./a", "/w/notes"),
    ("/", "/"),
    ("/w", "/"),
])
def test_inside(child, parent):
    assert is_within(child, parent)


@pytest.mark.parametrize("child,parent", [
    ("/w/notes2", "/w/notes"),          # the sibling sharing a prefix
    ("/w/notes2/a", "/w/notes"),
    ("/w/notes-old", "/w/notes"),
    ("/w/note", "/w/notes"),
    ("/w", "/w/notes"),                 # the parent is not inside its child
    ("/w/notes/../notes2", "/w/notes"),  # taken literally, then normalized
    ("/x/notes", "/w/notes"),
])
def test_not_inside(child, parent):
    assert not is_within(child, parent)
