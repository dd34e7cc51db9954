"""Writing frontmatter: :func:`dumps` serializes a mapping to the subset,
:func:`compose` makes a new file, :func:`render` rewrites a parsed one
keeping every entry it was not asked to change."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .model import MAX_DEPTH, MAX_INT_DIGITS, Document, FrontmatterError
from .reader import parse
from .scalars import MISSING

_UNSAFE = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff"


@functools.cache
def _writer_patterns() -> tuple[re.Pattern, ...]:
    """Patterns only the writer needs, compiled on first use to keep imports cheap."""
    # Strings a YAML 1.2 core-schema reader or a YAML 1.1 reader (PyYAML and
    # its kin) would turn into something else when written plain.
    not_a_string = re.compile("|".join([
        r"~|null|Null|NULL|true|True|TRUE|false|False|FALSE",
        r"yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N|=|<<",
        r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+",
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        r"[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
        r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?",
        r"[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?",
        r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+).*)?",
    ]))
    plain_safe = re.compile(
        "[^\\s\\-?:,\\[\\]{}#&*!|>'\"%@`" + _UNSAFE + "]"
        "(?:[^\t\n" + _UNSAFE + "]*[^\\s:" + _UNSAFE + "])?")
    needs_escape = re.compile('["\\\\' + _UNSAFE + "]")
    # Tabs, CRs and escapes; trailing spaces on a line; two final newlines;
    # a first line that starts with a space; nothing but newlines.
    block_unsafe = re.compile("[\t\r" + _UNSAFE.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f") + "]"
                              "|[ ]\n|[ ]\\Z|\n\n\\Z|\\A\n*(?:[ ]|\\Z)")
    surrogate = re.compile("[\ud800-\udfff]")
    return not_a_string, plain_safe, needs_escape, block_unsafe, surrogate


_SHORT_ESCAPES = {
    "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v",
    "\f": "\\f", "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\",
    "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P",
}


def dumps(data: dict) -> str:
    """Serialize a mapping to the subset; ``loads(dumps(d)) == d``.

    Values may be str, int, float, bool, None, list and dict (str keys).
    Nested collections use block style, empty ones ``[]`` and ``{}``; a
    string is quoted whenever a YAML 1.2 or YAML 1.1 reader would read the
    plain text as something else.  Raises TypeError for other types and
    ValueError for nesting deeper than :data:`MAX_DEPTH` (cycles included).
    """
    if not isinstance(data, dict):
        raise TypeError(f"dumps() wants a dict, not {type(data).__name__}")
    if not data:
        return "{}\n"
    out: list[str] = []
    _emit_mapping(data, 0, out, 1, True)
    return "".join(out)


def compose(data: dict, body: str) -> str:
    """A new file: ``---``, ``dumps(data)``, ``---``, a blank line and ``body``.

    Leading and trailing newlines of ``body`` are dropped and one final
    newline is added; an empty body leaves the file ending at the fence.
    """
    body = body.replace("\r\n", "\n").strip("\n")
    head = "---\n" + dumps(data) + "---\n"
    return head + "\n" + body + "\n" if body else head


def render(doc: Document, updates: dict, *, remove: Iterable[str] = ()) -> str:
    """The whole file with ``updates`` applied and the keys in ``remove`` gone.

    Untouched entries keep their raw text, comments included, and their
    order; an updated key is re-serialized in place under the comments above
    it (kept as is when the new value equals the old one); a removed key
    goes with the comment lines directly above it; new keys are appended in
    the order given.  The body is kept exactly, and so are the file's BOM and
    CRLF line ends (``doc.bom``, ``doc.newline``).

    The result is re-parsed before it is returned.  When the kept text and
    the new text interact (a ``|`` block followed by an indented comment, a
    ``|+`` block followed by blank lines), simpler forms are tried in turn:
    double-quoted strings, then dropping blank lines between entries, and
    last a fresh serialization of the whole mapping without comments.
    """
    updates = dict(updates)
    removed = set(remove)
    for key in list(updates) + list(removed):
        if not isinstance(key, str):
            raise TypeError(f"frontmatter keys must be strings, not {type(key).__name__}")
    clash = removed.intersection(updates)
    if clash:
        raise ValueError(f"keys both updated and removed: {sorted(clash)}")
    expected = {k: v for k, v in doc.data.items() if k not in removed}
    expected.update(updates)
    return _as_written(doc, _render_lf(doc, updates, removed, expected))


def _as_written(doc: Document, text: str) -> str:
    """``text`` (LF, no BOM) with the BOM and line ends of the file ``doc`` came from."""
    if doc.newline != "\n":
        text = text.replace("\n", doc.newline)
    return "\ufeff" + text if doc.bom else text


def _render_lf(doc: Document, updates: dict, removed: set, expected: dict) -> str:
    fresh = "---\n" + dumps(expected) + "---\n" + doc.body
    if not doc.entries:
        return fresh
    for block, tight in ((True, False), (False, False), (False, True)):
        text = _render_entries(doc, updates, removed, block, tight)
        try:
            check = parse(text, max_bytes=None)
        except FrontmatterError:
            continue
        if _same(check.data, expected) and check.body == doc.body:
            return text
    return fresh


def _render_entries(doc: Document, updates: dict, removed: set, block: bool,
                    tight: bool) -> str:
    pieces = []
    indent = 0
    for entry in doc.entries:
        key = entry.key
        lines = entry.raw.split("\n")[:-1]
        key_at = entry.key_line - entry.start
        indent = len(lines[key_at]) - len(lines[key_at].lstrip(" "))
        if key in removed:
            detached = lines[:entry.comment_line - entry.start]
            if any(line.strip(" \t") for line in detached):
                pieces.append("".join(line + "\n" for line in detached))
        elif key in updates and not _same(doc.data.get(key, MISSING), updates[key]):
            pieces.append("".join(line + "\n" for line in lines[:key_at])
                          + _dump_pair(key, updates[key], indent, block))
        else:
            pieces.append(entry.raw)
    pieces.append(doc.trailer)
    known = doc.data.keys()
    for key, value in updates.items():
        if key not in known:
            pieces.append(_dump_pair(key, value, indent, block))
    if tight:   # blank lines carry no data, except after a `|+` block
        pieces = [_drop_leading_blank_lines(piece) for piece in pieces]
    return "---\n" + "".join(pieces) + "---\n" + doc.body


def _drop_leading_blank_lines(text: str) -> str:
    while text and text.split("\n", 1)[0].strip(" \t") == "":
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return text


def _dump_pair(key: str, value: object, indent: int, block: bool) -> str:
    out: list[str] = []
    _emit_mapping({key: value}, 0, out, 1, block)
    text = "".join(out)
    if indent:
        pad = " " * indent
        text = "\n".join(pad + line if line else line for line in text.split("\n"))
    return text


def _emit_mapping(data: dict, indent: int, out: list, depth: int, block: bool) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"cannot serialize nesting deeper than {MAX_DEPTH} levels")
    pad = " " * indent
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(f"frontmatter keys must be strings, not {type(key).__name__}")
        head = pad + _string(key, 0, False) + ":"
        if isinstance(value, dict) and value:
            out.append(head + "\n")
            _emit_mapping(value, indent + 2, out, depth + 1, block)
        elif isinstance(value, (list, tuple)) and value:
            out.append(head + "\n")
            _emit_sequence(value, indent + 2, out, depth + 1, block)
        else:
            out.append(head + " " + _scalar(value, indent + 2, block) + "\n")


def _emit_sequence(items, indent: int, out: list, depth: int, block: bool) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"cannot serialize nesting deeper than {MAX_DEPTH} levels")
    pad = " " * indent
    for value in items:
        if isinstance(value, (dict, list, tuple)) and value:
            first = len(out)
            if isinstance(value, dict):
                _emit_mapping(value, indent + 2, out, depth + 1, block)
            else:
                _emit_sequence(value, indent + 2, out, depth + 1, block)
            out[first] = pad + "- " + out[first][indent + 2:]
        else:
            out.append(pad + "- " + _scalar(value, indent + 2, block) + "\n")


def _scalar(value: object, indent: int, block: bool) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value, indent, block)
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_DIGITS * 3:
            raise ValueError("cannot serialize an int with that many digits")
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = float.__repr__(value)
        if "e" in text and "." not in text:     # YAML 1.1 floats need the dot
            text = text.replace("e", ".0e")
        return text
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, (list, tuple)):
        return "[]"
    raise TypeError(f"cannot serialize {type(value).__name__} to frontmatter")


def _string(text: str, indent: int, block: bool) -> str:
    not_a_string, plain_safe, needs_escape, block_unsafe, surrogate = _writer_patterns()
    if (plain_safe.fullmatch(text) and ": " not in text and " #" not in text
            and not text.startswith("...") and not not_a_string.fullmatch(text)):
        return text
    if surrogate.search(text):
        raise ValueError("cannot serialize a string with a lone surrogate")
    if block and "\n" in text and not block_unsafe.search(text) and (
            # A line that trims to `---` would close the frontmatter.
            "---" not in text or all(line.strip() != "---" for line in text.split("\n"))):
        pad = " " * indent
        if text.endswith("\n"):
            head, text = "|", text[:-1]
        else:
            head = "|-"
        return head + "".join("\n" + pad + line if line else "\n" for line in text.split("\n"))
    return '"' + needs_escape.sub(_escape, text) + '"'


def _escape(m: re.Match) -> str:
    ch = m.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


_KINDS = ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
          (dict, "dict"), (list, "list"), (tuple, "list"))


def _kind(value: object) -> str:
    if value is None:
        return "none"
    for cls, kind in _KINDS:
        if isinstance(value, cls):
            return kind
    return type(value).__name__


def _same(a: object, b: object) -> bool:
    """Equality that tells True from 1 and 1 from 1.0, and lets NaN equal NaN."""
    kind = _kind(a)
    if kind != _kind(b):
        return False
    if kind == "dict":
        return len(a) == len(b) and all(k in b and _same(v, b[k]) for k, v in a.items())
    if kind == "list":
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if kind == "float" and a != a:
        return b != b
    return a == b
