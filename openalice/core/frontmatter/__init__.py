"""Markdown frontmatter: split a file, read the YAML subset it uses, write it back.

A file is ``---`` / YAML / ``---`` / body.  The YAML is read with YAML 1.2
core-schema semantics (the rules of the npm ``yaml`` package the original
TypeScript reader used): ``2026-11-30`` stays a string, ``yes`` stays a
string, ``title: 2026`` is the int 2026.  Everything the subset does not
cover (anchors, aliases, tags, directives, complex keys, merge keys,
duplicate keys, tab indentation, nesting deeper than :data:`MAX_DEPTH`)
raises :class:`FrontmatterError` with the line number; nothing is guessed.

The writer keeps what a person wrote: :func:`render` re-serializes only the
keys it is asked to change and copies every other top-level entry, comments
included, byte for byte.  See ``docs/frontmatter.md``.

One job per module:

- ``model``: the value model (:class:`Document`, :class:`Entry`), the error
  and the limits;
- ``reader``: :func:`parse` and :func:`loads` (decoding, size and character
  checks, the fence split);
- ``parser``: the block-structure parser, composed of ``values`` (plain and
  block scalars), ``quoted`` (quoted scalars) and ``flow`` (flow
  collections); ``scalars`` holds the core-schema tables they share;
- ``writer``: :func:`dumps`, :func:`compose` and :func:`render`.
"""

from __future__ import annotations

from .model import MAX_BYTES, MAX_DEPTH, Document, Entry, FrontmatterError
from .reader import loads, parse
from .writer import compose, dumps, render

__all__ = [
    "FrontmatterError", "MAX_BYTES", "MAX_DEPTH", "Entry", "Document",
    "parse", "loads", "dumps", "render", "compose",
]
