"""The modules each read verb imports, pinned (as `--help`'s are in test_tools.py).

A read verb is what the web gateway and scripts call per request, so its
start-up is its cost: these verbs (bench/read_verbs.py, the list
bench/bench_startup.py times) run against a real home built with the tools,
and each must import exactly the openalice modules listed here and none of the
standard-library modules that cost start-up time (argparse and what it pulls
in, dataclasses/inspect, typing, tempfile, threading, subprocess, hashlib...).
A new import on a read path fails this test: make it lazy (with a
``# lazy: <reason>`` comment) or, if the verb needs it, add it here.
"""

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import REPO, tool_path

_spec = importlib.util.spec_from_file_location("read_verbs", REPO / "bench" / "read_verbs.py")
read_verbs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(read_verbs)

#: Always there once a verb runs: the runner, the dispatcher, the quick parser, errors, output.
COMMON = {"openalice", "openalice.cli", "openalice.cli._run", "openalice.cli._dispatch",
          "openalice.cli._args", "openalice.core", "openalice.core.errors", "openalice.core.output",
          "openalice.core.patterns"}

#: Standard-library modules no read verb may load (each costs a read verb's start-up).
HEAVY = {"argparse", "gettext", "locale", "shutil", "dataclasses", "inspect", "ast", "typing",
         "tempfile", "random", "threading", "subprocess", "hashlib", "secrets", "difflib",
         "importlib.resources", "socket", "signal", "email", "uuid", "_hashlib", "gzip", "base64"}

#: Where a verb needs one of them: `stickers cat --json` sends the image as base64.  (The harness
#: verbs also hash a pack's revision and compare files by sha256, but through core.digests, which
#: loads OpenSSL's ``_hashlib`` only past 256 KiB of bytes.)
ALLOWED: dict[str, set] = {"alice-harness stickers cat alice-ink wave.png --json": {"base64"}}

