"""Health probes: interpretation, gating, timeouts, redaction, bounded concurrency."""

import threading
from datetime import datetime, timezone

import pytest

from openalice.adapters import catalog, health
from openalice.adapters.invoke import WrapperRun, run_wrapper

from .stubs import adapter, calls, standard_catalog, write_catalog, write_stub

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def cat(tmp_path):
    return catalog.load_catalog(standard_catalog(tmp_path))


def run(code, out=b"", err=b"", **kw):
    return WrapperRun(code, out, err, elapsed=0.012, **kw)


@pytest.mark.parametrize("wrapper_run, expected", [
    (run(0, b'{"ok":true,"detail":"fine","latencyMs":5}\n'), ("healthy", "fine", 5)),
    (run(0, b"ready\n"), ("healthy", "ready", 12)),
    (run(0), ("healthy", None, 12)),
    (run(3, b'{"ok":false,"detail":"proxy down"}\n'), ("down", "proxy down", 12)),
    (run(3, b"", b"no auth\n"), ("down", "no auth", 12)),
    (run(3), ("down", "the wrapper reported unavailable (exit 3) without a reason", 12)),
    (run(0, b'{"ok":false,"detail":"odd"}'), ("down", "--health exited 0 but reported ok:false: odd", 12)),
    (run(1, b"", b"boom\n"), ("down", "--health exited 1: boom", 12)),
    (run(127), ("down", "--health exit 127 (command not found)", 12)),
    (run(-9), ("down", "--health was killed by signal 9", 12)),
    (run(None, timed_out=True), ("down", "timed out after 2s (the wrapper's --health never finished)", 12)),
    (run(None, error="wrapper not found: /x"), ("down", "wrapper not found: /x", None)),
])
def test_interpret(wrapper_run, expected):
    assert health.interpret(wrapper_run, timeout=2) == expected


def test_interpret_redacts_the_reason():
    leaky = run(3, b'{"ok":false,"detail":"denied for key sk-live-0123456789abcdef"}')
    state, detail, _ = health.interpret(leaky, timeout=2, secrets=[])
    assert state == "down" and "0123456789abcdef" not in detail and "[REDACTED]" in detail


def test_healthy_stub(cat):
    result = health.probe(cat.get("good"), now=NOW, timeout=5)
    assert (result.health, result.detail, result.latencyMs) == ("healthy", "all good", 7)
    assert result.checkedAt == "2026-11-30T09:00:00Z"
    assert calls(cat.get("good").wrapper) == ["--health"]


def test_down_stub_reason_is_redacted(cat):
    result = health.probe(cat.get("leaky"), now=NOW, timeout=5)
    assert result.health == "down"
    assert "sk-LEAKED" not in result.detail and "tok_abcdefghijkl" not in result.detail
    assert result.detail.startswith("auth failed: api_key=[REDACTED]")


def test_undeclared_health_is_unknown_and_never_executed(cat):
    entry = cat.get("nohealth")
    result = health.probe(entry, now=NOW, timeout=5)
    assert result.health == "unknown" and result.latencyMs is None
    assert calls(entry.wrapper) == []  # the stub was never run


def test_a_hanging_probe_is_killed_with_its_children(cat):
    from openalice.core.proc import is_alive

    entry = cat.get("hang")
    result = health.probe(entry, now=NOW, timeout=0.3)
    assert result.health == "down" and "timed out after 0.3s" in result.detail
    child = int(open(str(entry.wrapper) + ".child-pid").read())
    assert not is_alive(child, None)  # the wrapper's own child went with it


def test_env_file_values_are_scrubbed_from_reasons(tmp_path):
    write_stub(tmp_path, "echo.sh", "down-echo-env")
    (tmp_path / "E.env").write_text("MY_SETTING='canary-not-shaped-like-a-key'\n")
    entry = catalog.load_catalog(write_catalog(tmp_path, [
        adapter("echo", "echo.sh", health=True, envFile="E.env")])).get("echo")
    result = health.probe(entry, now=NOW, timeout=5)
    assert result.health == "down" and "canary-not-shaped" not in result.detail
    assert "engine refused" in result.detail


def test_missing_or_non_executable_wrapper_is_down(tmp_path):
    (tmp_path / "plain.sh").write_text("#!/bin/sh\nexit 0\n")
    cat = catalog.load_catalog(write_catalog(tmp_path, [
        adapter("gone", "absent.sh", health=True), adapter("plain", "plain.sh", health=True)]))
    gone = health.probe(cat.get("gone"), now=NOW)
    plain = health.probe(cat.get("plain"), now=NOW)
    assert gone.health == plain.health == "down"
    assert gone.detail.startswith("wrapper not found") and "not executable" in plain.detail


def test_output_is_capped(tmp_path):
    wrapper = tmp_path / "loud.sh"
    wrapper.write_text("#!/bin/sh\nhead -c 300000 /dev/zero | tr '\\0' x\nexit 0\n")
    wrapper.chmod(0o755)
    entry = catalog.load_catalog(write_catalog(tmp_path, [adapter("loud", "loud.sh", health=True)])).get("loud")
    result = run_wrapper(entry, ["--health"], timeout=10, max_output=1000)
    assert result.returncode == 0 and len(result.stdout) == 1000


def test_probe_many_is_bounded_and_keeps_order(cat, monkeypatch):
    entries = [cat.get(i) for i in ("good", "leaky", "hang", "flaky")]
    active, peak, guard = [0], [0], threading.Lock()
    pair = threading.Barrier(2, timeout=10)  # proves two run at once

    def fake_probe(entry, *, now, timeout):
        with guard:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        pair.wait()
        with guard:
            active[0] -= 1
        return health.HealthResult(entry.id, "healthy", None, 1, "t")

    monkeypatch.setattr(health, "probe", fake_probe)
    results = health.probe_many(entries, now=NOW, timeout=1, concurrency=2)
    assert [r.id for r in results] == ["good", "leaky", "hang", "flaky"]
    assert peak[0] == 2
