import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

APPENDER = """
import sys
sys.path.insert(0, sys.argv[3])
from openalice.core import jsonl
j = jsonl.Journal(sys.argv[1])
for i in range(200):
    j.append({"type": "conc", "writer": int(sys.argv[2]), "i": i})
"""


def test_eight_processes_append_1600_records_with_exact_seq(tmp_path):
    path = tmp_path / "j.jsonl"
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, str(path), str(w), str(REPO)])
             for w in range(8)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    records = [json.loads(line) for line in path.read_bytes().splitlines()]
    assert [r["seq"] for r in records] == list(range(1, 1601))
    per_writer = {}
    for r in records:
        per_writer.setdefault(r["writer"], []).append(r["i"])
    assert all(per_writer[w] == list(range(200)) for w in range(8))
