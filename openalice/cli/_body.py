"""``--body TEXT`` / ``--body-file PATH|-``: the text a verb takes as its body
(an issue, a comment, an Inbox report), read the one way every such verb reads it."""

from __future__ import annotations

import sys

from openalice.core import fs
from openalice.core.errors import InvalidInput

__all__ = ["read_body"]


def read_body(args, *, max_bytes: int) -> str | None:
    """``args.body``, else the file ``args.body_file`` names (``-``: stdin),
    else None.  At most ``max_bytes`` bytes of UTF-8 (exit 2 naming the
    source otherwise); a named file is followed if it is a symlink (a person
    named it)."""
    if getattr(args, "body", None) is not None:
        return args.body
    source = getattr(args, "body_file", None)
    if source is None:
        return None
    if source == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        where = "<stdin>"
    else:
        data = fs.read_bytes(source, max_bytes=max_bytes, follow_symlinks=True)
        where = source
    if len(data) > max_bytes:
        raise InvalidInput(f"body is larger than {max_bytes} bytes", file=where, field="body",
                           code="too_large")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"body is not UTF-8 text (byte {exc.start})", file=where, field="body",
                           code="not_utf8") from None
