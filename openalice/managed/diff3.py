"""Three-way line merge (diff3) that decides like ``git merge-file``.

    result = merge3(base, local, incoming)
    result.clean          # True: no overlapping edits
    result.text           # the merged text (with conflict markers when not clean)
    result.conflicts      # number of conflict hunks

Two edits conflict when they overlap *or touch* in the base; identical edits
on both sides are not a conflict; a conflict whose two sides share lines is
narrowed to the lines that really differ, and conflicts separated by at most
three lines (or by lines without a letter or digit) are joined.  Those are the
rules of git's merge (``XDL_MERGE_ZEALOUS_ALNUM``, the ``git merge-file``
default), so a user sees the same verdict here as from git.

The line diff each side is aligned with is :mod:`.linediff` (git's Myers
rules).  The merge benchmark (``bench/bench_harness.py``) and
``tests/managed/test_diff3.py`` check the verdicts against ``git merge-file``
on random edit triples.
"""

from __future__ import annotations

from openalice.core import patterns
from openalice.core.records import record_class

from .linediff import diff_lines, split_lines

__all__ = ["MergeResult", "merge3", "diff_lines", "split_lines"]

MARKER_SIZE = 7
_ALNUM = patterns.compile(r"[A-Za-z0-9]")


@record_class(frozen=True)
class MergeResult:
    clean: bool
    text: str
    conflicts: int


class _Hunk:
    __slots__ = ("mode", "i0", "n0", "i1", "n1", "i2", "n2")

    # mode: 0 conflict, 1 local only, 2 incoming only, 4 identical on both sides
    def __init__(self, mode, i0, n0, i1, n1, i2, n2) -> None:
        self.mode, self.i0, self.n0, self.i1, self.n1, self.i2, self.n2 = mode, i0, n0, i1, n1, i2, n2


def _append(hunks: list[_Hunk], mode, i0, n0, i1, n1, i2, n2) -> None:
    last = hunks[-1] if hunks else None
    if last is not None and (i1 <= last.i1 + last.n1 or i2 <= last.i2 + last.n2):
        if mode != last.mode:
            last.mode = 0
        last.n0 = i0 + n0 - last.i0
        last.n1 = i1 + n1 - last.i1
        last.n2 = i2 + n2 - last.i2
    else:
        hunks.append(_Hunk(mode, i0, n0, i1, n1, i2, n2))


def _combine(base: list[str], local: list[str], incoming: list[str], s1, s2) -> list[_Hunk]:
    """Walk both sides' change hunks (against the base) in order: a hunk that
    overlaps or touches one of the other side is a conflict, unless both made
    the very same change."""
    len_base, len_local, len_incoming = len(base), len(local), len(incoming)
    hunks: list[_Hunk] = []
    a = b = 0
    while a < len(s1) and b < len(s2):
        x0, x1, xn0, xn1 = s1[a]
        y0, y2, yn0, yn2 = s2[b]
        if x0 + xn0 < y0:
            _append(hunks, 1, x0, xn0, x1, xn1, y2 - y0 + x0, xn0)
            a += 1
            continue
        if y0 + yn0 < x0:
            _append(hunks, 2, y0, yn0, x1 - x0 + y0, yn0, y2, yn2)
            b += 1
            continue
        if x0 != y0 or xn0 != yn0 or xn1 != yn2 or local[x1:x1 + xn1] != incoming[y2:y2 + yn2]:
            off = x0 - y0
            ffo = off + xn0 - yn0
            i0, i1, i2 = x0, x1, y2
            if off > 0:
                i0 -= off
                i1 -= off
            else:
                i2 += off
            n0 = x0 + xn0 - i0
            n1 = x1 + xn1 - i1
            n2 = y2 + yn2 - i2
            if ffo < 0:
                n0 -= ffo
                n1 -= ffo
            else:
                n2 += ffo
            _append(hunks, 0, i0, n0, i1, n1, i2, n2)
        end1 = x0 + xn0
        end2 = y0 + yn0
        if end1 >= end2:
            b += 1
        if end2 >= end1:
            a += 1
    # Past the other side's last change the offset between them is the whole length difference.
    for x0, x1, xn0, xn1 in s1[a:]:
        _append(hunks, 1, x0, xn0, x1, xn1, x0 + len_incoming - len_base, xn0)
    for y0, y2, yn0, yn2 in s2[b:]:
        _append(hunks, 2, y0, yn0, y0 + len_local - len_base, yn0, y2, yn2)
    return hunks