PINNED = {
    'alice workspace list --json':
        "cli.alice cli.alice_workspace core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.locks core.paths core.records workspaces "
        "workspaces.access workspaces.registry",
    'alice workspace show ws0 --json':
        "cli.alice cli.alice_workspace core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.locks core.paths core.records workspaces "
        "workspaces.access workspaces.registry",
    'alice issue list':
        "core.lazy core.derived issues.index issues.index_views "
        "cli.alice cli.alice_issue cli.alice_issue_args cli.alice_issue_talk cli.alice_issue_text core.beneath "
        "core.clock core.colour core.cron core.flock core.frontmatter core.frontmatter.flow "
        "core.frontmatter.model core.frontmatter.parser core.frontmatter.quoted "
        "core.frontmatter.reader core.frontmatter.scalars core.frontmatter.values "
        "core.frontmatter.writer core.fs core.fs.codec core.fs.directories core.fs.explain "
        "core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes core.homes "
        "core.locks core.paths core.records core.zones issues issues.board issues.declaration "
        "issues.reader issues.schedule issues.views models models.ladder workspaces "
        "workspaces.access workspaces.registry",
    'alice issue list --json':
        "core.lazy core.derived issues.index issues.index_views "
        "cli.alice cli.alice_issue cli.alice_issue_args cli.alice_issue_talk cli.alice_issue_text core.beneath "
        "core.clock core.cron core.flock core.frontmatter core.frontmatter.flow "
        "core.frontmatter.model core.frontmatter.parser core.frontmatter.quoted "
        "core.frontmatter.reader core.frontmatter.scalars core.frontmatter.values "
        "core.frontmatter.writer core.fs core.fs.codec core.fs.directories core.fs.explain "
        "core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes core.homes "
        "core.locks core.paths core.records core.zones issues issues.board issues.declaration "
        "issues.reader issues.schedule issues.views models models.ladder workspaces "
        "workspaces.access workspaces.registry",
    'alice issue show {ISSUE} --json':
        "core.lazy cli.alice cli.alice_issue cli.alice_issue_args cli.alice_issue_talk cli.alice_issue_text core.beneath "
        "core.clock core.cron core.flock core.frontmatter core.frontmatter.flow "
        "core.frontmatter.model core.frontmatter.parser core.frontmatter.quoted "
        "core.frontmatter.reader core.frontmatter.scalars core.frontmatter.values "
        "core.frontmatter.writer core.fs core.fs.codec core.fs.directories core.fs.explain "
        "core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes core.homes "
        "core.locks core.paths core.records core.zones issues issues.comments "
        "issues.declaration issues.reader issues.schedule issues.views models models.ladder "
        "workspaces workspaces.access workspaces.registry",
    'alice issue board --json':
        "core.lazy core.derived issues.index issues.index_views "
        "cli.alice cli.alice_issue cli.alice_issue_args cli.alice_issue_talk cli.alice_issue_text core.beneath "
        "core.clock core.cron core.flock core.frontmatter core.frontmatter.flow "
        "core.frontmatter.model core.frontmatter.parser core.frontmatter.quoted "
        "core.frontmatter.reader core.frontmatter.scalars core.frontmatter.values "
        "core.frontmatter.writer core.fs core.fs.codec core.fs.directories core.fs.explain "
        "core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes core.homes "
        "core.locks core.paths core.records core.zones issues issues.board issues.declaration "
        "issues.reader issues.schedule issues.views models models.ladder workspaces "
        "workspaces.access workspaces.registry",
    'alice-inbox list --json':
        "cli.inbox cli.inbox_text cli.inbox_verbs core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records inbox inbox.counter inbox.files inbox.push inbox.query inbox.readstate "
        "inbox.readstate.document inbox.readstate.marks inbox.references inbox.store",
    'alice-inbox list --limit 20':
        "cli.inbox cli.inbox_text cli.inbox_verbs core.beneath core.clock core.flock core.fs "
        "core.fs.codec core.fs.directories core.fs.explain core.fs.locked core.fs.moves "
        "core.fs.reads core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines "
        "core.locks core.paths core.records inbox inbox.counter inbox.files inbox.push inbox.query "
        "inbox.readstate inbox.readstate.document inbox.readstate.marks inbox.references "
        "inbox.store",
    'alice-inbox count --json':
        "cli.inbox cli.inbox_text cli.inbox_verbs core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records inbox inbox.counter inbox.files inbox.push inbox.query inbox.readstate "
        "inbox.readstate.document inbox.readstate.marks inbox.references inbox.store",
    'alice-inbox show {ENTRY} --json':
        "cli.inbox cli.inbox_text cli.inbox_verbs core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records inbox inbox.counter inbox.files inbox.push inbox.query inbox.readstate "
        "inbox.readstate.document inbox.readstate.marks inbox.references inbox.store workspaces "
        "workspaces.access workspaces.registry",
    'alice journal':
        "cli.alice cli.alice_journal core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records journal journal.counts journal.reader journal.recorder "
        "journal.registry",
    'alice journal --json':
        "cli.alice cli.alice_journal core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records journal journal.counts journal.reader journal.recorder "
        "journal.registry",
    'alice journal --after-seq {SEQ} --json':
        "cli.alice cli.alice_journal core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records journal journal.counts journal.reader journal.recorder "
        "journal.registry",
    'alice-schedule runs --json':
        "cli.schedule cli.schedule_runs core.beneath core.clock core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.jsonl core.jsonl_lines core.locks "
        "core.paths core.records runs runs.tasks",
    'alice-schedule health --json':
        "core.once core.lazy core.derived issues.index "
        "core.executables agents agents.base agents.claude agents.registry agents.shellrc agents.shims cli.schedule cli.schedule_health "
        "core.beneath core.clock core.cron core.flock core.frontmatter core.frontmatter.flow "
        "core.frontmatter.model core.frontmatter.parser core.frontmatter.quoted "
        "core.frontmatter.reader core.frontmatter.scalars core.frontmatter.values "
        "core.frontmatter.writer core.fs core.fs.codec core.fs.directories core.fs.explain "
        "core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes core.homes "
        "core.jsonl core.jsonl_lines core.locks core.paths core.records core.secrets "
        "core.tools core.zones credentials credentials.vault credentials.wires issues "
        "issues.cursors issues.declaration issues.due issues.readiness issues.reader models "
        "models.ladder preferences preferences.settings runs runs.tasks schedule "
        "schedule.address schedule.health sessions sessions.binding sessions.native "
        "sessions.resolve sessions.store workspaces workspaces.access workspaces.registry",
    'harness-adapter list --json':
        "adapters adapters.catalog adapters.effective adapters.envfile adapters.invoke "
        "adapters.vault_link adapters.models adapters.state cli.adapter cli.adapter_verbs "
        "core.beneath core.clock core.flock core.fs core.fs.codec core.fs.directories "
        "core.fs.explain core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes "
        "core.homes core.locks core.paths core.records core.redact core.resources core.secrets "
        "credentials credentials.vault credentials.wires models models.ladder core.digests "
        "core.schema_passes",  # (vault links)
    'alice session list --json':
        "cli.alice cli.alice_session core.beneath core.clock core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.locks core.paths core.records sessions "
        "sessions.binding sessions.native sessions.resolve sessions.store workspaces workspaces.access "
        "workspaces.registry",
    'alice settings show --json':
        "core.once cli.alice cli.alice_settings core.beneath core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.locks core.paths core.records "
        "core.secrets models models.ladder preferences preferences.settings workspaces "
        "workspaces.access workspaces.registry",
    'alice credential list --json':
        # (the adapter modules: where the other secret store is, and what the vault could link)
        "core.digests core.schema_passes adapters adapters.catalog adapters.envfile adapters.vault_link "
        "cli.alice cli.alice_credential core.beneath core.clock core.flock core.fs "
        "core.fs.codec core.fs.directories core.fs.explain core.fs.locked core.fs.moves "
        "core.fs.reads core.fs.temps core.fs.writes core.homes core.locks core.paths "
        "core.records core.resources core.secrets credentials credentials.vault credentials.wires models models.ladder",
    'alice models list --json':
        "cli.alice cli.alice_models core.beneath core.clock core.flock core.fs core.fs.codec "
        "core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.homes core.locks core.paths core.records "
        "core.resources core.secrets credentials credentials.catalog credentials.vault "
        "credentials.wires models models.ladder models.semantics",
    # the workspace view's: a pack's revision and a plan's digest are sha256 (core.digests)
    'alice-harness status --workspace ws0 --json':
        "core.lazy core.digests agents agents.shellrc agents.shims cli.harness cli.harness_verbs core.beneath core.clock "
        "core.crash core.flock core.frontmatter core.frontmatter.flow core.frontmatter.model "
        "core.frontmatter.parser core.frontmatter.quoted core.frontmatter.reader "
        "core.frontmatter.scalars core.frontmatter.values core.frontmatter.writer core.fs "
        "core.fs.codec core.fs.directories core.fs.explain core.fs.locked core.fs.moves core.fs.reads "
        "core.fs.temps core.fs.writes core.git core.git.command core.git.commits core.git.locks "
        "core.git.merge core.git.remote core.homes core.jsonl core.jsonl_lines core.leases core.locks "
        "core.paths core.records core.resources core.tools harness harness.bundle harness.config "
        "harness.following harness.planning harness.recovery harness.scopes harness.state "
        "harness.status harness.upgrade journal journal.counts journal.reader journal.recorder "
        "journal.registry managed managed.diff3 managed.linediff managed.myers managed.plan "
        "managed.ritual managed.snapshot managed.stores managed.transaction runs runs.admission "
        "runs.tasks workspaces workspaces.access workspaces.checkout workspaces.registry "
        "workspaces.skills",
    'alice-harness config show --workspace ws0 --json':
        "core.lazy core.digests agents agents.shellrc agents.shims cli.harness cli.harness_verbs core.beneath core.flock "
        "core.frontmatter core.frontmatter.flow core.frontmatter.model core.frontmatter.parser "
        "core.frontmatter.quoted core.frontmatter.reader core.frontmatter.scalars "
        "core.frontmatter.values core.frontmatter.writer core.fs core.fs.codec core.fs.directories "
        "core.fs.explain core.fs.locked core.fs.moves core.fs.reads core.fs.temps core.fs.writes "
        "core.homes core.locks core.paths core.records core.resources core.tools harness "
        "harness.bundle harness.config harness.following harness.scopes harness.settings "
        "harness.state managed managed.snapshot workspaces workspaces.access workspaces.registry",
    'alice-harness stickers list --json':
        "core.lazy core.digests cli.harness cli.harness_stickers cli.harness_verbs core.beneath core.clock core.flock "
        "core.fs core.fs.codec core.fs.directories core.fs.explain core.fs.locked core.fs.moves "
        "core.fs.reads core.fs.temps core.fs.writes core.homes core.locks core.paths core.records "
        "core.resources stickers stickers.library stickers.pack",
    'alice-harness stickers cat alice-ink wave.png --json':
        "core.lazy core.digests cli.harness cli.harness_stickers cli.harness_verbs core.beneath core.clock core.flock "
        "core.fs core.fs.codec core.fs.directories core.fs.explain core.fs.locked core.fs.moves "
        "core.fs.reads core.fs.temps core.fs.writes core.homes core.locks core.paths core.records "
        "core.resources stickers stickers.library stickers.pack",
}


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    import os

    base = tmp_path_factory.mktemp("read-verbs")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(OPENALICE_HOME=str(base / "home"), HARNESS_HOME=str(base / "harness"),
               HOME=str(base))
    values = read_verbs.build_state(base, env, lambda name: [tool_path(name)])
    # the issue index warm, as on a machine in use (a first read also creates its directory)
    subprocess.run([tool_path("alice"), "issue", "board", "--json"], env=env, capture_output=True,
                   check=True, cwd=str(base))
    # and the adapter catalog's schema pass recorded (core.schema_passes), as after any first use
    subprocess.run([tool_path("harness-adapter"), "list", "--json"], env=env, capture_output=True,
                   check=True, cwd=str(base))
    return base, env, values


