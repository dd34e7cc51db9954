"""SIGKILL a writer at random moments; the files must stay whole.

50 kills by default; set OPENALICE_CRASH_ITERATIONS for a longer run.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from openalice.core import fs, jsonl

REPO = Path(__file__).resolve().parents[2]
WRITER = REPO / "tests" / "helpers" / "crash_writer.py"


def test_sigkill_never_leaves_half_a_file(tmp_path):
    iterations = int(os.environ.get("OPENALICE_CRASH_ITERATIONS", "50"))
    rng = random.Random(1234)
    journal_path = tmp_path / "journal.jsonl"
    torn_seen = 0
    for _ in range(iterations):
        writer = subprocess.Popen([sys.executable, str(WRITER), str(tmp_path), str(REPO)],
                                  stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline().strip() == "ready"
        # The kill must land at an arbitrary point of the write loop, so this
        # one test does wait a random few milliseconds (it is not timing anything).
        time.sleep(rng.uniform(0, 0.02))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()

        state = json.loads((tmp_path / "state.json").read_text())  # always parses
        assert isinstance(state["n"], int)
        raw = journal_path.read_bytes()
        if raw and not raw.endswith(b"\n"):
            torn_seen += 1
        complete = raw[: raw.rfind(b"\n") + 1]
        seqs = [json.loads(line)["seq"] for line in complete.splitlines()]  # no glued records
        assert seqs == sorted(set(seqs)) and seqs == list(range(1, len(seqs) + 1))

    # The next append repairs any torn tail and lands intact.
    stored = jsonl.Journal(journal_path).append({"type": "after"})
    lines = journal_path.read_bytes().splitlines()
    assert json.loads(lines[-1]) == stored
    assert [json.loads(l)["seq"] for l in lines] == list(range(1, len(lines) + 1))
    fs.sweep_temp_files(tmp_path, older_than=0)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(fs.TEMP_PREFIX)]
    assert leftovers == []
    print(f"{iterations} kills, {torn_seen} left a torn journal tail")
