"""A fuzz of every parser of the toolkit's files.

Each :class:`Target` is a file a real machine has (made by the real CLI), and
the commands that read it.  An input is the file's real content, mutated:
structurally for JSON (a node replaced by a value of another type, a key
dropped or added, the top level replaced), line by line for Markdown issues
and JSONL, byte by byte for everything (truncation, flips, NUL, invalid
UTF-8, a BOM, deep nesting, huge numbers).  Every command must end in a
handled way: no traceback, no ``internal error``, exit 0 (a reader that
reports the bad file and goes on) or 2, and exit 2 names the file.  Commands
run in-process through the tools' ``main`` (the same top-level handler as
the console scripts), so thousands of inputs take a minute.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .machine import ADAPTER_CANARY, CANARY, Machine, _studio_state, run_in_process
from .suite import Figures


@dataclass
class Target:
    name: str
    path: Callable[[Machine], Path]
    commands: list[tuple[str, ...]]
    kind: str                      # "json", "jsonl", "markdown", "env", "binary"
    ok: tuple[int, ...] = (0, 2)   # the exits that are a handled outcome


def prepare(base: Path) -> tuple[Machine, dict]:
    """A machine with one of every file, and the ids the commands need."""
    m = Machine(base).create()

    def ok(*argv, input=None, **env):
        r = m.cli(*argv, input=input, **env)
        assert r.returncode == 0, (argv, r.stderr)
        return r

    ok("alice", "credential", "add", "k1", "--vendor", "openrouter", input=CANARY + "\n")
    ok("harness-adapter", "set-secret", "claude", "ANTHROPIC_API_KEY", "-",
       input=ADAPTER_CANARY + "\n")
    ok("harness-adapter", "enable", "claude")
    ok("alice", "issue", "create", "--title", "Target", "--every", "1h", "--agent", "claude",
       "--body", "Do it [[reports/a.md]]")
    ok("alice", "issue", "comment", "target", "--body", "hello")
    ok("alice", "settings", "set", "--agent", "pi", "--default")
    session = json.loads(ok("alice", "session", "new", "--agent", "pi", "--json").stdout)
    entry = json.loads(ok("alice-inbox", "push", "--body", "see [[reports/a.md]]", "--json").stdout)
    ok("alice-inbox", "mark-all-read")
    ok("alice-schedule", "scan", "--capacity", "10", ALICE_NOW="2026-11-30T11:00:00Z")
    ok("alice-harness", "studio", "status", "--workspace", "reliability")
    ok("alice", "journal", "--json")        # the journal's counts index
    m.enter()
    _studio_state(m, 1)
    catalog = m.ws / "catalog.json"
    from openalice.adapters.catalog import default_catalog_path

    shutil.copy(default_catalog_path(), catalog)
    task = next((m.openalice / "state" / "runs" / "tasks").iterdir()).name
    ids = {"session": session["session"]["resumeId"], "entry": entry["id"], "task": task,
           "catalog": str(catalog)}
    return m, ids


def targets(ids: dict) -> list[Target]:
    oa = lambda *p: (lambda m: m.openalice.joinpath(*p))
    hh = lambda *p: (lambda m: m.harness.joinpath(*p))
    ws = lambda *p: (lambda m: m.ws.joinpath(*p))
    return [
        Target("workspaces.json", oa("workspaces.json"),
               [("alice", "workspace", "list", "--json")], "json"),
        Target("credentials.json", oa("vault", "credentials.json"),
               [("alice", "credential", "list", "--json")], "json"),
        Target("vault secret file", oa("vault", "secrets", "k1.env"),
               [("alice", "credential", "list", "--json")], "env"),
        Target("adapters.json", hh("adapters.json"),
               [("harness-adapter", "list", "--json")], "json"),
        Target("adapter env file", hh("env", "CLAUDE.env"),
               [("harness-adapter", "show", "claude", "--json")], "env"),
        Target("adapter catalog", lambda m: Path(ids["catalog"]),
               [("harness-adapter", "list", "--json", "--catalog", ids["catalog"])], "json"),
        Target("entries.jsonl", oa("data", "inbox", "entries.jsonl"),
               [("alice-inbox", "list", "--json"), ("alice-inbox", "show", ids["entry"], "--json")],
               "jsonl"),
        Target("read-state.json", oa("data", "inbox", "read-state.json"),
               [("alice-inbox", "count", "--json"), ("alice-inbox", "read", ids["entry"], "--json")],
               "json"),
        Target("journal", oa("state", "agent-runtime.jsonl"), [("alice", "journal", "--json")],
               "jsonl"),
        Target("journal counts index", oa("state", "agent-runtime.counts.json"),
               [("alice", "journal", "--json"), ("alice", "journal", "--after-seq", "1", "--json")],
               "json"),
        Target("cursor", oa("state", "schedule", "cursors", "reliability", "target.json"),
               [("alice-schedule", "health", "--json")], "json"),
        Target("scan cache", oa("state", "schedule", "scan-cache.marshal"),
               [("alice-schedule", "scan", "--json")], "binary"),
        Target("task.json", oa("state", "runs", "tasks", ids["task"], "task.json"),
               [("alice-schedule", "run", ids["task"], "--json"), ("alice-schedule", "runs", "--json")],
               "json"),
        Target("run index", oa("state", "runs", "index.jsonl"), [("alice-schedule", "runs", "--json")],
               "jsonl"),
        Target("live marker", oa("state", "runs", "live", "reliability", "target.json"),
               [("alice-schedule", "scan", "--dry-run", "--json")], "json"),
        Target("studio state", oa("state", "studio", "reliability", "state.json"),
               [("alice-harness", "studio", "status", "--workspace", "reliability", "--json")], "json"),
        Target("settings.json", ws(".alice", "settings.json"), [("alice", "settings", "show", "--json")],
               "json"),
        Target("issue file", ws(".alice", "issues", "target.md"),
               [("alice", "issue", "show", "target", "--json"), ("alice", "issue", "list", "--json")],
               "markdown"),
        Target("comments sidecar", ws(".alice", "issues", "target.comments.json"),
               [("alice", "issue", "show", "target", "--json")], "json"),
        Target("session binding", ws(".alice", "sessions", f"{ids['session']}.json"),
               [("alice", "session", "show", ids["session"], "--json")], "json"),
    ]


# -- mutations -----------------------------------------------------------------------------

ODD_VALUES = [None, True, False, 0, -1, 2**63, 1e308, -0.0, "", " ", "\x00", "\u202e", "x" * 5000,
              [], {}, [None], {"": None}, "2026-13-45T99:99:99Z", "../../etc/passwd", "-rf",
              "run-AAAAAAAA", "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")]


def _nodes(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, path + (i,))


def _set(doc, path, new):
    if not path:
        return new
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return doc


def _delete(doc, path):
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    del parent[path[-1]]
    return doc


def mutate_json(data: bytes, rng: random.Random) -> bytes:
    try:
        doc = json.loads(data)
    except ValueError:
        return mutate_bytes(data, rng)
    for _ in range(rng.randint(1, 3)):
        nodes = list(_nodes(doc))
        path, value = rng.choice(nodes)
        op = rng.random()
        if op < 0.45:
            doc = _set(doc, path, copy.deepcopy(rng.choice(ODD_VALUES)))
        elif op < 0.65 and path:
            doc = _delete(doc, path)
        elif op < 0.8 and isinstance(value, dict):
            value[rng.choice(["", "x", "__proto__", "version", "apiKey", "é" * 300])] = copy.deepcopy(
                rng.choice(ODD_VALUES))
        elif op < 0.9:
            doc = _set(doc, path, [value] if rng.random() < 0.5 else {"wrapped": value})
        else:
            doc = rng.choice([None, [], 1, "x", [doc]])
    text = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
    return text.encode("utf-8", "surrogatepass")


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    op = rng.randrange(9)
    if op == 0 and out:
        del out[rng.randrange(len(out)):]                       # truncated
    elif op == 1 and out:
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)   # flipped bytes
    elif op == 2:
        out[rng.randrange(len(out) + 1):0] = rng.choice([b"\x00", b"\xff\xfe", b"\xc3(", b"\r",
                                                          b"\x1b[2J", b"\xed\xa0\x80"])
    elif op == 3:
        out = bytearray(b"\xef\xbb\xbf") + out                  # a BOM
    elif op == 4:
        depth = rng.choice([100, 5000, 100_000])
        out = bytearray(b"[" * depth + b"]" * depth)            # nested deeply
    elif op == 5:
        out = bytearray(rng.choice([b"", b"\n", b"null", b"1e999", b"NaN", b"-Infinity",
                                    b'{"a":1,"a":2}', b"\x00" * 64, b"{" * 3]))
    elif op == 6 and out:
        i = rng.randrange(len(out))
        out[i:i] = out[: rng.randrange(len(out))]               # a slice duplicated
    elif op == 7:
        out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    else:
        out = bytearray(os.urandom(rng.randint(1, 512)))
    return bytes(out)


YAML_BITS = ["&anchor x", "*anchor", "!!python/object:os.system", "? complex", "- item", "{a: [}",
             "\tindented: tab", "key: |", "key: >-", "'unclosed", "\"unclosed", "title:", "status: 7",
             "when: {kind: cron, cron: '61 * * * *'}", "when: {kind: every, every: 0s}",
             "when: {kind: at, at: '9999-99-99'}", "priority: [1, 2]", "assignee: '@nobody'",
             "agent: ../../bin/sh", "timeout: -5m", "title: " + "x" * 70000, "---", "...",
             "title: \x1b]0;owned\x07", "model: \u202egnp.exe", "effort: ultra", "%YAML 1.1",
             "<<: *anchor", "x: !!binary AAAA", "a: 0o777", "a: .nan", "a: 1_000"]


def mutate_lines(data: bytes, rng: random.Random, bits: list[str]) -> bytes:
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(lines) + 1)
        if op == 0 and lines:
            del lines[min(i, len(lines) - 1)]
        elif op == 1:
            lines.insert(i, rng.choice(bits))
        elif op == 2 and lines:
            j = min(i, len(lines) - 1)
            lines[j] = " " * rng.randint(1, 6) + lines[j]
        elif op == 3 and len(lines) > 1:
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
        elif op == 4 and lines:
            lines.insert(i, lines[rng.randrange(len(lines))])
        else:
            return mutate_bytes(data, rng)
    sep = "\r\n" if rng.random() < 0.2 else "\n"
    return sep.join(lines).encode("utf-8", "replace")


JSONL_BITS = ['{"v":1}', "null", "[]", "{", '{"id": null}', '{"seq": "x"}', "\x00", "",
              '{"id":"inbox-1-x","ts":-1}', '{"seq": 1e999}', '{"type": []}']
ENV_BITS = ["API_KEY=", "API_KEY='unclosed", "export X='y'", "X=$(id)", "=v", "1A='x'",
            "API_KEY='a'\\''b'", "#", "API_KEY=\"dq\"", "\x00"]


def mutate(target: Target, data: bytes, rng: random.Random) -> bytes:
    if rng.random() < 0.2 or target.kind == "binary":
        return mutate_bytes(data, rng)
    if target.kind == "json":
        return mutate_json(data, rng)
    if target.kind == "markdown":
        return mutate_lines(data, rng, YAML_BITS)
    if target.kind == "jsonl":
        return mutate_lines(data, rng, JSONL_BITS)
    return mutate_lines(data, rng, ENV_BITS)


# -- the run -------------------------------------------------------------------------------

def fuzz(base: Path, *, inputs: int, seed: int = 2016) -> Figures:
    """``inputs`` mutated files, spread over every target (each input is judged
    by every command of its target)."""
    figures = Figures()
    rng = random.Random(seed)
    machine, ids = prepare(base)
    machine.enter()
    all_targets = targets(ids)
    originals = {t.name: t.path(machine).read_bytes() for t in all_targets}
    for i in range(inputs):
        target = all_targets[i % len(all_targets)]
        path = target.path(machine)
        data = mutate(target, originals[target.name], rng)
        path.write_bytes(data)
        figures.add("fuzz: inputs")
        for argv in target.commands:
            code, out, err = run_in_process(*argv)
            figures.add("fuzz: commands run")
            _judge(figures, target, path, argv, code, out, err, data)
        _restore(machine, all_targets, originals)
    return figures


def _judge(figures: Figures, target: Target, path: Path, argv, code, out, err, data) -> None:
    where = f"{target.name} <- {data[:80]!r}: {' '.join(argv)} -> {code}"
    if "Traceback" in out + err:
        figures.add("fuzz: traceback", note=f"{where}: {(out + err)[-600:]}")
    elif "internal error" in out + err:
        figures.add("fuzz: internal error", note=f"{where}: {(out + err)[-600:]}")
    if code not in target.ok:
        figures.add("fuzz: unexpected exit", note=f"{where}: {err[-300:]}")
    elif code == 2:
        figures.add("fuzz: exit 2")
        if str(path) not in out + err:
            figures.add("fuzz: exit 2 without the file", note=f"{where}: {(err or out)[-300:]}")
    else:
        figures.add("fuzz: exit 0")
        if "--json" in argv:
            try:
                json.loads(out)
            except ValueError:
                figures.add("fuzz: unexpected exit", note=f"{where}: not one JSON document")


def _restore(machine: Machine, all_targets: list[Target], originals: dict) -> None:
    for target in all_targets:
        path = target.path(machine)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != originals[target.name]:
            path.write_bytes(originals[target.name])
    # what a command may have set aside (mark-all-read, a bad read state) or added goes
    for extra in (machine.openalice / "data" / "inbox").glob("read-state.json.corrupt-*"):
        extra.unlink()
