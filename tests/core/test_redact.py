"""Redaction of wrapper-provided text."""

import pytest

from openalice.core.redact import REDACTED, redact, summarize


@pytest.mark.parametrize("text, secret", [
    ("auth failed for sk-ant-api03-abcdefghij", "sk-ant-api03-abcdefghij"),
    ("api_key=abc123def456", "abc123def456"),
    ('{"apiKey": "zz-top-secret-value"}', "zz-top-secret-value"),
    ("Authorization: Bearer eyJhbGciOi.J9.abc", "eyJhbGciOi"),
    ("password: hunter2!", "hunter2!"),
    ("OPENAI_API_KEY=sk-proj-xyz987654321", "sk-proj-xyz987654321"),
    ("proxy https://bob:pa55word@proxy.local/v1 refused", "pa55word"),
    ("token ghp_ABCDEFGHIJKLMNOPQRSTUV is revoked", "ghp_ABCDEFGHIJKLMNOPQRSTUV"),
    ("request 9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc failed", "9f8e7d6c5b4a39281706f5e4d3c2b1a0ffeeddcc"),
    ("opts foo=api_key=chained-value-1", "chained-value-1"),
])
def test_credential_shapes_are_redacted(text, secret):
    out = redact(text)
    assert secret not in out and REDACTED in out


def test_known_values_are_replaced_even_without_a_shape():
    assert redact("the engine said: plainvalue here", ["plainvalue"]) == f"the engine said: {REDACTED} here"


def test_pathological_input_is_handled_whole():
    # Long runs that defeat naive patterns: the result must still be right.
    assert redact("token" * 5000) == "token" * 5000
    assert redact("token=" * 3) == "token=[REDACTED]"
    assert summarize("api_key=" + "a" * 60000) == "api_key=[REDACTED]"


@pytest.mark.parametrize("text", [
    "claude CLI not found on PATH; ANTHROPIC_API_KEY is not set",
    "no credentials: set ANTHROPIC_API_KEY (harness-adapter set-secret claude ANTHROPIC_API_KEY -)",
    "token: expired",
])
def test_plain_reasons_survive(text):
    assert redact(text) == text


def test_colon_values_that_look_like_credentials_are_still_redacted():
    assert redact("password: correcthorsebattery") == "password: [REDACTED]"
    assert redact("token: abc123") == "token: [REDACTED]"
    assert redact('secret: "plain"') == "secret: [REDACTED]"


def test_summarize_redacts_before_truncating_and_flattens():
    secret = "sk-" + "A1" * 200
    out = summarize("line one\n\n  line two " + secret, limit=40)
    assert len(out) <= 40 and out.startswith("line one line two") and "A1A1" not in out
    long = summarize("x" * 1000)
    assert len(long) == 300 and long.endswith("...")
