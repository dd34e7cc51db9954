"""A small but real OpenAlice home for the page: workspaces, reports with an
image and an HTML file, issues (one invalid), runs, stub adapters.

Shared by the browser tests (tests/web) and ``make screenshots``.  Everything
is created through the real CLIs, as a user would.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import zlib
from pathlib import Path

from tests.adapters.stubs import adapter, write_catalog, write_stub
from tests.conftest import tool_path
from tests.runs.standins import StandIns
from tests.testdata import AGENT_STREAMS


def png_bytes(width: int, height: int, rgb=(59, 91, 219), stripe=(240, 243, 250)) -> bytes:
    """A real PNG: a bar chart-ish pattern so the screenshot shows something."""
    rows = []
    for y in range(height):
        row = bytearray(b"\x00")
        for x in range(width):
            bar = (x // 12) % 2 == 0 and y > height - (height * ((x // 12) % 5 + 2)) // 7
            row += bytes(rgb if bar else stripe)
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))


class Site:
    """Homes under ``root``; ``run(tool, *args)`` runs a CLI with them."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.homes = {"OPENALICE_HOME": self.root / "openalice", "HARNESS_HOME": self.root / "harness",
                      "HOME": self.root / "user"}
        for path in self.homes.values():
            path.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items()
               if k not in ("ALICE_RUN_ID", "ALICE_RESUME_ID", "ALICE_WORKSPACE_ID", "PYTHONPATH",
                            "HARNESS_CATALOG", "ALICE_NOW")}
        env.update({k: str(v) for k, v in self.homes.items()})
        # Stand-in agent CLIs (claude, codex, ...) replaying recorded streams: Run now really runs.
        self.engines = StandIns(self.root / "standin-bin", AGENT_STREAMS)
        env["PATH"] = self.engines.path_env(env.get("PATH", ""))
        self.env = env
        self.workspaces: dict[str, Path] = {}
        self.entries: list[str] = []

    def run(self, tool: str, *args: str, cwd: Path | None = None, input: str | None = None,
            check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([tool_path(tool), *args], capture_output=True, text=True, env=self.env,
                              cwd=cwd or self.root, input=input, timeout=60)
        if check and proc.returncode != 0:
            raise AssertionError(f"{tool} {' '.join(args)} exited {proc.returncode}:\n"
                                 f"{proc.stdout}\n{proc.stderr}")
        return proc

    def json(self, tool: str, *args: str, **kw):
        return json.loads(self.run(tool, *args, "--json", **kw).stdout)

    # -- building -----------------------------------------------------------------------
    def workspace(self, name: str, label: str) -> Path:
        path = self.root / "work" / name
        self.json("alice", "workspace", "init", str(path), "--label", label)
        self.workspaces[name] = path
        return path

    def push(self, workspace: Path, body: str) -> str:
        entry = self.json("alice-inbox", "push", "--body", body, cwd=workspace)["id"]
        self.entries.append(entry)
        return entry

    def catalog(self) -> Path:
        repo = self.root / "catalog"
        (repo / "wrappers").mkdir(parents=True, exist_ok=True)
        write_stub(repo / "wrappers", "claude.sh", "healthy")
        write_stub(repo / "wrappers", "codex.sh", "down-leaky")
        write_stub(repo / "wrappers", "local.sh", "healthy")
        path = write_catalog(repo, [
            adapter("claude", "wrappers/claude.sh", label="Claude Code",
                    models=["claude-sonnet-4-6", "claude-opus-5", "claude-haiku-4-5"], health=True,
                    envFile="secrets/CLAUDE.env", env=["ANTHROPIC_API_KEY"]),
            adapter("codex", "wrappers/codex.sh", label="Codex", models=["gpt-5.5", "gpt-5-codex"],
                    health=True, envFile="secrets/CODEX.env", env=["OPENAI_API_KEY"]),
            adapter("local", "wrappers/local.sh", label="Local model", kind="proxy",
                    models=["m-1", "m-2", "m-3"], listModels=True),
        ])
        self.env["HARNESS_CATALOG"] = str(path)
        return path

    def build(self) -> "Site":
        notes = self.workspace("notes", "Notes")
        research = self.workspace("research", "Research")
        (notes / "charts").mkdir()
        (notes / "charts" / "revenue.png").write_bytes(png_bytes(240, 110))
        (notes / "reports").mkdir()
        (notes / "reports" / "close.html").write_text(
            "<!doctype html><h1 id='pwned'>report page</h1><script>document.title='ran'</script>\n")
        (notes / "reports" / "close.md").write_text("# Close\n\nAll numbers reconciled.\n")
        self.push(research, "Weekly digest: three papers worth reading, see [[digest.md]] "
                            "(not written yet).")
        self.push(notes, "# Nightly close\n\nAll green. **Revenue** is up 4% week on week:\n\n"
                         "[[charts/revenue.png]]\n\n"
                         "- the full page: [[reports/close.html]]\n"
                         "- notes: [[reports/close.md]]\n"
                         "- raw HTML stays text: <b>bold</b> <img src=x onerror=alert(1)>\n"
                         "- `[[in/code.md]]` is literal\n")
        self.run("alice", "issue", "create", "--title", "Daily report", "--id", "daily",
                 "--every", "24h", "--priority", "high", "--body", "Summarize the day", cwd=notes)
        self.run("alice", "issue", "create", "--title", "Fix the login bug", "--id", "login-bug",
                 "--priority", "urgent", "--status", "in_progress", cwd=notes)
        self.run("alice", "issue", "create", "--title", "Read the new papers", "--id", "papers",
                 "--cron", "0 9 * * 1-5", "--timezone", "Europe/Paris", cwd=research)
        self.run("alice", "issue", "create", "--title", "Archive 2025", "--status", "done",
                 cwd=research)
        (notes / ".alice" / "issues" / "broken.md").write_text("---\ntitle: Broken\nstatus: nope\n---\n")
        self.catalog()
        self.run("harness-adapter", "enable", "claude")
        return self


def add_report_with_script(site: Site) -> str:
    """A Markdown report whose text tries every way to run script or load a remote resource."""
    notes = site.workspaces["notes"]
    (notes / "reports" / "evil.md").write_text(
        "# Evil report\n\nPlain **words**.\n\n<script>document.title='ran'; window.pwned=1</script>\n\n"
        "<img src=x onerror=\"window.pwned=2\">\n\n![remote](https://example.invalid/x.png)\n\n"
        "[a link](https://example.invalid/page) and [js](javascript:window.pwned=3)\n")
    return site.push(notes, "The evil report: [[reports/evil.md]]")
