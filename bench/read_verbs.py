"""The read verbs whose start-up `bench_startup.py` measures and
`tests/e2e/test_read_verb_imports.py` pins (one list for both).

Each entry: (tool, argv, where).  ``where`` is "home" (run from the home
directory) or "workspace" (run inside the first workspace, as a person or an
agent does).  ``{ENTRY}``, ``{ISSUE}``, ``{SEQ}`` are filled in from the state
the caller built.
"""

READ_VERBS = [
    ("alice", ["workspace", "list", "--json"], "home"),
    ("alice", ["workspace", "show", "ws0", "--json"], "home"),
    ("alice", ["issue", "list"], "workspace"),
    ("alice", ["issue", "list", "--json"], "workspace"),
    ("alice", ["issue", "show", "{ISSUE}", "--json"], "workspace"),
    ("alice", ["issue", "board", "--json"], "home"),
    ("alice-inbox", ["list", "--json"], "home"),
    ("alice-inbox", ["list", "--limit", "20"], "home"),
    ("alice-inbox", ["count", "--json"], "home"),
    ("alice-inbox", ["show", "{ENTRY}", "--json"], "home"),
    ("alice", ["journal"], "home"),
    ("alice", ["journal", "--json"], "home"),
    ("alice", ["journal", "--after-seq", "{SEQ}", "--json"], "home"),
    ("alice-schedule", ["runs", "--json"], "home"),
    ("alice-schedule", ["health", "--json"], "home"),
    ("harness-adapter", ["list", "--json"], "home"),
    ("alice", ["session", "list", "--json"], "workspace"),
    ("alice", ["settings", "show", "--json"], "workspace"),
    ("alice", ["credential", "list", "--json"], "home"),
    ("alice", ["models", "list", "--json"], "home"),
    # what the web page's workspace view asks for (issue 28 names harness status)
    ("alice-harness", ["status", "--workspace", "ws0", "--json"], "home"),
    ("alice-harness", ["config", "show", "--workspace", "ws0", "--json"], "home"),
    ("alice-harness", ["stickers", "list", "--json"], "home"),
    ("alice-harness", ["stickers", "cat", "alice-ink", "wave.png", "--json"], "home"),
]

STATIC = [
    ("alice", ["--help"], "home"),
    ("alice-schedule", ["--help"], "home"),
    ("harness-adapter", ["--version"], "home"),
]


def build_state(base, env, tool) -> dict:
    """A small home as a user has it, made with the tools themselves: three
    workspaces with issues, Inbox entries (most read), journal facts.
    ``tool(name)`` is the argv prefix of a tool.  Returns the values the
    verbs' placeholders take, plus the workspace path."""
    import json
    import subprocess
    from pathlib import Path

    def run(*argv, cwd=None, stdin=None):
        out = subprocess.run([*tool(argv[0]), *argv[1:]], env=env, cwd=cwd, input=stdin,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{argv}: {out.stderr.strip()}")
        return out.stdout

    base = Path(base)
    first = None
    for w in range(3):
        root = base / f"ws{w}"
        run("alice", "workspace", "init", str(root), "--label", f"ws{w}")
        first = first or root
        for i in range(8):
            extra = ["--cron", "0 9 * * 1-5", "--timezone", "Europe/Paris"] if i % 2 else []
            run("alice", "issue", "create", "--title", f"Task {w}-{i}", "--id", f"task-{i}",
                "--body", f"Do task {i} and report.", *extra, cwd=root)
    entry = None
    for i in range(30):
        entry = json.loads(run("alice-inbox", "push", "--body", f"# Report {i}\nAll good.",
                               "--json", cwd=first))["id"]
        if i == 24:
            run("alice-inbox", "mark-all-read")
    run("alice-inbox", "read", entry)
    seq = json.loads(run("alice", "journal", "--json"))["lastSeq"]
    return {"ENTRY": entry, "ISSUE": "task-1", "SEQ": str(max(0, seq - 5)), "workspace": str(first)}


def fill(argv, values) -> list:
    return [a.format(**values) if "{" in a else a for a in argv]
