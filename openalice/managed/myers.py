"""The middle-snake bisection of Myers' diff, with git's forward-first tie-breaks and its
cost heuristics (``xdl_split`` in git's xdiff): marks the changed lines of both sides."""

from __future__ import annotations

_MAX_COST_MIN = 256          # below this edit cost the search is exact
_HEUR_MIN_COST = 256
_SNAKE_CNT = 20
_K_HEUR = 4
_LINE_MAX = (1 << 62)


def isqrt_approx(n: int) -> int:
    # The square-root estimate the frequent-line and cost limits are based on.
    i = 1
    while n > 0:
        i <<= 1
        n >>= 2
    return i


class MyersSearch:
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
        self.max_cost = max(isqrt_approx(size), _MAX_COST_MIN)

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
