"""Two things every tool shares: the exit-code footer of ``--help``
(``cli._run.exit_codes_help``, one table) and the ``--body``/``--body-file``
reader (``cli._body.read_body``)."""

from __future__ import annotations

import io
import re
import sys
from types import SimpleNamespace

import pytest

from openalice.cli import _run, adapter, alice, harness, inbox, schedule
from openalice.cli._body import read_body
from openalice.core.errors import InvalidInput
from tests.conftest import REPO


def test_the_exit_code_table_is_the_one_in_conventions():
    text = (REPO / "docs" / "conventions.md").read_text()
    rows = dict(re.findall(r"^\| (\d) \| ([^|]+?) \|", text, flags=re.M))
    assert {int(k): v for k, v in rows.items()} == _run.EXIT_CODES


@pytest.mark.parametrize("tool", [alice, schedule, inbox, harness, adapter])
def test_every_tool_help_ends_with_the_footer(tool):
    footer = tool.HELP[tool.HELP.index("exit codes:"):].split("\nenvironment:")[0]
    assert footer.startswith("exit codes: 0 ok, ")
    assert all(len(line) <= 78 for line in footer.splitlines())
    for code, meaning in _run.EXIT_CODES.items():
        if f" {code} " in " ".join(footer.split()):
            assert f"{code} {meaning.split()[0]}" in footer


def test_the_footer_wraps_between_words_and_keeps_a_code_with_its_word():
    assert _run.exit_codes_help() == ("exit codes: 0 ok, 1 operational failure, 2 usage or invalid input,\n"
                                      "            3 unavailable or busy, 4 forbidden")
    narrow = _run.exit_codes_help({3: "unavailable"}, codes=(0, 3), width=20, indent=2)
    assert narrow == "exit codes: 0 ok,\n  3 unavailable"


def _args(body=None, body_file=None):
    return SimpleNamespace(body=body, body_file=body_file)


def test_body_from_the_flag_a_file_or_stdin(tmp_path, monkeypatch):
    assert read_body(_args(body="inline"), max_bytes=10) == "inline"
    assert read_body(_args(), max_bytes=10) is None
    (tmp_path / "b.md").write_text("from file\n")
    (tmp_path / "link.md").symlink_to(tmp_path / "b.md")  # a person named it: followed
    assert read_body(_args(body_file=str(tmp_path / "link.md")), max_bytes=100) == "from file\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("é piped".encode())))
    assert read_body(_args(body_file="-"), max_bytes=100) == "é piped"


@pytest.mark.parametrize("data,code", [(b"x" * 11, "too_large"), (b"\xff\xfe", "not_utf8")])
def test_a_bad_body_is_exit_2_naming_its_source(tmp_path, monkeypatch, data, code):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with pytest.raises(InvalidInput) as err:
        read_body(_args(body_file="-"), max_bytes=10)
    assert (err.value.code, err.value.file, err.value.field, err.value.exit_code) == (code, "<stdin>", "body", 2)
    (tmp_path / "bad").write_bytes(data)
    with pytest.raises(InvalidInput) as err:
        read_body(_args(body_file=str(tmp_path / "bad")), max_bytes=10)
    assert err.value.code == code and str(tmp_path / "bad") in str(err.value.file)
