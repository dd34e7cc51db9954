"""Tests for openalice.core.frontmatter: splitting, the YAML subset, refusals, the writer."""

from __future__ import annotations

import copy
import math
import pickle
import random
import re
import string

import pytest

from openalice.core import frontmatter as fm
from openalice.core.errors import InvalidInput
from openalice.core.frontmatter import (
    MAX_BYTES,
    MAX_DEPTH,
    Document,
    Entry,
    FrontmatterError,
    compose,
    dumps,
    loads,
    parse,
    render,
)


def strict_equal(a, b) -> bool:
    """== that also tells True from 1 from 1.0 and compares key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def refused(text: str, *, line: int, message: str, loader=loads) -> FrontmatterError:
    """Assert that ``loader(text)`` raises at ``line`` with a message containing ``message``."""
    with pytest.raises(FrontmatterError) as info:
        loader(text)
    err = info.value
    assert err.details["line"] == line, err.message
    assert err.message.startswith(f"line {line}: "), err.message
    assert message in err.message, err.message
    return err


# ---------------------------------------------------------------------------
# Splitting a file

ISSUE = """---
title: Nightly report
status: todo
---

Body paragraph.
"""


def test_parse_splits_frontmatter_and_body():
    doc = parse(ISSUE)
    assert doc.data == {"title": "Nightly report", "status": "todo"}
    assert doc.body == "\nBody paragraph.\n"
    assert [e.key for e in doc.entries] == ["title", "status"]


def test_bytes_bom_and_crlf_are_accepted():
    raw = ("\ufeff" + ISSUE).replace("\n", "\r\n").encode("utf-8")
    doc = parse(raw)
    assert doc.data == {"title": "Nightly report", "status": "todo"}
    assert doc.body == "\nBody paragraph.\n"
    assert parse("\ufeff" + ISSUE).data == doc.data


def test_fences_are_trimmed():
    doc = parse("---  \ntitle: x\n  ---\t\nbody")
    assert doc.data == {"title": "x"}
    assert doc.body == "body"


def test_a_rule_in_the_body_is_body():
    text = "---\ntitle: x\n---\nintro\n\n---\n\nafter the rule\n---\n"
    doc = parse(text)
    assert doc.data == {"title": "x"}
    assert doc.body == "intro\n\n---\n\nafter the rule\n---\n"


def test_a_dashes_value_does_not_close_the_block():
    doc = parse("---\ntitle: x---y\nnote: '---'\n---\n")
    assert doc.data == {"title": "x---y", "note": "---"}
    assert doc.body == ""


def test_closing_fence_at_end_of_file():
    assert parse("---\na: 1\n---").body == ""


def test_missing_frontmatter():
    for text in ("title: x\n", "", "# Heading\n---\na: 1\n---\n", "----\na: 1\n----\n"):
        refused(text, line=1, loader=parse,
                message="missing YAML frontmatter (expected a leading `---` block)")


def test_unclosed_frontmatter():
    refused("---\ntitle: x\n", line=1, loader=parse, message="unclosed frontmatter")
    refused("---", line=1, loader=parse, message="unclosed frontmatter")


def test_empty_frontmatter_is_not_a_mapping():
    refused("---\n---\nbody", line=1, loader=parse, message="frontmatter is not a mapping")
    refused("---\n# only a comment\n\n---\n", line=1, loader=parse,
            message="frontmatter is not a mapping")


@pytest.mark.parametrize("yaml_text", ["- a\n- b\n", "just text\n", "'quoted'\n", "[a, b]\n", "42\n"])
def test_top_level_must_be_a_mapping(yaml_text):
    refused(f"---\n\n{yaml_text}---\n", line=3, loader=parse, message="frontmatter is not a mapping")


def test_top_level_flow_mapping_is_a_mapping():
    doc = parse("---\n{title: x, status: todo}\n---\nbody\n")
    assert doc.data == {"title": "x", "status": "todo"}
    assert doc.entries == []


def test_error_carries_file_code_and_exit():
    with pytest.raises(FrontmatterError) as info:
        parse("---\na: [1\n---\n", path="ws/.alice/issues/x.md")
    err = info.value
    assert isinstance(err, InvalidInput)
    assert err.code == "frontmatter" and err.exit_code == 2
    assert err.file == "ws/.alice/issues/x.md"
    assert err.line == 2
    assert str(err) == "ws/.alice/issues/x.md: line 2: unterminated flow sequence (missing `]`)"
    assert err.to_dict()["details"] == {"line": 2}


def test_invalid_utf8_is_an_error_with_its_line():
    err = refused(b"---\ntitle: ok\nnote: \xff\xfe\n---\n", line=3, loader=parse,
                  message="file is not valid UTF-8 (byte 0xff at offset 20)")
    assert err.code == "frontmatter"


def test_binary_garbage_is_an_error_not_a_crash():
    rng = random.Random(7)
    refusals = 0
    for _ in range(200):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        for source in (blob, b"---\n" + blob + b"\n---\n"):
            try:
                assert isinstance(parse(source), Document)
            except FrontmatterError as err:
                assert re.match(r"line \d+: ", err.message)
                refusals += 1
    assert refusals == 400


def test_control_characters_in_yaml_are_refused():
    refused("---\ntitle: a\x00b\n---\n", line=2, loader=parse, message="character U+0000 is not allowed")
    refused("a: 1\nb: x\ry\n", line=2, message="carriage return without line feed")
    refused("a: \u2028\n", line=1, message="character U+2028")
    # The body is not YAML and is left alone.
    assert parse("---\na: 1\n---\n\x00\x01").body == "\x00\x01"


def test_size_cap_is_checked_before_decoding():
    big = b"\xff" * (10 * 1024 * 1024)     # not UTF-8 either: the cap must win
    with pytest.raises(FrontmatterError) as info:
        parse(big)
    assert info.value.message == "file too large (10485760 bytes; limit 65536)"
    assert info.value.details == {"bytes": 10485760, "limit": 65536}
    with pytest.raises(FrontmatterError, match=r"file too large \(10485760 bytes; limit 65536\)"):
        parse("x" * (10 * 1024 * 1024))
    with pytest.raises(FrontmatterError, match=r"\(8 bytes; limit 7\)"):
        parse("---\n---\n", max_bytes=7)
    # Bytes, not characters: three-byte characters count three times.
    with pytest.raises(FrontmatterError, match=r"\(30 bytes; limit 29\)"):
        parse("日" * 10, max_bytes=29)
    assert parse(ISSUE, max_bytes=len(ISSUE)).data["status"] == "todo"
    assert MAX_BYTES == 65536


# ---------------------------------------------------------------------------
# Scalars (YAML 1.2 core schema)

@pytest.mark.parametrize("text, value", [
    ("", None), ("~", None), ("null", None), ("Null", None), ("NULL", None),
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("False", False), ("FALSE", False),
    ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("y", "y"), ("nULL", "nULL"),
    ("tRUE", "tRUE"), ("2026", 2026), ("-12", -12), ("+5", 5), ("0", 0), ("012", 12), ("0o17", 15),
    ("0x1F", 31), ("0xff", 255), ("1_000", "1_000"), ("0b101", "0b101"), ("0o8", "0o8"), ("0x", "0x"),
    ("+0x1F", "+0x1F"), ("1.5", 1.5), ("-2e3", -2000.0), ("1e3", 1000.0), ("2.5E-2", 0.025), (".5", 0.5),
    ("1.", 1.0), ("-.5", -0.5), (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
    ("1.2.3", "1.2.3"), ("2026-11-30", "2026-11-30"), ("2026-11-30T09:00:00Z", "2026-11-30T09:00:00Z"),
    ("09:30", "09:30"), ("1:30", "1:30"), ("30m", "30m"), ("none", "none"), ("<<x", "<<x"), ("=", "="),
    ("America/New_York", "America/New_York"), ("a b  c", "a b  c"), ("a#b", "a#b"),
    ("http://x.y/z?q=1#f", "http://x.y/z?q=1#f"), ("-x", "-x"), ("?x", "?x"), (":x", ":x"), ("a:b", "a:b"),
    ("x]", "x]"), ("x, y", "x, y"), ("é ü 日本 😀", "é ü 日本 😀"),
])
def test_plain_scalars_resolve_per_core_schema(text, value):
    result = loads(f"v: {text}\n")["v"]
    assert strict_equal(result, value), (text, result)


def test_nan():
    for text in (".nan", ".NaN", ".NAN"):
        assert math.isnan(loads(f"v: {text}")["v"])


def test_huge_integer_is_refused_clearly():
    assert loads("v: " + "9" * 4000)["v"] == int("9" * 4000)
    refused("a: 1\nv: " + "9" * 5000, line=2, message="integer has too many digits")


def test_quoted_scalars_stay_strings():
    data = loads("a: '2026'\nb: \"true\"\nc: 'null'\nd: ''\ne: \"\"\nf: 'it''s'\ng: '#not a comment'\n")
    assert data == {"a": "2026", "b": "true", "c": "null", "d": "", "e": "", "f": "it's", "g": "#not a comment"}


@pytest.mark.parametrize("escape, char", [
    ("\\n", "\n"), ("\\t", "\t"), ("\\\t", "\t"), ('\\"', '"'), ("\\\\", "\\"), ("\\/", "/"), ("\\0", "\0"),
    ("\\a", "\a"), ("\\b", "\b"), ("\\v", "\v"), ("\\f", "\f"), ("\\r", "\r"), ("\\e", "\x1b"), ("\\ ", " "),
    ("\\N", "\x85"), ("\\_", "\xa0"), ("\\L", "\u2028"), ("\\P", "\u2029"),
    ("\\x41", "A"), ("\\u00e9", "é"), ("\\U0001F600", "😀"), ("\\uD83D\\uDE00", "😀"),
])
def test_double_quoted_escapes(escape, char):
    assert loads(f'v: "<{escape}>"')["v"] == f"<{char}>"


@pytest.mark.parametrize("text, message", [
    ('v: "\\q"', "unknown escape `\\q`"),
    ('v: "\\x4"', "escape `\\x` needs 2 hex digits"),
    ('v: "\\uZZZZ"', "escape `\\u` needs 4 hex digits"),
    ('v: "\\uD800"', "is a lone surrogate"),
    ('v: "\\UFFFFFFFF"', "is not a Unicode code point"),
])
def test_bad_escapes(text, message):
    refused(text, line=1, message=message)


def test_multi_line_plain_scalars_fold():
    text = "a: first\n  second   \n\n  third\n\n\n  fourth # comment\nb: one\n    - two\n    [three]\n"
    assert loads(text) == {"a": "first second\nthird\n\nfourth", "b": "one - two [three]"}
    assert loads("key:\n  value on\n  two lines\n") == {"key": "value on two lines"}
    assert loads("- item\n  continued\n- 12\n  34\n") == ["item continued", "12 34"]


def test_multi_line_plain_scalar_refusals():
    refused("a: b\n  c: d\n", line=2, message="unexpected `: ` in a plain value")
    refused("a: b # comment\n  c\n", line=2, message="bad indentation")
    refused("a: b\n# comment\n  c\n", line=3, message="bad indentation")


def test_multi_line_quoted_scalars_fold():
    assert loads('a: "one\n  two  \n\n  three"\n') == {"a": "one two\nthree"}
    assert loads("a: 'one\n  two\n\n\n  three'\n") == {"a": "one two\n\nthree"}
    assert loads('a: "joined\\\n    here \\\n  kept"\n') == {"a": "joinedhere kept"}
    assert loads('a: "x\\t\n  y"\n') == {"a": "x\t y"}
    assert loads('- "a\n  b"\n') == ["a b"]


def test_unterminated_quotes():
    refused('title: "open\nstatus: todo\n', line=1, message="unterminated double-quoted string")
    refused("a: 1\ntitle: 'open\n", line=2, message="unterminated single-quoted string")
    refused('a: "never closed', line=1, message="unterminated double-quoted string")
    refused("a: 'x' y\n", line=1, message="unexpected text after the value")


# ---------------------------------------------------------------------------
# Block scalars

@pytest.mark.parametrize("header, value", [
    ("|", "line one\n  indented\n\nlast\n"),
    ("|-", "line one\n  indented\n\nlast"),
    ("|+", "line one\n  indented\n\nlast\n\n"),
    (">", "line one\n  indented\n\nlast\n"),
    (">-", "line one\n  indented\n\nlast"),
    (">+", "line one\n  indented\n\nlast\n\n"),
])
def test_block_scalar_chomping(header, value):
    text = f"v: {header}\n  line one\n    indented\n\n  last\n\nnext: 1\n"
    assert loads(text) == {"v": value, "next": 1}


def test_folded_scalar_folds_lines():
    text = "v: >\n  one\n  two\n\n  three\n    more indented\n  four\n  five\n"
    assert loads(text)["v"] == "one two\nthree\n  more indented\nfour five\n"


def test_block_scalar_details():
    assert loads("v: |2\n    two extra\n  base\n")["v"] == "  two extra\nbase\n"
    assert loads("v: |-2\n   x\n")["v"] == " x"
    assert loads("v: |\n\n\n  after blanks\n")["v"] == "\n\nafter blanks\n"
    assert loads("v: |\n  # not a comment\n  x: y\nw: 1\n") == {"v": "# not a comment\nx: y\n", "w": 1}
    assert loads("v: |  # a comment\n  x\n")["v"] == "x\n"
    assert loads("v: |\nw: 1\n") == {"v": "", "w": 1}
    assert loads("v: |+\n\n\nw: 1\n") == {"v": "\n\n", "w": 1}
    assert loads("- |\n  in a list\n- >-\n  folded\n  item\n") == ["in a list\n", "folded item"]
    assert loads("v: |\n  no final newline")["v"] == "no final newline"
    assert loads("v: >\n  a\tb\n")["v"] == "a\tb\n"


def test_block_scalar_refusals():
    refused("v: |x\n  a\n", line=1, message="invalid block scalar header")
    refused("v: |0\n  a\n", line=1, message="invalid block scalar header")
    refused("v: | text\n", line=1, message="invalid block scalar header")
    refused("v: |\n      \n  a\n", line=2, message="a leading blank line of the block scalar is indented more")


# ---------------------------------------------------------------------------
# Collections

def test_block_mappings_and_sequences():
    text = """\