def _narrow(local: list[str], incoming: list[str], hunks: list[_Hunk]) -> list[_Hunk]:
    """Split each conflict at the lines both sides share: only the lines that
    really differ stay in conflict, and identical sides are no conflict."""
    out: list[_Hunk] = []
    for h in hunks:
        if h.mode != 0 or h.n1 == 0 or h.n2 == 0:
            out.append(h)
            continue
        script = diff_lines(local[h.i1:h.i1 + h.n1], incoming[h.i2:h.i2 + h.n2])
        if not script:
            h.mode = 4
            out.append(h)
            continue
        for j1, j2, c1, c2 in script:
            out.append(_Hunk(0, h.i0, h.n0, h.i1 + j1, c1, h.i2 + j2, c2))
    return out


def _join_close_conflicts(local: list[str], hunks: list[_Hunk]) -> None:
    """Join conflicts separated by at most three lines, or by lines with no
    letter or digit: one conflict reads better than two."""
    k = 0
    while k + 1 < len(hunks):
        m, nxt = hunks[k], hunks[k + 1]
        begin, end = m.i1 + m.n1, nxt.i1
        if (m.mode != 0 or nxt.mode != 0
                or (end - begin > 3 and any(_ALNUM.search(line) for line in local[begin:end]))):
            k += 1
            continue
        m.n1 = nxt.i1 + nxt.n1 - m.i1
        m.n2 = nxt.i2 + nxt.n2 - m.i2
        del hunks[k + 1]


def _crlf(lines: list[str], i: int) -> int:
    """1 if line ``i`` ends in CRLF, 0 if in LF, -1 when it cannot be told."""
    n = len(lines)
    if i < n - 1:
        return int(lines[i].endswith("\r\n"))
    if not n:
        return -1
    if lines[i].endswith("\n"):
        return int(lines[i].endswith("\r\n"))
    if not i:
        return -1
    return int(lines[i - 1].endswith("\r\n"))


def _needs_cr(base: list[str], local: list[str], incoming: list[str], h: _Hunk) -> bool:
    needs = _crlf(local, h.i1 - 1 if h.i1 else 0)
    if needs:
        needs = _crlf(incoming, h.i2 - 1 if h.i2 else 0)
    if needs:
        needs = _crlf(base, 0)
    return needs > 0


def _with_newline(lines: list[str], cr: bool) -> list[str]:
    if lines and not lines[-1].endswith("\n"):
        return lines[:-1] + [lines[-1] + ("\r\n" if cr else "\n")]
    return lines


def merge3(base: str, local: str, incoming: str, *, labels: tuple[str, str] = ("workspace", "template")
           ) -> MergeResult:
    """Merge the edits base→local and base→incoming.

    Clean when no two edits overlap or touch; otherwise ``text`` holds git's
    conflict markers (``<<<<<<< workspace`` / ``=======`` / ``>>>>>>> template``)
    around the lines that differ.
    """
    b, l, i = split_lines(base), split_lines(local), split_lines(incoming)
    s1 = diff_lines(b, l)
    s2 = diff_lines(b, i)
    if not s1:
        return MergeResult(True, incoming, 0)
    if not s2:
        return MergeResult(True, local, 0)
    hunks = _narrow(l, i, _combine(b, l, i, s1, s2))
    _join_close_conflicts(l, hunks)
    out: list[str] = []
    pos = 0
    conflicts = 0
    for h in hunks:
        if h.mode == 4:
            continue
        out.extend(l[pos:h.i1])
        if h.mode == 0:
            conflicts += 1
            cr = "\r\n" if _needs_cr(b, l, i, h) else "\n"
            out.append("<" * MARKER_SIZE + " " + labels[0] + cr)
            out.extend(_with_newline(l[h.i1:h.i1 + h.n1], cr == "\r\n"))
            out.append("=" * MARKER_SIZE + cr)
            out.extend(_with_newline(i[h.i2:h.i2 + h.n2], cr == "\r\n"))
            out.append(">" * MARKER_SIZE + " " + labels[1] + cr)
        elif h.mode == 1:
            out.extend(l[h.i1:h.i1 + h.n1])
        else:
            out.extend(i[h.i2:h.i2 + h.n2])
        pos = h.i1 + h.n1
    out.extend(l[pos:])
    return MergeResult(conflicts == 0, "".join(out), conflicts)
