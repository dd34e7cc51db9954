"""Human or ``--json`` output, and the error envelope.

With ``--json`` a verb prints exactly one JSON document on stdout: the result
shaped by its schema in ``spec/``, or for a handled error::

    {"error": {"code": "<slug>", "message": "<text>", "exit": N, ...}}

Human text goes to stdout for results and stderr for diagnostics.  Colour is
used only on a terminal and never when ``NO_COLOR`` is set.  Every human text
passes through :func:`printable` (the one escaping function): what an agent,
a wrapper or a file says cannot drive the terminal.  JSON is never escaped
beyond JSON's own rules.
"""

from __future__ import annotations

import sys

from .errors import AliceError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from collections.abc import Callable
    from typing import Any, TextIO

__all__ = ["to_json", "emit", "emit_error", "warn", "diagnostic", "use_color", "style", "table",
           "printable", "yes_no", "EXIT_CODES", "json_document", "page_hint"]

#: The default ``error.code`` of a non-zero exit whose verb names none.
EXIT_CODES = {1: "failed", 2: "invalid", 3: "unavailable", 4: "forbidden"}


def to_json(data: Any, *, indent: int | None = 2, compact: bool = False) -> str:
    """The one JSON printer: a ``--json`` document on stdout, and (through
    :func:`openalice.core.fs.dump_json`) a state file.  UTF-8, not ASCII-escaped.
    ``compact``: one line with no spaces at all (a JSONL record, a bulk listing,
    a request body); ``indent`` is then ignored."""
    import json  # lazy: a text report needs neither json nor re (the scan's floor)

    if compact:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(data, indent=indent, ensure_ascii=False)


def _colour():
    # lazy: only text that carries colour marks (they start with a NUL) or a
    # diagnostic line needs the colour module; a read verb's JSON never does
    from . import colour

    return colour


def use_color(stream: TextIO) -> bool:
    """Colour on ``stream``: :func:`openalice.core.colour.enabled`."""
    return _colour().enabled(stream)


def style(text: str, name: str, stream: TextIO | None = None) -> str:
    """``text`` marked in colour ``name`` (shown by :func:`emit` on a terminal only)."""
    return _colour().paint(text, name, stream)


def emit(data: Any, *, json_mode: bool, human: Callable[[Any], str] | str | None = None,
         stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    if json_mode:
        out.write(to_json(data) + "\n")
        return
    if human is None:
        text = to_json(data)
    elif callable(human):
        text = human(data)
    else:
        text = human
    if text:
        text = printable(text)
        if "\x00" in text:  # colour marks (core.colour): escape sequences on a terminal only
            text = _colour().apply(text, out)
        out.write(text if text.endswith("\n") else text + "\n")


def json_document(result: Any, exit_code: int, *, code: str | None = None,
                  message: str | None = None) -> Any:
    """The one ``--json`` rule: what a verb prints for ``result`` (None: it
    has no result document) when it exits with ``exit_code``.

    Exit 0 prints the result as it is.  Any other exit (1-4) carries an
    ``"error"`` member shaped like the envelope's (``code``, ``message``,
    ``exit``): a result document (``validate``, ``health``...) keeps its
    shape and gains ``"error"``; without a result the envelope alone is
    printed.  A result that already has an ``"error"`` keeps it."""
    if exit_code == 0:
        return result
    error = {"code": code or EXIT_CODES.get(exit_code, "failed"),
             "message": message or f"exited {exit_code}: see the result", "exit": exit_code}
    if result is None:
        return {"error": error}
    if isinstance(result, dict):
        if isinstance(result.get("error"), dict):
            return result
        return {**result, "error": error}
    return {"error": {**error, "details": {"result": result}}}


def emit_error(err: AliceError, *, json_mode: bool, prog: str,
               stdout: TextIO | None = None, stderr: TextIO | None = None) -> None:
    if json_mode:
        (stdout or sys.stdout).write(to_json({"error": err.to_dict()}) + "\n")
        return
    errs = stderr or sys.stderr
    errs.write(diagnostic(prog, "error", str(err), errs))
    hint = err.details.get("hint") if err.details else None
    if hint:
        errs.write(diagnostic(prog, "hint", hint, errs))


def warn(message: str, *, prog: str = "alice", stream: TextIO | None = None) -> None:
    errs = stream or sys.stderr
    errs.write(diagnostic(prog, "warning", message, errs))


_LABELS = {"error": "bold-red", "warning": "yellow", "hint": "cyan", "note": "dim"}


def diagnostic(prog: str, label: str, message: str, stream: TextIO | None = None) -> str:
    """One stderr line, ``prog: label: message``, escaped; the label in colour
    on a terminal (``error`` red, ``warning`` yellow, ``hint`` cyan)."""
    stream = sys.stderr if stream is None else stream
    colour = _colour()
    marked = colour.paint(f"{label}:", _LABELS.get(label, "bold"), stream)
    return colour.apply(f"{prog}: {marked} " + printable(message), stream) + "\n"


_unsafe_re = None


def _unsafe():
    global _unsafe_re
    if _unsafe_re is None:     # compiled on first use, not at import
        import re  # lazy: plain text never needs it (see printable)

        # C0 controls but tab and newline, DEL, C1 controls, bidirectional marks and
        # overrides (text shown in another order than it is stored), lone surrogates.
        _unsafe_re = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                                "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
    return _unsafe_re


def _escape(match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` safe to show on a terminal: an escape sequence, a carriage
    return, a bidirectional override or a lone surrogate becomes a visible
    ``\\x1b`` / ``\\u202e``; newlines and tabs stay (``\\r\\n`` becomes a newline).
    The colour marks of :mod:`.colour` are kept for :func:`emit` to show."""
    if not isinstance(text, str):
        text = str(text)
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text  # plain ASCII without controls: nothing to escape (and no `re` to import)
    if "\x00" not in text:  # no colour mark can be in it
        return _unsafe().sub(_escape, text.replace("\r\n", "\n"))
    colour = _colour()
    return "".join(_unsafe().sub(_escape, segment.replace("\r\n", "\n")) if kind is None
                   else colour.paint_mark(kind) for segment, kind in colour.split_marks(text))


def yes_no(value: Any) -> str:
    """A value for a human line: ``yes``/``no`` for booleans, ``-`` for None."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return "-" if value is None else str(value)


def table(rows: list[list[str]], headers: list[str] | None = None) -> str:
    """Plain left-aligned columns (no colour) for human listings."""
    all_rows = ([headers] if headers else []) + rows
    if not all_rows:
        return ""
    # A coloured cell (colour.state) is as wide as its text: the marks take no column.
    width = _colour().width if any("\x00" in str(c) for r in all_rows for c in r) else len
    widths = [max(width(str(r[i])) for r in all_rows) for i in range(len(all_rows[0]))]
    lines = []
    for row in all_rows:
        cells = [str(c) + " " * (w - width(str(c))) for c, w in zip(row, widths)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def page_hint(command: str, page: dict, items: str, *, before: str | None = None) -> str:
    """The line under a page of a ``--before`` listing (``hasMore``/``nextBefore``): the command
    that prints the next page, or what an empty page means; "" when there is nothing to say."""
    if not page[items]:
        return f"no {items}" + (" (unknown --before id?)" if before else "")
    return f"more: {command} --before {page['nextBefore']}" if page["hasMore"] else ""
