import json
import os

from openalice.core import jsonl


def make(tmp_path, n, durable=False):
    j = jsonl.Journal(tmp_path / "j.jsonl", durable=durable)
    for i in range(n):
        j.append({"type": "t", "i": i, "pad": "x" * (i % 200)})
    return j


def test_seq_is_monotonic_from_one(tmp_path):
    j = make(tmp_path, 10)
    seqs = [json.loads(l)["seq"] for l in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert seqs == list(range(1, 11))
    assert j.last_seq() == 10
    # a fresh instance (another process) continues the sequence
    assert jsonl.Journal(tmp_path / "j.jsonl").append({"type": "t"})["seq"] == 11


def test_seq_key_first_and_caller_seq_ignored(tmp_path):
    j = jsonl.Journal(tmp_path / "j.jsonl")
    stored = j.append({"seq": 999, "type": "x"})
    assert stored["seq"] == 1
    assert (tmp_path / "j.jsonl").read_text().startswith('{"seq":1,')


def test_tail_newest_first_and_predicate(tmp_path):
    j = make(tmp_path, 3000)
    assert [r["seq"] for r in j.tail(3)] == [3000, 2999, 2998]
    odd = j.tail(2, predicate=lambda r: r["i"] % 2 == 1)
    assert [r["seq"] for r in odd] == [3000, 2998]
    assert j.tail(0) == []


def test_after_seq_ascending_with_limit(tmp_path):
    j = make(tmp_path, 5000)
    for start in (0, 1, 77, 2499, 4990, 4999, 5000, 7000):
        got = [r["seq"] for r in j.after_seq(start, limit=5)]
        assert got == list(range(start + 1, min(start + 6, 5001))), start
    assert [r["seq"] for r in j.after_seq(4997)] == [4998, 4999, 5000]


def test_torn_tail_repaired_before_next_append(tmp_path):
    make(tmp_path, 5)
    path = tmp_path / "j.jsonl"
    with open(path, "ab") as fh:
        fh.write(b'{"seq":6,"type":"half')
    # readers skip the fragment and report it
    reader = jsonl.Journal(path)
    assert [r["seq"] for r in reader.tail(10)] == [5, 4, 3, 2, 1]
    assert any("torn" in p["reason"] for p in reader.problems)
    stored = jsonl.Journal(path).append({"type": "next"})
    assert stored["seq"] == 6
    lines = path.read_bytes().splitlines()
    assert len(lines) == 6 and all(json.loads(l) for l in lines)
    assert (tmp_path / "j.jsonl.torn").read_bytes() == b'{"seq":6,"type":"half\n'


def test_torn_tail_longer_than_a_block(tmp_path):
    make(tmp_path, 3)
    path = tmp_path / "j.jsonl"
    with open(path, "ab") as fh:
        fh.write(b'{"seq":4,"blob":"' + b"y" * (3 * jsonl.BLOCK_SIZE))
    reader = jsonl.Journal(path)
    assert [l.record["seq"] for l in reader.iter_backward()] == [3, 2, 1]
    assert reader.append({"type": "x"})["seq"] == 4


def test_malformed_middle_line_skipped_and_seq_continues(tmp_path):
    make(tmp_path, 3)
    path = tmp_path / "j.jsonl"
    with open(path, "ab") as fh:
        fh.write(b"this is not json\n[1,2]\n")
    j2 = jsonl.Journal(path)
    assert j2.append({"type": "x"})["seq"] == 4
    assert [l.record["seq"] for l in j2.iter_forward()] == [1, 2, 3, 4]
    assert len(j2.problems) == 2
    assert [r["seq"] for r in j2.after_seq(2)] == [3, 4]


def test_empty_and_missing_file(tmp_path):
    j = jsonl.Journal(tmp_path / "none.jsonl")
    assert j.tail(5) == [] and j.after_seq(0) == [] and j.last_seq() == 0
    (tmp_path / "empty.jsonl").write_bytes(b"")
    assert jsonl.Journal(tmp_path / "empty.jsonl").tail(5) == []


def test_plain_jsonl_append_and_lines_offsets(tmp_path):
    f = jsonl.JsonlFile(tmp_path / "e.jsonl")
    for i in range(3):
        f.append({"id": f"e{i}", "body": "ü" * i})
    lines = list(f.iter_forward())
    raw = (tmp_path / "e.jsonl").read_bytes()
    for line in lines:
        assert raw[line.offset:].startswith(b'{"id":"' + line.record["id"].encode())
    assert [l.offset for l in f.iter_backward()] == [l.offset for l in reversed(lines)]


def test_tail_reads_only_the_end(tmp_path, monkeypatch):
    """O(page): the newest records must not read the whole file."""
    j = make(tmp_path, 20000)
    reads = []
    real_pread = os.pread

    def counting(fd, n, off):
        reads.append(n)
        return real_pread(fd, n, off)

    monkeypatch.setattr(os, "pread", counting)
    assert len(j.tail(50)) == 50
    assert sum(reads) <= 3 * jsonl.BLOCK_SIZE
    assert (tmp_path / "j.jsonl").stat().st_size > 20 * jsonl.BLOCK_SIZE
