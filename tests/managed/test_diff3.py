"""The diff3 merge: its decisions and output agree with ``git merge-file``."""

from __future__ import annotations

import random
import shutil

import pytest

from openalice.managed.diff3 import diff_lines, merge3, split_lines

from .triples import GitMergeFile, frequent_line_triple, triples

BASE = "".join(f"line {i}\n" for i in range(1, 11))


def edit(text: str, number: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[number - 1] = new + "\n"
    return "".join(lines)


def test_edits_far_apart_merge_cleanly():
    local = edit(BASE, 2, "line 2, edited in the workspace")
    incoming = edit(BASE, 8, "line 8, changed in the template")
    result = merge3(BASE, local, incoming)
    assert result.clean and result.conflicts == 0
    assert result.text == edit(local, 8, "line 8, changed in the template")


def test_overlapping_and_touching_edits_conflict_like_git():
    same_line = merge3(BASE, edit(BASE, 5, "mine"), edit(BASE, 5, "theirs"))
    assert not same_line.clean and same_line.conflicts == 1
    assert "<<<<<<< workspace\nmine\n=======\ntheirs\n>>>>>>> template\n" in same_line.text
    # Adjacent lines touch: git calls that a conflict too.
    touching = merge3(BASE, edit(BASE, 5, "mine"), edit(BASE, 6, "theirs"))
    assert not touching.clean


def test_the_same_edit_on_both_sides_is_no_conflict():
    both = edit(BASE, 3, "both")
    assert merge3(BASE, both, both) == merge3(BASE, both, both)
    result = merge3(BASE, both, both)
    assert result.clean and result.text == both


def test_one_side_unchanged_takes_the_other():
    changed = edit(BASE, 4, "x")
    assert merge3(BASE, BASE, changed).text == changed
    assert merge3(BASE, changed, BASE).text == changed


def test_lines_split_on_newline_only():
    assert split_lines("a\r\nb\x0bc\u2028d") == ["a\r\n", "b\x0bc\u2028d"]
    assert split_lines("") == [] and split_lines("x\n") == ["x\n"]
    # A last line without a newline differs from the same line with one.
    assert diff_lines(["a\n", "b"], ["a\n", "b\n"]) == [(1, 1, 1, 1)]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed as the oracle (.ci/run installs it)")
def test_agrees_with_git_merge_file_on_seeded_random_triples():
    oracle = GitMergeFile()
    disagreements = []
    clean = conflicted = 0
    try:
        for n, (base, local, incoming) in enumerate(triples(20261130, 300)):
            count, text = oracle.merge(base, local, incoming)
            result = merge3(base, local, incoming)
            clean += count == 0
            conflicted += count > 0
            if (count == 0) != result.clean or text != result.text or count != result.conflicts:
                disagreements.append((n, base, local, incoming, count, result))
    finally:
        oracle.close()
    assert disagreements == []
    assert clean > 50 and conflicted > 50   # both outcomes are exercised


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed as the oracle (.ci/run installs it)")
def test_agrees_with_git_where_a_frequent_line_is_set_aside():
    oracle = GitMergeFile()
    rng = random.Random(1)
    try:
        cases = [frequent_line_triple(rng) for _ in range(200)]
        assert [oracle.merge(*case) for case in cases] == [
            (r.conflicts, r.text) for r in (merge3(*case) for case in cases)]
    finally:
        oracle.close()
