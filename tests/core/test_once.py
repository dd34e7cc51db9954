"""core.once: inside a report block an answer is computed once; outside, every time."""

from __future__ import annotations

import os

import pytest

from openalice.core import executables, once


def test_an_answer_is_computed_once_per_block_and_blocks_nest():
    calls = []

    def ask():
        calls.append(1)
        return {"n": len(calls)}

    assert once.remembered("q", 1, ask) == {"n": 1}
    assert once.remembered("q", 1, ask) == {"n": 2}  # outside a block: every time
    with once.report():
        first = once.remembered("q", 1, ask)
        assert once.remembered("q", 1, ask) is first
        assert once.remembered("q", 2, ask) is not first  # another key
        assert once.remembered("other", 1, ask) is not first  # another question
        with once.report():
            assert once.remembered("q", 1, ask) is first  # the outer block's answer
        assert once.remembered("q", 1, ask) is first
    assert len(calls) == 5
    once.remembered("q", 1, ask)
    assert len(calls) == 6  # the block's answers are gone with it


def test_an_exception_is_not_remembered():
    outcomes = iter([ValueError("first"), "second"])

    def ask():
        value = next(outcomes)
        if isinstance(value, Exception):
            raise value
        return value

    with once.report():
        with pytest.raises(ValueError):
            once.remembered("q", 0, ask)
        assert once.remembered("q", 0, ask) == "second"


def test_which_is_looked_up_once_per_report(tmp_path):
    tool = tmp_path / "some-agent"
    with once.report():
        assert executables.which("some-agent", path=str(tmp_path)) is None
        tool.write_text("#!/bin/sh\n")
        os.chmod(tool, 0o755)
        assert executables.which("some-agent", path=str(tmp_path)) is None  # as at the block's start
        assert executables.which("some-agent", path=f"{tmp_path}{os.pathsep}/nowhere") == str(tool)
    assert executables.which("some-agent", path=str(tmp_path)) == str(tool)  # the next report sees it


def test_which_on_the_default_path_keys_by_the_path_in_force(tmp_path, monkeypatch):
    tool = tmp_path / "some-agent"
    tool.write_text("#!/bin/sh\n")
    os.chmod(tool, 0o755)
    with once.report():
        monkeypatch.setenv("PATH", "/nowhere")
        assert executables.which("some-agent") is None
        monkeypatch.setenv("PATH", str(tmp_path))
        assert executables.which("some-agent") == str(tool)
