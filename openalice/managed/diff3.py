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

Whether two edits overlap depends on how each side's diff against the base
aligns its lines, and where several alignments are equally short, git's
choice is not the one a plain longest-common-subsequence would make.  The
diff below therefore follows the same rules as git's default (Myers) diff:
common head and tail trimmed first; base lines with no counterpart on the
other side, and frequent lines inside runs of those, set aside as changed
before the search; the middle-snake bisection with its forward-first
tie-breaks; then each change group slid as far down as its lines allow and
back up to line up with a change on the other side.  The merge benchmark
(``bench/bench_harness.py``) and ``tests/managed/test_diff3.py`` check the
verdicts against ``git merge-file`` on random edit triples.

Lines are split on ``\\n`` only and keep their endings, so a last line
without a newline differs from the same line with one, as in git.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MergeResult", "merge3", "diff_lines", "split_lines"]

MARKER_SIZE = 7
_MAX_EQLIMIT = 1024          # frequent-line threshold cap
_SIMSCAN_WINDOW = 100        # how far the frequent-line scan looks either way
_KPDIS_RUN = 4               # a frequent line is set aside inside runs this sparse
_MAX_COST_MIN = 256          # below this edit cost the search is exact
_HEUR_MIN_COST = 256
_SNAKE_CNT = 20
_K_HEUR = 4
_LINE_MAX = (1 << 62)
_ALNUM = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True)
class MergeResult:
    clean: bool
    text: str
    conflicts: int


