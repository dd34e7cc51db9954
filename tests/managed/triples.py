"""Random edit triples (base, local, incoming) and ``git merge-file`` as the oracle.

Shared by tests/managed/test_diff3.py and bench/bench_harness.py.  Three kinds
of text, so both easy and ambiguous alignments occur: lines that are all
different, lines from a tiny alphabet (many equal lines, the hard case), and
code-like lines with braces and blank lines.  Edits replace, insert and delete
runs of lines; sometimes a side loses its final newline.
"""

from __future__ import annotations

import os
import random
import subprocess
import tempfile
from pathlib import Path

__all__ = ["triple", "triples", "GitMergeFile"]

LABELS = ("workspace", "base", "template")


def _edit(rng: random.Random, lines: list[str], alphabet: list[str], edits: int) -> list[str]:
    out = list(lines)
    for _ in range(edits):
        op = rng.random()
        pos = rng.randint(0, len(out))
        if op < 0.35 and out:
            out[min(pos, len(out) - 1)] = rng.choice(alphabet)
        elif op < 0.65:
            for _ in range(rng.randint(1, 3)):
                out.insert(pos, rng.choice(alphabet))
        elif out:
            pos = min(pos, len(out) - 1)
            del out[pos:pos + rng.randint(1, 3)]
    return out


def triple(rng: random.Random, *, max_lines: int = 40) -> tuple[str, str, str]:
    kind = rng.random()
    if kind < 0.34:
        alphabet = [f"line {i}\n" for i in range(1000)]
        base = [f"line {i}\n" for i in rng.sample(range(1000), rng.randint(0, max_lines))]
    elif kind < 0.67:
        alphabet = ["a\n", "b\n", "c\n", "d\n", "}\n", "\n", "x\n"]
        base = [rng.choice(alphabet) for _ in range(rng.randint(0, max_lines))]
    else:
        alphabet = ["a\n", "b\n", "\n", "{\n", "}\n"] + [f"word{i}\n" for i in range(30)]
        base = [rng.choice(alphabet) for _ in range(rng.randint(0, max_lines))]
    local = _edit(rng, base, alphabet, rng.randint(0, 4))
    incoming = _edit(rng, base, alphabet, rng.randint(0, 4))
    texts = ["".join(base), "".join(local), "".join(incoming)]
    for n in range(3):
        if texts[n] and rng.random() < 0.1:
            texts[n] = texts[n][:-1]  # no final newline
    return texts[0], texts[1], texts[2]


def triples(seed: int, count: int, **kwargs) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    return [triple(rng, **kwargs) for _ in range(count)]


class GitMergeFile:
    """``git merge-file -p`` outside any repository, with no user config."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="merge-oracle-"))
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.dir),
                    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}

    def merge(self, base: str, local: str, incoming: str) -> tuple[int, str]:
        """(number of conflicts, merged text) as git reports them."""
        paths = []
        for name, text in (("local", local), ("base", base), ("incoming", incoming)):
            path = self.dir / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        proc = subprocess.run(["git", "merge-file", "-p", "-L", LABELS[0], "-L", LABELS[1], "-L", LABELS[2],
                               *paths], capture_output=True, env=self.env, cwd=self.dir)
        if proc.returncode < 0 or proc.returncode > 127:
            raise RuntimeError(proc.stderr.decode())
        return proc.returncode, proc.stdout.decode("utf-8")

    def close(self) -> None:
        for child in self.dir.iterdir():
            child.unlink()
        self.dir.rmdir()


def frequent_line_triple(rng: random.Random) -> tuple[str, str, str]:
    """A base line that is frequent on one side and sits among lines the other
    side does not have: git sets such a line aside before aligning, which
    changes where the hunks fall (and so the merged text)."""
    base = ([f"b{j}\n" for j in range(rng.randint(2, 8))] + ["a\n"]
            + [f"c{j}\n" for j in range(rng.randint(2, 8))])
    local = [f"x{j}\n" if rng.random() < 0.3 else "a\n" for j in range(rng.randint(3, 12))]
    incoming = list(base)
    incoming.insert(rng.randint(0, len(incoming)), "new\n")
    if rng.random() < 0.5:
        incoming[rng.randrange(len(incoming))] = "changed\n"
    return "".join(base), "".join(local), "".join(incoming)
