"""Wrapper and engine output shown to a person has its control characters escaped.

One function does it (``openalice.core.output.printable``), on every human path; ``--json``
keeps the text as it was (JSON's own escaping makes it safe there).
"""

from __future__ import annotations

from tests.adapters.stubs import adapter, write_catalog

ESC = "\x1b"


def test_a_wrappers_health_detail_is_escaped(cli, tmp_path):
    wrappers = tmp_path / "cat" / "wrappers"
    wrappers.mkdir(parents=True)
    stub = wrappers / "noisy.sh"
    stub.write_text('#!/bin/sh\nprintf \'{"ok":false,"detail":"boom \\\\u001b[2J\\\\u001b]0;owned\\\\u0007"}\\n\'\n'
                    "exit 3\n")
    stub.chmod(0o755)
    catalog = write_catalog(tmp_path / "cat", [adapter("noisy", "wrappers/noisy.sh", health=True)])
    env = {"HARNESS_CATALOG": str(catalog)}
    assert cli("harness-adapter", "enable", "noisy", env=env).returncode == 0
    for argv in (("harness-adapter", "health", "noisy"), ("harness-adapter", "list", "--probe"),
                 ("alice", "doctor")):
        r = cli(*argv, env=env)
        shown = r.stdout + r.stderr
        assert "boom" in shown, (argv, r)
        assert ESC not in shown and "\x07" not in shown, argv
        assert "boom \\x1b[2J\\x1b]0;owned\\x07" in shown, (argv, shown)
    raw = cli("harness-adapter", "health", "noisy", "--json", env=env)
    assert raw.json()["adapters"][0]["detail"] == "boom \x1b[2J\x1b]0;owned\x07"


def test_a_runs_text_is_escaped(cli, workspace, agent_stubs):
    import os

    r = cli("alice", "issue", "create", "--title", "Job", "--id", "job", "--every", "1h", "--agent", "claude",
            cwd=workspace, env={"PATH": os.environ["PATH"]})
    assert r.returncode == 0, r
    scan = cli("alice-schedule", "scan", "--json",
               env={"OPENALICE_TEST_LAUNCH": "none", "PATH": os.environ["PATH"]}).json()
    [fired] = scan["fired"]
    from openalice.core import fs
    from openalice.runs import admission, tasks

    task_id = fired["taskId"]
    fs.atomic_write_json(tasks.task_dir(task_id) / "structured.json",
                         {"assistantText": f"done {ESC}[31mred{ESC}[0m\rover", "blocks": []})
    tasks.update_task(task_id, {"status": "done", "exitCode": 0})
    admission.release(task_id)
    shown = cli("alice-schedule", "run", task_id).stdout
    assert ESC not in shown and "\r" not in shown
    assert "done \\x1b[31mred\\x1b[0m\\x0dover" in shown
    assert ESC in cli("alice-schedule", "run", task_id, "--json").json()["structured"]["assistantText"]