def split_lines(text: str) -> list[str]:
    """Lines with their ``\\n`` (the last one may lack it); ``""`` has none."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def _isqrt_approx(n: int) -> int:
    # The square-root estimate the frequent-line and cost limits are based on.
    i = 1
    while n > 0:
        i <<= 1
        n >>= 2
    return i


# -- the diff ---------------------------------------------------------------------------------------

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
        _Search(ka, kb, keep_a, keep_b, self.ca, self.cb).run()

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
    limit = min(_isqrt_approx(n), _MAX_EQLIMIT)
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


class _Search:
    """Myers' middle-snake bisection over the considered lines."""

    def __init__(self, ka, kb, keep_a, keep_b, ca, cb) -> None:
        self.ha = [ka[i] for i in keep_a]
        self.hb = [kb[i] for i in keep_b]
        self.ia, self.ib = keep_a, keep_b
        self.ca, self.cb = ca, cb
        n, m = len(self.ha), len(self.hb)
        size = n + m + 3
        self.offset = m + 1
        self.fwd = [0] * size
        self.bwd = [0] * size
        self.max_cost = max(_isqrt_approx(size), _MAX_COST_MIN)

    def run(self) -> None:
        stack = [(0, len(self.ha), 0, len(self.hb), False)]
        while stack:
            off1, lim1, off2, lim2, need_min = stack.pop()
            self.compare(off1, lim1, off2, lim2, need_min, stack)

    def compare(self, off1, lim1, off2, lim2, need_min, stack) -> None:
        ha, hb = self.ha, self.hb
        while off1 < lim1 and off2 < lim2 and ha[off1] == hb[off2]:
            off1 += 1
            off2 += 1
        while off1 < lim1 and off2 < lim2 and ha[lim1 - 1] == hb[lim2 - 1]:
            lim1 -= 1
            lim2 -= 1
        if off1 == lim1:
            for j in range(off2, lim2):
                self.cb[self.ib[j] + 1] = 1
        elif off2 == lim2:
            for i in range(off1, lim1):
                self.ca[self.ia[i] + 1] = 1
        else:
            s1, s2, min_lo, min_hi = self.split(off1, lim1, off2, lim2, need_min)
            # The lower half is done first (pushed last).
            stack.append((s1, lim1, s2, lim2, min_hi))
            stack.append((off1, s1, off2, s2, min_lo))

    def split(self, off1, lim1, off2, lim2, need_min):
        ha, hb, o = self.ha, self.hb, self.offset
        kf, kb = self.fwd, self.bwd
        dmin, dmax = off1 - lim2, lim1 - off2
        fmid, bmid = off1 - off2, lim1 - lim2
        odd = (fmid - bmid) & 1
        fmin = fmax = fmid
        bmin = bmax = bmid
        kf[fmid + o] = off1
        kb[bmid + o] = lim1
        ec = 0
        while True:
            ec += 1
            got_snake = False
            if fmin > dmin:
                fmin -= 1
                kf[fmin - 1 + o] = -1
            else:
                fmin += 1
            if fmax < dmax:
                fmax += 1
                kf[fmax + 1 + o] = -1
            else:
                fmax -= 1
            for d in range(fmax, fmin - 1, -2):
                if kf[d - 1 + o] >= kf[d + 1 + o]:
                    i1 = kf[d - 1 + o] + 1
                else:
                    i1 = kf[d + 1 + o]
                prev = i1
                i2 = i1 - d
                while i1 < lim1 and i2 < lim2 and ha[i1] == hb[i2]:
                    i1 += 1
                    i2 += 1
                if i1 - prev > _SNAKE_CNT:
                    got_snake = True
                kf[d + o] = i1
                if odd and bmin <= d <= bmax and kb[d + o] <= i1:
                    return i1, i2, True, True
            if bmin > dmin:
                bmin -= 1
                kb[bmin - 1 + o] = _LINE_MAX
            else:
                bmin += 1
            if bmax < dmax:
                bmax += 1
                kb[bmax + 1 + o] = _LINE_MAX
            else:
                bmax -= 1
            for d in range(bmax, bmin - 1, -2):
                if kb[d - 1 + o] < kb[d + 1 + o]:
                    i1 = kb[d - 1 + o]
                else:
                    i1 = kb[d + 1 + o] - 1
                prev = i1
                i2 = i1 - d
                while i1 > off1 and i2 > off2 and ha[i1 - 1] == hb[i2 - 1]:
                    i1 -= 1
                    i2 -= 1
                if prev - i1 > _SNAKE_CNT:
                    got_snake = True
                kb[d + o] = i1
                if not odd and fmin <= d <= fmax and i1 <= kf[d + o]:
                    return i1, i2, True, True
            if need_min:
                continue
            if got_snake and ec > _HEUR_MIN_COST:
                found = self._good_forward(ec, fmin, fmax, fmid, off1, lim1, off2, lim2)
                if found:
                    return found[0], found[1], True, False
                found = self._good_backward(ec, bmin, bmax, bmid, off1, lim1, off2, lim2)
                if found:
                    return found[0], found[1], False, True
            if ec >= self.max_cost:
                return self._furthest(fmin, fmax, bmin, bmax, off1, lim1, off2, lim2)

    # Past the heuristic cost the search settles for a long diagonal run...
    def _good_forward(self, ec, fmin, fmax, fmid, off1, lim1, off2, lim2):
        ha, hb, kf, o = self.ha, self.hb, self.fwd, self.offset
        best, found = 0, None
        for d in range(fmax, fmin - 1, -2):
            dd = d - fmid if d > fmid else fmid - d
            i1 = kf[d + o]
            i2 = i1 - d
            v = (i1 - off1) + (i2 - off2) - dd
            if (v > _K_HEUR * ec and v > best and off1 + _SNAKE_CNT <= i1 < lim1
                    and off2 + _SNAKE_CNT <= i2 < lim2):
                k = 1
                while ha[i1 - k] == hb[i2 - k]:
                    if k == _SNAKE_CNT:
                        best, found = v, (i1, i2)
                        break
                    k += 1
        return found

    def _good_backward(self, ec, bmin, bmax, bmid, off1, lim1, off2, lim2):
        ha, hb, kb, o = self.ha, self.hb, self.bwd, self.offset
        best, found = 0, None
        for d in range(bmax, bmin - 1, -2):
            dd = d - bmid if d > bmid else bmid - d
            i1 = kb[d + o]
            i2 = i1 - d
            v = (lim1 - i1) + (lim2 - i2) - dd
            if (v > _K_HEUR * ec and v > best and off1 < i1 <= lim1 - _SNAKE_CNT
                    and off2 < i2 <= lim2 - _SNAKE_CNT):
                k = 0
                while ha[i1 + k] == hb[i2 + k]:
                    if k == _SNAKE_CNT - 1:
                        best, found = v, (i1, i2)
                        break
                    k += 1
        return found

    # ... and past the cost limit for the furthest-reaching path.
    def _furthest(self, fmin, fmax, bmin, bmax, off1, lim1, off2, lim2):
        kf, kb, o = self.fwd, self.bwd, self.offset
        fbest = fbest1 = -1
        for d in range(fmax, fmin - 1, -2):
            i1 = min(kf[d + o], lim1)
            i2 = i1 - d
            if lim2 < i2:
                i1, i2 = lim2 + d, lim2
            if fbest < i1 + i2:
                fbest, fbest1 = i1 + i2, i1
        bbest = bbest1 = _LINE_MAX
        for d in range(bmax, bmin - 1, -2):
            i1 = max(off1, kb[d + o])
            i2 = i1 - d
            if i2 < off2:
                i1, i2 = off2 + d, off2
            if i1 + i2 < bbest:
                bbest, bbest1 = i1 + i2, i1
        if (lim1 + lim2) - bbest < fbest - (off1 + off2):
            return fbest1, fbest - fbest1, True, False
        return bbest1, bbest - bbest1, False, True


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


# -- the merge --------------------------------------------------------------------------------------

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
        script = _Diff(local[h.i1:h.i1 + h.n1], incoming[h.i2:h.i2 + h.n2]).script()
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
    s1 = _Diff(b, l).script()
    s2 = _Diff(b, i).script()
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
