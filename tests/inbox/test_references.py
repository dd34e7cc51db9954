"""The [[path]] grammar (reference items 53-54, plus fences and spans)."""

import pytest

from openalice.inbox.references import classify, parse


def paths(body):
    return list(parse(body).paths)


def test_item_53_literal_stretches_and_non_paths():
    body = ("`[[code/span.md]]` and\n```\n[[fenced/a.md]]\n```\n"
            "\\[[escaped/b.md]] [[NVDA]] [[../p.md]] [[/a.pdf]] [[https://x/a.pdf]] "
            "[[./README]] [[reports/a.md]] [[./README]]")
    assert paths(body) == ["./README", "reports/a.md"]  # deduplicated, first-seen order


def test_item_54_no_reply_marks_silent_and_is_not_a_file():
    refs = parse("[[no-reply]] x [[a.pdf]]")
    assert refs.silent and list(refs.paths) == ["a.pdf"]
    assert not parse("[[a.pdf]]").silent


@pytest.mark.parametrize("text,reason", [
    ("reports/close.pdf", None), ("a.md", None), ("./README", None), ("dir/sub/", None),
    ("charts/nvda.png", None), ("NVDA", "not_a_path"), ("README", "not_a_path"),
    ("a.verylongextension123", "not_a_path"), ("../x.md", "dotdot"), ("a/../b.md", "dotdot"),
    ("/etc/passwd", "absolute"), ("~/x.md", "absolute"), ("\\\\server\\x.md", "absolute"),
    ("https://x/a.pdf", "forbidden_character"), ("C:/x.md", "forbidden_character"),
    ("a.md#frag", "forbidden_character"), ("a.md?q", "forbidden_character"),
    ("a|b.md", "forbidden_character"), ("", "empty"),
])
def test_classify(text, reason):
    assert classify(text) == reason


def test_trimmed_and_no_newline_or_bracket_inside():
    assert paths("[[ spaced/a.md ]]") == ["spaced/a.md"]
    assert paths("[[a\nb.md]]") == []
    assert paths("[[x]y.md]]") == []


def test_fences_tilde_longer_close_and_unclosed():
    assert paths("~~~~\n[[x/y.md]]\n~~~\n[[still/inside.md]]\n~~~~\n[[after/z.md]]") == ["after/z.md"]
    assert paths("```python\n[[in/a.md]]\n") == []          # unclosed: to the end
    assert paths("   ```\n[[in/a.md]]\n   ```\n[[out/b.md]]") == ["out/b.md"]
    assert paths("    ```\n[[four/spaces.md]]") == ["four/spaces.md"]  # 4 spaces: not a fence
    assert paths("text ```\n[[mid/line.md]]") == ["mid/line.md"]      # not at line start


def test_code_spans_match_exact_run_length():
    assert paths("``a ` [[in/span.md]] `` [[out/a.md]]") == ["out/a.md"]
    assert paths("` unmatched [[out/b.md]]") == ["out/b.md"]
    assert paths("```inline``` [[out/c.md]]") == ["out/c.md"]


def test_ignored_candidates_are_reported_with_reasons():
    refs = parse("[[../secret.txt]] [[NVDA]] [[/abs.md]]")
    assert [(i.text, i.reason) for i in refs.ignored] == [
        ("../secret.txt", "dotdot"), ("NVDA", "not_a_path"), ("/abs.md", "absolute")]
    assert [i.looks_like_a_path for i in refs.ignored] == [True, False, True]


def test_large_pathological_body_is_linear_enough():
    body = "`" * 3 + "a" + ("`x" * 200_000) + " [[end/a.md]]"
    assert parse(body).paths in ((), ("end/a.md",))
    body = "[[" * 100_000 + "]]"
    assert parse(body).paths == ()


def test_unclosed_candidates_do_not_go_quadratic():
    # A quadratic scan would hang here (minutes), not merely run slow.
    assert parse("[[" * 200_000).paths == ()
    assert parse("[[a.md" * 50_000 + "]]").ignored[0].reason == "forbidden_character"
    assert parse("\\[[" * 100_000).paths == ()
