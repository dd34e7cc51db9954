"""The frontmatter value model: a parsed :class:`Document`, its :class:`Entry`
slices, :class:`FrontmatterError` and the limits the reader enforces."""

from __future__ import annotations

from ..errors import InvalidInput
from ..records import field, record_class

MAX_BYTES = 64 * 1024
MAX_DEPTH = 64

# Python refuses to turn longer decimal strings into ints (sys.int_info).
MAX_INT_DIGITS = 4300


class FrontmatterError(InvalidInput):
    """The file or its YAML is malformed; ``details["line"]`` says where."""

    default_code = "frontmatter"

    @property
    def line(self) -> int | None:
        return self.details.get("line")


@record_class
class Entry:
    """One top-level key as written in the source.

    ``raw`` is the exact text of lines ``start``..``end`` (1-based file line
    numbers, inclusive, LF line endings): the blank and comment lines above
    the key since the previous entry, the key line and its value's lines.
    ``comment_line`` is the first of the comment lines directly above the key
    (equal to ``key_line`` when there are none).
    """

    key: str
    start: int
    end: int
    key_line: int
    comment_line: int
    raw: str


@record_class
class Document:
    """A parsed file: the mapping, the raw body and the source of each entry.

    ``trailer`` holds blank and comment lines after the last entry.  ``bom``
    and ``newline`` record how the file was written (a leading BOM; ``"\\r\\n"``
    when every line ended so): the text here is always LF without a BOM, and
    :func:`render` writes the file back the way it came.
    """

    data: dict
    body: str
    entries: list[Entry] = field(default_factory=list)
    trailer: str = ""
    bom: bool = False
    newline: str = "\n"

    def __getattr__(self, name: str):
        # parse() leaves entries and trailer to be cut on first use: readers
        # that only want the data (most of them) never pay for them.
        if name in ("entries", "trailer"):
            pending = self.__dict__.pop("_pending", None)
            if pending is not None:
                self.entries, self.trailer = _entries(*pending)
                return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


def error_at(line: int, message: str, path: str | None) -> FrontmatterError:
    return FrontmatterError(f"line {line}: {message}", file=path, details={"line": line})


def _entries(lines: list[str], ind: list[int], record: list) -> tuple[list[Entry], str]:
    """Cut the frontmatter lines into one raw slice per top-level key."""
    entries = []
    prev = 0
    count = len(lines)
    last = len(record) - 1
    for n, (key, key_i, end) in enumerate(record):
        # Indented comment lines right after a value describe that value.
        if end < count and ind[end] == -1:
            indent = ind[key_i]
            stop = record[n + 1][1] if n < last else count
            while end < stop and ind[end] == -1 and lines[end][:indent + 1].isspace() \
                    and lines[end].strip(" \t"):
                end += 1
        comment_i = key_i
        while comment_i > prev and ind[comment_i - 1] == -1 and lines[comment_i - 1].strip(" \t"):
            comment_i -= 1
        entries.append(Entry(key, prev + 2, end + 1, key_i + 2, comment_i + 2,
                             "\n".join(lines[prev:end]) + "\n"))
        prev = end
    trailer = "\n".join(lines[prev:]) + "\n" if prev < count else ""
    return entries, trailer