_MODULE = {"alice": "alice", "alice-inbox": "inbox", "alice-schedule": "schedule",
           "harness-adapter": "adapter", "alice-harness": "harness"}


@pytest.mark.parametrize("tool,argv,where", read_verbs.READ_VERBS,
                         ids=[" ".join([t, *a]) for t, a, _ in read_verbs.READ_VERBS])
def test_a_read_verb_imports_only_its_pinned_modules(state, tool, argv, where):
    base, env, values = state
    key = " ".join([tool, *argv])
    code = ("import sys, io\nbefore = set(sys.modules)\nreal, sys.stdout = sys.stdout, io.StringIO()\n"
            f"from openalice.cli.{_MODULE[tool]} import main\ncode = main(sys.argv[1:])\n"
            "sys.stdout = real\nprint(code)\nprint(sorted(set(sys.modules) - before))")
    r = subprocess.run([sys.executable, "-c", code, *read_verbs.fill(argv, values)], env=env,
                       capture_output=True, text=True,
                       cwd=values["workspace"] if where == "workspace" else str(base))
    assert r.returncode == 0, r.stderr
    status, loaded = r.stdout.splitlines()[:2]
    assert status == "0", r.stderr
    loaded = set(eval(loaded))  # a printed list of module names
    ours = {m for m in loaded if m.startswith("openalice")} - COMMON
    assert ours == {f"openalice.{m}" for m in PINNED[key].split()}, key
    assert not (loaded & HEAVY) - ALLOWED.get(key, set()), sorted(loaded & HEAVY)


def test_every_listed_read_verb_is_pinned():
    assert set(PINNED) == {" ".join([t, *a]) for t, a, _ in read_verbs.READ_VERBS}