title: x
when:
  kind: cron
  cron: "30 8 * * 1-5"
  nested:
    deeper: true
labels:
  - ops
  - nightly
same_indent:
- a
- b
steps:
  - name: build
    run: make
  -   name: test
      run: make test
  - - nested
    - list
  -
    late: value
  -
  - # comment
    x: 1
empty:
after: 1
"""
    assert loads(text) == {
        "title": "x",
        "when": {"kind": "cron", "cron": "30 8 * * 1-5", "nested": {"deeper": True}},
        "labels": ["ops", "nightly"],
        "same_indent": ["a", "b"],
        "steps": [{"name": "build", "run": "make"}, {"name": "test", "run": "make test"},
                  ["nested", "list"], {"late": "value"}, None, {"x": 1}],
        "empty": None,
        "after": 1,
    }


def test_keys():
    data = loads('"quoted: key": 1\n\'single\': 2\nkey with spaces: 3\n1: int-looking\ntrue: bool-looking\n'
                 '"": empty\nnull: x\na"b: 4\nkey :  5\n"esc\\tkey": 6\n')
    assert data == {"quoted: key": 1, "single": 2, "key with spaces": 3, "1": "int-looking",
                    "true": "bool-looking", "": "empty", "null": "x", 'a"b': 4, "key": 5, "esc\tkey": 6}
    assert all(type(k) is str for k in data)


def test_flow_collections():
    text = """\
