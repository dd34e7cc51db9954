"""The line diff under the three-way merge, with the same alignments as git's default (Myers) diff.

    hunks = diff_lines(a, b)     # [(start_a, start_b, count_a, count_b), ...]

Whether two edits overlap depends on how each side's diff against the base
aligns its lines, and where several alignments are equally short, git's
choice is not the one a plain longest-common-subsequence would make.  This
diff therefore follows the same rules as git's default (Myers) diff:
common head and tail trimmed first; base lines with no counterpart on the
other side, and frequent lines inside runs of those, set aside as changed
before the search; the middle-snake bisection with its forward-first
tie-breaks; then each change group slid as far down as its lines allow and
back up to line up with a change on the other side.

Lines are split on ``\\n`` only and keep their endings, so a last line
without a newline differs from the same line with one, as in git.
"""

from __future__ import annotations

from .myers import MyersSearch, isqrt_approx

__all__ = ["diff_lines", "split_lines"]

_MAX_EQLIMIT = 1024          # frequent-line threshold cap
_SIMSCAN_WINDOW = 100        # how far the frequent-line scan looks either way
_KPDIS_RUN = 4               # a frequent line is set aside inside runs this sparse


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` (the last one may lack it); ``""`` has none."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


class _Diff:
    """One diff between ``a`` and ``b``: per-line "changed" flags on both sides.

    ``ca``/``cb`` hold the flag of line ``k`` at index ``k + 1`` (index 0 and
    ``n + 1`` are always-unchanged sentinels).
    """

    __slots__ = ("a", "b", "ka", "kb", "ca", "cb")

    def __init__(self, a: list[str], b: list[str]) -> None:
        self.a, self.b = a, b
        classes: dict[str, int] = {}
        self.ka = [classes.setdefault(line, len(classes)) for line in a]
        self.kb = [classes.setdefault(line, len(classes)) for line in b]
        self.ca = bytearray(len(a) + 2)
        self.cb = bytearray(len(b) + 2)
        self._diff(len(classes))
        _slide(self.ka, self.ca, self.cb)
        _slide(self.kb, self.cb, self.ca)

    def _diff(self, nclasses: int) -> None:
        ka, kb = self.ka, self.kb
        na, nb = len(ka), len(kb)
        count_a = [0] * nclasses
        count_b = [0] * nclasses
        for k in ka:
            count_a[k] += 1
        for k in kb:
            count_b[k] += 1
        # Common head and tail never take part.
        start = 0
        limit = min(na, nb)
        while start < limit and ka[start] == kb[start]:
            start += 1
        tail = 0
        while tail < limit - start and ka[na - 1 - tail] == kb[nb - 1 - tail]:
            tail += 1
        keep_a = _keep(ka, start, na - tail - 1, count_b, na, self.ca)
        keep_b = _keep(kb, start, nb - tail - 1, count_a, nb, self.cb)
        MyersSearch(ka, kb, keep_a, keep_b, self.ca, self.cb).run()

    def script(self) -> list[tuple[int, int, int, int]]:
        """Change hunks ``(start_a, start_b, count_a, count_b)`` in order."""
        ca, cb = self.ca, self.cb
        out = []
        i, j = len(self.ka), len(self.kb)
        while i >= 0 or j >= 0:
            if ca[i] or cb[j]:
                end_i, end_j = i, j
                while ca[i]:
                    i -= 1
                while cb[j]:
                    j -= 1
                out.append((i, j, end_i - i, end_j - j))
            i -= 1
            j -= 1
        out.reverse()
        return out


def _keep(keys: list[int], start: int, end: int, other_count: list[int], n: int,
          changed: bytearray) -> list[int]:
    """The indices of lines ``start..end`` that the search considers; the
    others are marked changed now: a line the other side never has, and a
    frequent line that sits in a run of such lines."""
    limit = min(isqrt_approx(n), _MAX_EQLIMIT)
    kind = {}
    for i in range(start, end + 1):
        nm = other_count[keys[i]]
        kind[i] = 0 if nm == 0 else (2 if nm >= limit else 1)
    kept = []
    for i in range(start, end + 1):
        k = kind[i]
        if k == 1 or (k == 2 and not _frequent_in_sparse_run(kind, i, start, end)):
            kept.append(i)
        else:
            changed[i + 1] = 1
    return kept


def _frequent_in_sparse_run(kind: dict, i: int, start: int, end: int) -> bool:
    lo = max(start, i - _SIMSCAN_WINDOW)
    hi = min(end, i + _SIMSCAN_WINDOW)
    unmatched_before, frequent_before = 0, 1
    r = 1
    while i - r >= lo:
        k = kind[i - r]
        if k == 0:
            unmatched_before += 1
        elif k == 2:
            frequent_before += 1
        else:
            break
        r += 1
    if unmatched_before == 0:
        return False
    unmatched_after, frequent_after = 0, 1
    r = 1
    while i + r <= hi:
        k = kind[i + r]
        if k == 0:
            unmatched_after += 1
        elif k == 2:
            frequent_after += 1
        else:
            break
        r += 1
    if unmatched_after == 0:
        return False
    unmatched = unmatched_before + unmatched_after
    frequent = frequent_before + frequent_after
    return frequent * _KPDIS_RUN < frequent + unmatched


def _slide(keys: list[int], mine: bytearray, other: bytearray) -> None:
    """Slide each change group of one side down as far as its lines allow,
    merging groups it runs into, then back up to end where a change group
    of the other side ends, if it passed one."""
    n = len(keys)
    # Groups are [start, end) in line numbers; flags of line k live at k + 1.
    # The other side does not change here: its groups are walked through the
    # list of its unchanged lines (group u ends at unchanged[u]).
    unchanged = [j for j in range(len(other) - 2) if not other[j + 1]]
    unchanged.append(len(other) - 2)
    u = 0

    def other_group() -> tuple[int, int]:
        return (unchanged[u - 1] + 1 if u else 0), unchanged[u]

    start = end = 0
    while mine[end + 1]:
        end += 1
    while True:
        if end != start:
            while True:
                size = end - start
                matching_end = -1
                while start > 0 and keys[start - 1] == keys[end - 1]:
                    start -= 1
                    mine[start + 1] = 1
                    end -= 1
                    mine[end + 1] = 0
                    while mine[start]:
                        start -= 1
                    u -= 1
                earliest_end = end
                ostart, oend = other_group()
                if oend > ostart:
                    matching_end = end
                while end < n and keys[start] == keys[end]:
                    mine[start + 1] = 0
                    start += 1
                    mine[end + 1] = 1
                    end += 1
                    while mine[end + 1]:
                        end += 1
                    u += 1
                    ostart, oend = other_group()
                    if oend > ostart:
                        matching_end = end
                if size == end - start:
                    break
            if end != earliest_end and matching_end != -1:
                ostart, oend = other_group()
                while oend == ostart:
                    start -= 1
                    mine[start + 1] = 1
                    end -= 1
                    mine[end + 1] = 0
                    while mine[start]:
                        start -= 1
                    u -= 1
                    ostart, oend = other_group()
        if end == n:
            break
        # Skip the empty groups (one per unchanged line) up to the next change.
        flag = mine.find(1, end + 2, n + 1)
        if flag < 0:
            break
        nxt = flag - 1
        u += nxt - end
        start = end = nxt
        while mine[end + 1]:
            end += 1


def diff_lines(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """The change hunks turning ``a`` into ``b``: ``(start_a, start_b, count_a, count_b)``."""
    return _Diff(a, b).script()
