"""Reading a file: decode it, check size and characters, split the fences,
parse the YAML (:mod:`.parser`) and hand back a :class:`~.model.Document`."""

from __future__ import annotations

from openalice.core import patterns

from .model import MAX_BYTES, Document, FrontmatterError, error_at
from .parser import Parser


def parse(source: bytes | str, *, max_bytes: int | None = MAX_BYTES,
          path: str | None = None) -> Document:
    """Split ``source`` into frontmatter and body and parse the frontmatter.

    ``source`` may be bytes (must be UTF-8) or str.  The size cap is checked
    before anything is decoded.  The body is everything after the closing
    ``---`` line, with CRLF turned into LF; it is not trimmed.
    """
    text = _decode(source, max_bytes, path)
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    crlf = False
    if "\r" in text:
        crlf = text.count("\r\n") == text.count("\n")
        text = text.replace("\r\n", "\n")
    nl = text.find("\n")
    first = text if nl < 0 else text[:nl]
    if first.strip() != "---":
        raise error_at(1, "missing YAML frontmatter (expected a leading `---` block)", path)
    if nl < 0:
        raise error_at(1, "unclosed frontmatter (no closing `---` line)", path)
    start = nl + 1
    pos = start
    while True:
        k = text.find("---", pos)
        if k < 0:
            raise error_at(1, "unclosed frontmatter (no closing `---` line)", path)
        line_start = text.rfind("\n", 0, k) + 1
        line_end = text.find("\n", k)
        if line_end < 0:
            line_end = len(text)
        if text[line_start:line_end].strip() == "---":
            break
        pos = line_end
    body = text[line_end + 1:]
    yaml_text = text[start:line_start]
    _check_characters(yaml_text, 2, path)
    lines = yaml_text.split("\n")
    lines.pop()  # the empty string after the last newline
    parser = Parser(lines, 2, True, path)
    record: list = []
    data = parser.document(record)
    if not isinstance(data, dict):
        # Point at the first line of content, or at the opening fence if there is none.
        line = next((i + 2 for i, k in enumerate(parser.ind) if k != -1), 1)
        raise error_at(line, "frontmatter is not a mapping", path)
    if not record:      # a top-level flow mapping: nothing line-shaped to keep
        return Document(data, body, [], "", bom, "\r\n" if crlf else "\n")
    doc = object.__new__(Document)
    doc.data = data
    doc.body = body
    if bom:
        doc.bom = True
    if crlf:
        doc.newline = "\r\n"
    doc._pending = (lines, parser.ind, record)     # see Document.__getattr__
    return doc


def loads(text: str) -> object:
    """Parse a bare YAML-subset document (no ``---`` fences) into a value.

    Empty input (or only comments) is ``None``.  Line numbers in errors count
    from 1 at the start of ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"loads() wants str, not {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    _check_characters(text, 1, None)
    lines = text.split("\n")
    final_newline = lines[-1] == ""
    if final_newline:
        lines.pop()
    return Parser(lines, 1, final_newline, None).document(None)


def _decode(source: bytes | str, max_bytes: int | None, path: str | None) -> str:
    if isinstance(source, str):
        if max_bytes is not None and len(source) * 4 > max_bytes:
            size = len(source) if source.isascii() else len(source.encode("utf-8", "surrogatepass"))
            _check_size(size, max_bytes, path)
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if max_bytes is not None:
            _check_size(len(data), max_bytes, path)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise error_at(line, f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x} "
                               f"at offset {exc.start})", path) from None
    raise TypeError(f"parse() wants bytes or str, not {type(source).__name__}")


def _check_size(size: int, max_bytes: int, path: str | None) -> None:
    if size > max_bytes:
        raise FrontmatterError(f"file too large ({size} bytes; limit {max_bytes})",
                               file=path, details={"bytes": size, "limit": max_bytes})


# C0/C1 controls, DEL, lone surrogates, non-characters, a CR without LF, and
# the Unicode line separators that YAML 1.1 readers treat as line breaks.
_BAD_CHARACTER = patterns.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]")


def _check_characters(text: str, base: int, path: str | None) -> None:
    m = _BAD_CHARACTER.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + base
        ch = m.group()
        what = "carriage return without line feed" if ch == "\r" else f"character U+{ord(ch):04X}"
        raise error_at(line, f"{what} is not allowed in YAML "
                           f"(write it as an escape in a double-quoted string)", path)