when: {kind: cron, cron: "30 8 * * 1-5", timezone: America/New_York, catchUp: false}
list: [1, two, "three", 'four', [5, {six: 6}], {}, []]
trailing: [a, b, ]
nulls: {a, b: 1, c: }
json: {"a":1, "b": [true, null]}
spans: {a: 1,
  b: [x,
      y],   # comment inside
  c: 'z'
  }
words: [long plain
  words]
url: [http://x.y/z, a:b]
"""
    assert loads(text) == {
        "when": {"kind": "cron", "cron": "30 8 * * 1-5", "timezone": "America/New_York", "catchUp": False},
        "list": [1, "two", "three", "four", [5, {"six": 6}], {}, []],
        "trailing": ["a", "b"],
        "nulls": {"a": None, "b": 1, "c": None},
        "json": {"a": 1, "b": [True, None]},
        "spans": {"a": 1, "b": ["x", "y"], "c": "z"},
        "words": ["long plain words"],
        "url": ["http://x.y/z", "a:b"],
    }


@pytest.mark.parametrize("text, line, message", [
    ("a: [1, 2\nb: 3\n", 1, "unterminated flow sequence (missing `]`; lines inside a flow collection"),
    ("a: 1\nb: {x: 1,\n  y: 2\n", 2, "unterminated flow mapping (missing `}`)"),
    ("a: [1 2]\n", None, ["1 2"]),
    ('a: ["x" y]\n', 1, "expected `,` or `]`"),
    ("a: [1,, 2]\n", 1, "unexpected `,`"),
    ("a: {x: 1 y: 2}\n", 1, "unexpected `:` (a `,` may be missing before the key)"),
    ("a: {'x' 'y'}\n", 1, "expected `:`, `,` or `}`"),
    ("a: [x: 1]\n", 1, "`key: value` pairs inside a flow sequence are not supported"),
    ("a: {[x]: 1}\n", 1, "mapping keys must be plain or quoted scalars"),
    ("a: [1, 2}\n", 1, "unexpected `}` (expected `]`)"),
    ("a: {x\n  : 1}\n", 2, "the `:` after a flow mapping key must be on the key's line"),
    ("a: [?x]\n", 1, "cannot start with `?` (quote it)"),
    ("a: [|]\n", 1, "block scalars (`|`, `>`) cannot appear inside a flow collection"),
    ("a: [1] x\n", 1, "unexpected text after the value"),
    ("a: [1]: x\n", 1, "unexpected `:` after the value"),
    ("a: {x: 1, x: 2}\n", 1, "duplicate key 'x' (first defined on line 1)"),
    ("a: {x: 1,\n  x: 2}\n", 2, "duplicate key 'x' (first defined on line 1)"),
])
def test_flow_refusals(text, line, message):
    if line is None:    # looks wrong, is fine: the value is the expected result
        assert loads(text) == {"a": message}
    else:
        refused(text, line=line, message=message)


def test_comments():
    text = "# top\na: 1 # one\nb: 'x # y' # two\nc: \"#\"\nd: a#b\n  # indented comment\ne:   # nothing here\n"
    assert loads(text) == {"a": 1, "b": "x # y", "c": "#", "d": "a#b", "e": None}


def test_tabs_after_indentation_are_content():
    assert loads("a:\tb\nc: x\ty\n") == {"a": "b", "c": "x\ty"}


def test_tab_after_block_scalar_indentation_is_content():
    # Y79Y/001: once the line's indentation is reached, a tab is content.
    assert loads("foo: |\n \t\nbar: 1\n") == {"foo": "\t\n", "bar": 1}
    assert loads("foo: |\n  x\n  \t\n  y\n") == {"foo": "x\n\t\ny\n"}


# ---------------------------------------------------------------------------
# Refusals

@pytest.mark.parametrize("text, line, message", [
    ("a: 1\nb: &anchor x\n", 2, "anchors are not supported (`&anchor`)"),
    ("a: 1\nb: *alias\n", 2, "aliases are not supported (`*alias`)"),
    ("a: !custom x\n", 1, "tags are not supported (`!custom`)"),
    ("a: !!str 5\n", 1, "tags are not supported (`!!str`)"),
    ("a: [!!int 5]\n", 1, "tags are not supported (`!!int`)"),
    ("&x a: 1\n", 1, "anchors are not supported (`&x`)"),
    ("%YAML 1.2\na: 1\n", 1, "directives are not supported (`%YAML`)"),
    ("a: 1\n? complex\n: value\n", 2, "complex keys (`? `) are not supported"),
    ("base: {x: 1}\n<<: {y: 2}\n", 2, "merge keys (`<<`) are not supported"),
    ("a: 1\nb: 2\na: 3\n", 3, "duplicate key 'a' (first defined on line 1)"),
    ("x:\n  k: 1\n  # c\n  k: 2\n", 4, "duplicate key 'k' (first defined on line 2)"),
    ("- a: 1\n  a: 2\n", 2, "duplicate key 'a' (first defined on line 1)"),
    ("a:\n\tb: 1\n", 2, "tab character used for indentation (use spaces)"),
    ("a:\n  b: 1\n  \tc: 2\n", 3, "tab character used for indentation"),
    ("-\tx\n", 1, "tab character after `-`"),
    # YAML test suite Y79Y/000: a tab-only line in a block scalar is neither an empty line nor content.
    ("foo: |\n\t\nbar: 1\n", 2, "tab character in the indentation of a block scalar line (use spaces)"),
    ("foo: |\n  x\n \t\n  y\n", 3, "tab character in the indentation of a block scalar line"),
    ("foo: >-\n  x\n\t\n", 3, "tab character in the indentation of a block scalar line"),
    ("a: 1\n  b: 2\n", 2, "unexpected `: ` in a plain value"),
    ("a:\n    b: 1\n  c: 2\n", 3, "bad indentation (indented 2 spaces; expected 0)"),
    ("a: 'x'\n  b: 2\n", 2, "bad indentation (indented 2 spaces; expected 0)"),
    ("a:\n  - x\n  b: 1\n", 3, "bad indentation"),
    ("  a: 1\nb: 2\n", 2, "bad indentation (this line is outside the top-level node)"),
    ("a: b: c\n", 1, "unexpected `: ` in a plain value"),
    ("a: - b\n", 1, "a list cannot start on the same line as its key"),
    ("a: @new-then-resume\n", 1, "a plain value cannot start with `@` (quote it)"),
    ("a: `cmd`\n", 1, "a plain value cannot start with `"),
    ("a: %x\n", 1, "a plain value cannot start with `%`"),
    ("a: ,x\n", 1, "unexpected `,`"),
    ("a: 1\njust text\n", 2, "expected `key: value`"),
    ("a: 1\nb:c\n", 2, "expected `key: value` (put a space after the `:`)"),
    ("a: 1\n- item\n", 2, "expected `key: value`, found a list item"),
    ("a: 1\n'key' x: 2\n", 2, "expected `:` after the quoted key"),
    ("a: 1\n...\n", 2, "document markers (`---`, `...`) are not supported"),
    ("---\na: 1\n", 1, "document markers"),
])
def test_refusals(text, line, message):
    refused(text, line=line, message=message)


def test_refusals_report_file_lines_in_parse():
    refused("---\ntitle: x\nwhen: &w {kind: at}\n---\n", line=3, loader=parse, message="anchors are not supported")
    refused("---\ntitle: a\ntitle: b\n---\n", line=3, loader=parse,
            message="duplicate key 'title' (first defined on line 2)")
    refused("---\ntitle: x\nwhat: |\n  a\n\t\n  b\n---\n", line=5, loader=parse,
            message="tab character in the indentation of a block scalar line")


def _nested_block_mapping(depth: int) -> str:
    return "".join("  " * level + f"k{level}:\n" for level in range(depth - 1)) + "  " * (depth - 1) + "k: v\n"


def test_nesting_limit():
    assert MAX_DEPTH == 64
    assert loads(_nested_block_mapping(64))
    refused(_nested_block_mapping(65), line=65, message="nesting deeper than 64 levels")
    assert loads("a: " + "[" * 63 + "]" * 63)
    refused("a: " + "[" * 64 + "]" * 64, line=1, message="nesting deeper than 64 levels")
    refused("- " * 65 + "x\n", line=1, message="nesting deeper than 64 levels")


def test_ten_thousand_deep_flow_is_a_clear_error():
    deep = "a: " + "{a: " * 10_000 + "1" + "}" * 10_000 + "\n"
    refused(deep, line=1, message="nesting deeper than 64 levels")
    refused("---\n" + deep + "---\n", line=2, loader=parse, message="nesting deeper than 64 levels")
    refused("a: " + "[" * 10_000, line=1, message="nesting deeper than 64 levels")
    refused("- " * 10_000 + "x", line=1, message="nesting deeper than 64 levels")


def test_ten_thousand_deep_block_is_a_clear_error():
    refused(_nested_block_mapping(10_000), line=65, message="nesting deeper than 64 levels")


# ---------------------------------------------------------------------------
# loads

def test_loads_bare_documents():
    assert loads("") is None
    assert loads("# only comments\n\n") is None
    assert loads("42") == 42
    assert loads("- a\n- b") == ["a", "b"]
    assert loads("[1, 2]") == [1, 2]
    assert loads("plain\ntext") == "plain text"
    assert loads("  a: 1\n  b: 2\n") == {"a": 1, "b": 2}
    assert loads("a: 1\r\nb: 2\r\n") == {"a": 1, "b": 2}
    assert loads("\ufeffa: 1") == {"a": 1}
    with pytest.raises(TypeError):
        loads(b"a: 1")


# ---------------------------------------------------------------------------
# Entries

def test_entries_record_raw_text_and_lines():
    text = """---
# header comment
title: x  # inline

# section

# about when
when:
  kind: cron
  # indented note
status: todo
# trailing
---
body
"""
    doc = parse(text)
    title, when, status = doc.entries
    assert title == Entry("title", 2, 3, 3, 2, "# header comment\ntitle: x  # inline\n")
    assert when.key == "when" and (when.start, when.end, when.key_line, when.comment_line) == (4, 10, 8, 7)
    assert when.raw == "\n# section\n\n# about when\nwhen:\n  kind: cron\n  # indented note\n"
    assert status.raw == "status: todo\n" and status.start == status.end == status.key_line == 11
    assert doc.trailer == "# trailing\n"
    assert "---\n" + "".join(e.raw for e in doc.entries) + doc.trailer + "---\n" + doc.body == text


# ---------------------------------------------------------------------------
# dumps

def test_dumps_layout():
    data = {"title": "Nightly", "n": 3, "ratio": 0.5, "on": True, "none": None, "empty_list": [],
            "empty_map": {}, "when": {"kind": "cron", "cron": "30 8 * * 1-5"},
            "steps": [{"name": "a", "run": "x"}, ["p", "q"], "plain"], "text": "two\nlines\n"}
    assert dumps(data) == """\
title: Nightly
"n": 3
ratio: 0.5
"on": true
none: null
empty_list: []
empty_map: {}
when:
  kind: cron
  cron: 30 8 * * 1-5
steps:
  - name: a
    run: x
  - - p
    - q
  - plain
text: |
  two
  lines
"""
    assert dumps({}) == "{}\n"


@pytest.mark.parametrize("value, written", [
    ("2026", '"2026"'), ("true", '"true"'), ("null", '"null"'), ("~", '"~"'), ("yes", '"yes"'), ("Off", '"Off"'),
    ("1.5", '"1.5"'), ("1e3", '"1e3"'), (".inf", '".inf"'), ("0x1F", '"0x1F"'), ("1_000", '"1_000"'),
    ("1:30", '"1:30"'), ("2026-11-30", '"2026-11-30"'), ("", '""'), ("a: b", '"a: b"'), ("a:", '"a:"'),
    ("a #b", '"a #b"'), ("@new", '"@new"'), ("*x", '"*x"'), ("&y", '"&y"'), ("!t", '"!t"'), ("-x", '"-x"'),
    ("- x", '"- x"'), ("[a]", '"[a]"'), ("{b}", '"{b}"'), ("#c", '"#c"'), ('"q"', '"\\"q\\""'), ("'q'", '"\'q\'"'),
    ("%p", '"%p"'), ("`b", '"`b"'), ("|", '"|"'), (">", '">"'), ("?", '"?"'), (":x", '":x"'), (",", '","'),
    ("x ", '"x "'), (" x", '" x"'), ("tab\there", '"tab\\there"'), ("a\x01b", '"a\\x01b"'), ("bell\a", '"bell\\a"'),
    ("nel\x85", '"nel\\N"'), ("ls\u2028", '"ls\\L"'), ("...", '"..."'), ("<<", '"<<"'), ("=", '"="'),
    ("back\\slash", "back\\slash"), ("a#b", "a#b"), ("a:b", "a:b"), ("http://x.y/z", "http://x.y/z"),
    ("1.2.3", "1.2.3"), ("30m", "30m"), ("America/New_York", "America/New_York"), ("é 😀", "é 😀"),
    ("x\n", "|\n  x"), ("x\ny", "|-\n  x\n  y"), ("x\n\n", '"x\\n\\n"'), ("\n", '"\\n"'), (" lead\nx", '" lead\\nx"'),
    ("trail \nx", '"trail \\nx"'), ("a\r\nb", '"a\\r\\nb"'),
])
def test_dumps_quotes_when_needed(value, written):
    assert dumps({"k": value}) == f"k: {written}\n"
    assert loads(dumps({"k": value})) == {"k": value}


@pytest.mark.parametrize("value, written", [
    (0, "0"), (-7, "-7"), (10**30, str(10**30)), (1.0, "1.0"), (-0.0, "-0.0"), (1e16, "1.0e+16"),
    (1.5e-7, "1.5e-07"), (math.inf, ".inf"), (-math.inf, "-.inf"), (True, "true"), (False, "false"), (None, "null"),
])
def test_dumps_numbers(value, written):
    assert dumps({"k": value}) == f"k: {written}\n"
    assert strict_equal(loads(dumps({"k": value}))["k"], value)


def test_dumps_nan_reads_back_as_nan():
    assert dumps({"k": math.nan}) == "k: .nan\n"
    assert math.isnan(loads("k: .nan\n")["k"])


def test_dumps_refuses_what_it_cannot_write():
    with pytest.raises(TypeError):
        dumps([1, 2])
    with pytest.raises(TypeError):
        dumps({1: "int key"})
    with pytest.raises(TypeError):
        dumps({"k": {1, 2}})
    with pytest.raises(TypeError):
        dumps({"k": b"bytes"})
    with pytest.raises(ValueError, match="lone surrogate"):
        dumps({"k": "\ud800"})
    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(ValueError, match="nesting deeper than 64"):
        dumps(cyclic)
    deep: dict = {"k": "v"}
    for _ in range(64):
        deep = {"k": deep}
    with pytest.raises(ValueError, match="nesting deeper than 64"):
        dumps(deep)


TRICKY_STRINGS = [
    "", " ", "  lead", "trail  ", "a: b", "a:", ":", "a #b", "#", "- x", "-", "--", "---", "...", "? x", "?", "[", "]",
    "{", "}", ",", "&a", "*a", "!a", "|", ">", "'", '"', "%", "@", "`", "true", "False", "NULL", "~", "yes", "no",
    "on", "off", "y", "n", "0", "-1", "+1", "012", "0o7", "0x1f", "1e5", ".5", "5.", ".inf", "-.inf", ".nan", "1_0",
    "0b1", "1:20", "2026-11-30", "2026-1-2 3:04:05", "<<", "=", "multi\nline", "end\n", "two\n\n", "\n", "\nlead",
    " x\ny", "x\n y", "x \ny", "tab\t", "\ttab", "a\tb", "ctl\x00\x07\x1b\x7f\x80\x9f", "nel\x85", "\u2028\u2029",
    "\ufeffbom", "\ufffe", "nb\xa0sp", "\xa0", "é", "日本語", "😀", "back\\slash", "quote\"mid", "it's", "a#b", "a:b",
    "http://x/y", "c:\\path", "x]", "{a: 1}", "[1, 2]", "- - x", "key: value\nother: thing",
]


def random_string(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(TRICKY_STRINGS)
    alphabet = string.ascii_letters + string.digits + " :#-'\"\\[]{},&*!|>%@`?\n\t.\x01\x85é😀"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14)))


def random_value(rng: random.Random, depth: int):
    roll = rng.random()
    if depth < 6 and roll < 0.15:
        return random_mapping(rng, depth + 1)
    if depth < 6 and roll < 0.3:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if roll < 0.45:
        return rng.choice([0, -1, 7, 2026, 10**20, -(10**25), rng.randrange(-10**9, 10**9)])
    if roll < 0.55:
        return rng.choice([0.0, -0.0, 0.5, -2.25, 1e16, 1e-7, 123456.789, math.inf, -math.inf, rng.uniform(-1e6, 1e6)])
    if roll < 0.62:
        return rng.choice([True, False, None])
    return random_string(rng)


def random_mapping(rng: random.Random, depth: int = 0) -> dict:
    return {random_string(rng): random_value(rng, depth) for _ in range(rng.randrange(0, 6))}


def test_dumps_round_trips_random_data():
    rng = random.Random(20261130)
    for _ in range(400):
        data = random_mapping(rng)
        text = dumps(data)
        assert strict_equal(loads(text), data), text


# ---------------------------------------------------------------------------
# render and compose

DOC = """---
# Issue 42
title: Nightly report  # keep this comment
status: todo
priority: high

# --- scheduling ---

# when it runs
when:
  kind: cron
  cron: "30 8 * * 1-5"   # weekdays
  # catchUp: false
agent: claude
# end of frontmatter
---

Body with a rule:

---

and more.
"""


def test_render_without_changes_is_identity():
    doc = parse(DOC)
    assert render(doc, {}) == DOC
    assert render(doc, {"status": "todo", "when": doc.data["when"]}) == DOC


def test_render_updates_in_place_keeping_comments_and_body():
    doc = parse(DOC)
    out = render(doc, {"status": "done", "when": {"kind": "every", "every": "2h"}})
    assert out == DOC.replace("status: todo", "status: done").replace(
        '  kind: cron\n  cron: "30 8 * * 1-5"   # weekdays\n  # catchUp: false\n',
        "  kind: every\n  every: 2h\n")
    assert parse(out).body == doc.body


def test_render_removes_and_appends():
    doc = parse(DOC)
    out = render(doc, {"assignee": "@new-then-resume", "timeout": "30m"}, remove=["when", "priority", "absent"])
    assert out == """---
# Issue 42
title: Nightly report  # keep this comment
status: todo

# --- scheduling ---

agent: claude
# end of frontmatter
assignee: "@new-then-resume"
timeout: 30m
---

Body with a rule:

---

and more.
"""


def test_render_rejects_conflicting_requests():
    doc = parse(DOC)
    with pytest.raises(ValueError, match="both updated and removed"):
        render(doc, {"status": "done"}, remove=["status"])
    with pytest.raises(TypeError):
        render(doc, {1: "x"})


def test_render_keeps_top_level_indentation():
    doc = parse("---\n  a: 1\n  b: 2\n---\n")
    out = render(doc, {"b": {"c": [1]}, "d": "new"})
    assert out == "---\n  a: 1\n  b:\n    c:\n      - 1\n  d: new\n---\n"
    assert parse(out).data == {"a": 1, "b": {"c": [1]}, "d": "new"}


def test_render_top_level_flow_mapping():
    doc = parse("---\n{a: 1, b: 2}\n---\nbody")
    assert render(doc, {"b": 3}, remove=["a"]) == "---\nb: 3\n---\nbody"


def test_render_block_string_before_an_indented_comment_still_reads_back():
    # A `|` block here would swallow the indented comment that follows it;
    # render must notice and fall back to a double-quoted string.
    doc = parse("---\na: 1\n\n  # indented comment\nb: 2\n---\n")
    out = render(doc, {"a": "two\nlines"})
    assert out == '---\na: "two\\nlines"\n\n  # indented comment\nb: 2\n---\n'
    assert parse(out).data == {"a": "two\nlines", "b": 2}
    assert render(parse("---\na: 1\nb: 2\n---\n"), {"a": "two\nlines"}) == \
        "---\na: |-\n  two\n  lines\nb: 2\n---\n"


def test_render_keep_chomped_block_does_not_swallow_blank_lines():
    doc = parse("---\na: |+\n  x\n\nb: 1\n\n# about c\nc: 2\n---\n")
    assert doc.data["a"] == "x\n\n"
    out = render(doc, {}, remove=["b"])
    assert out == "---\na: |+\n  x\n\n# about c\nc: 2\n---\n"
    assert parse(out).data == {"a": "x\n\n", "c": 2}


def test_block_strings_never_hold_a_fence_line():
    text = compose({"notes": "a\n---\nb", "other": "x\n \u3000---\ny"}, "body")
    assert '"a\\n---\\nb"' in text
    assert parse(text).data == {"notes": "a\n---\nb", "other": "x\n \u3000---\ny"}


def test_render_empty_flow_mapping():
    doc = parse("---\n{}\n---\nbody")
    assert render(doc, {}) == "---\n{}\n---\nbody"
    assert render(doc, {"x": 1}) == "---\nx: 1\n---\nbody"


def test_render_random_updates_keep_untouched_entries_byte_for_byte():
    rng = random.Random(42)
    keys = ["title", "status", "when", "agent", "model", "labels", "notes", "extra"]
    for _ in range(150):
        original = {k: random_value(rng, 1) for k in rng.sample(keys, rng.randrange(1, len(keys)))}
        text = compose(original, "Body\n\n---\n\nmore")
        # Sprinkle comments and blank lines that render must carry along.
        lines = text.split("\n")
        decorated = [lines[0]]
        for line in lines[1:]:
            if line and not line.startswith((" ", "-")) and rng.random() < 0.4:
                decorated.append(rng.choice(["", "# note", "# a: b", "#"]))
            decorated.append(line)
        doc = parse("\n".join(decorated))
        assert strict_equal(doc.data, original)
        updates = {k: random_value(rng, 1) for k in rng.sample(keys, rng.randrange(0, 4))}
        removed = [k for k in rng.sample(keys, rng.randrange(0, 3)) if k not in updates]
        out = render(doc, updates, remove=removed)
        expected = {k: v for k, v in original.items() if k not in removed}
        expected.update(updates)
        result = parse(out)
        assert strict_equal(result.data, expected)
        assert result.body == doc.body
        for entry in doc.entries:
            if entry.key not in updates and entry.key not in removed:
                assert entry.raw in out


def test_compose():
    assert compose({"title": "x", "n": 1}, "Body\n") == '---\ntitle: x\n"n": 1\n---\n\nBody\n'
    assert compose({"title": "x"}, "\n\n  Body\r\n\n\n") == "---\ntitle: x\n---\n\n  Body\n"
    assert compose({"title": "x"}, "") == "---\ntitle: x\n---\n"
    assert compose({}, "b") == "---\n{}\n---\n\nb\n"
    doc = parse(compose({"title": "x", "when": {"kind": "at"}}, "Hello"))
    assert doc.data == {"title": "x", "when": {"kind": "at"}} and doc.body == "\nHello\n"


def test_entries_survive_copy_pickle_and_unrelated_lookups():
    text = "---\n# c\na: 1\nb: 2\n---\nbody"
    expected = parse(text).entries
    doc = parse(text)
    assert not hasattr(doc, "no_such_attribute")
    assert copy.copy(doc).entries == expected
    assert pickle.loads(pickle.dumps(parse(text))).entries == expected
    assert copy.deepcopy(parse(text)) == parse(text)
    assert doc.entries == expected and doc.trailer == ""


def test_document_is_a_dataclass_with_the_named_fields():
    doc = Document({"a": 1}, "body", [])
    assert (doc.data, doc.body, doc.entries, doc.trailer) == ({"a": 1}, "body", [], "")
    assert set(fm.__all__) >= {"FrontmatterError", "MAX_BYTES", "Document", "parse", "loads", "dumps",
                               "render", "compose"}


# ---------------------------------------------------------------------------
# Agreement with PyYAML.  PyYAML is a test dependency (pyproject's `test` extra, which
# `make test` and CI install); the package itself never imports it.  Without it these
# tests fail rather than skip, so the differential check cannot silently drop out of CI.

try:
    import yaml
except ImportError:      # pragma: no cover - depends on the environment
    yaml = None


def needs_yaml(test):
    def run(*args, **kwargs):
        assert yaml is not None, "PyYAML is missing: install the test extra (pip install -e '.[test]')"
        return test(*args, **kwargs)

    import functools

    return functools.wraps(test)(run)

# Documents on which YAML 1.1 (PyYAML) and YAML 1.2 (us) agree.
AGREED = [
    DOC.split("---\n")[1],
    "title: Nightly\nstatus: todo  # c\nassignee: \"@new-then-resume\"\n"
    "when: {kind: cron, cron: \"30 8 * * 1-5\", timezone: America/New_York}\n",
    "a: multi line\n  plain value\n\n  with blank\nb: \"double\n  quoted \\\n  escaped\"\nc: 'single\n\n  quoted'\n",
    "desc: |\n  Line one\n  Line two\n\n  Para\nfold: >-\n  folded\n  text\n\n  more\n   indented\n  back\n"
    "keep: |+\n  kept\n\nnext: 1\n",
    "flow: {a: [1, 2, {b: c}], \"d\": e, f,\n  g: 'h'}\nempty: {}\nlist: []\nn: ~\nbools: [true, false, True, FALSE]\n"
    "nums: [0x1F, -12, +5, 1.5, .inf, -.Inf, 1.]\n",
    "l:\n- a\n- b\nm: 2\nseq_of_maps:\n- k: v\n  k2: v2\n-   k3: v3\n- \n  k4: v4\n- - x\n  - y\n",
    "key with spaces: v\n\"quoted key\": 1\n'single key': 2\nurl: http://example.com/a?b=c#frag\nwin: c:\\path\\x\n"
    "hash: a#b\nq: what? yes\ncolon: a:b\n",
    "s: \"\\u00e9\\x41\\t\\n\\\\ \\\" \\/ \\U0001F600 \\N \\_ \\L\"\n",
    "top:\n  mid:\n    low:\n      deep: [x, {y: [z]}]\n",
    "a: |2\n    two extra\n  base\nb: >1\n  x\n   y\nc: |-\n\n  lead\n",
    "t: 'it''s'\nu: \"say \\\"hi\\\"\"\nv: \"\"\nw: ''\nx:\ny: null\nz: Null\n",
    # single-quoted one-line values take the line fast path (issue 28): the same answers
    "cron: '0 3 * * *'\ntz: 'Europe/Paris'  # c\nhash: 'a # b'\ncolon: 'a: b'\nlead: ' x '\n"
    "empty: ''\nquote: '\"'\nnum: '42'\nbool: 'true'\nnul: 'null'\n",
]


@needs_yaml
@pytest.mark.parametrize("text", AGREED)
def test_agrees_with_pyyaml(text):
    assert strict_equal(loads(text), yaml.safe_load(text))


@needs_yaml
def test_pyyaml_reads_what_dumps_writes():
    rng = random.Random(99)
    for _ in range(300):
        data = random_mapping(rng)
        assert strict_equal(yaml.safe_load(dumps(data)), data)


@needs_yaml
def test_pyyaml_emitter_output_reads_the_same():
    rng = random.Random(5)
    for _ in range(200):
        data = random_mapping(rng)
        for flow in (False, True):
            text = yaml.safe_dump(data, default_flow_style=flow, width=rng.choice([20, 80]),
                                  allow_unicode=rng.random() < 0.5, sort_keys=False)
            if "!!" in text or "? " in text or re.search("[\x85\u2028\u2029]", text):
                continue     # tags, complex keys and raw line separators are refused
            assert strict_equal(loads(text), yaml.safe_load(text)), text
