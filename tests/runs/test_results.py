"""A run's results through the API: its files, its structured output, waiting for its end."""

import os

import pytest

from openalice.core import fs, proc
from openalice.core.errors import Busy
from openalice.runs import results

from .test_supervisor import new_task


def test_log_paths_name_the_task_directory_files(registry, ws):
    tasks, _ = registry
    task_id = new_task(tasks, ws)
    directory = tasks.task_dir(task_id)
    assert results.log_paths(task_id) == {"stdout": str(directory / "stdout.log"),
                                          "stderr": str(directory / "stderr.log"),
                                          "structured": str(directory / "structured.json")}


def test_read_structured_reports_what_is_wrong_instead_of_raising(registry, ws):
    tasks, _ = registry
    task_id = new_task(tasks, ws)
    assert results.read_structured(task_id) == (None, None)  # nothing written yet
    path = tasks.task_dir(task_id) / results.STRUCTURED
    fs.atomic_write_json(path, [1, 2])
    data, problem = results.read_structured(task_id)
    # state JSON is read strictly: the problem names the file and says what is wrong
    assert data is None and problem == f"{path}: malformed: the top level is an array, not an object"
    fs.atomic_write_json(path, {"schemaVersion": 1, "assistantText": "ok"})
    assert results.read_structured(task_id) == ({"schemaVersion": 1, "assistantText": "ok"}, None)


def test_waiting_returns_an_ended_run_at_once_and_gives_up_on_a_live_one(registry, ws):
    tasks, _ = registry
    task_id = new_task(tasks, ws)
    me = {"pid": os.getpid(), "startToken": proc.start_token(os.getpid())}
    tasks.update_task(task_id, {"supervisor": me})  # a live supervisor: it stays running
    with pytest.raises(Busy) as caught:
        results.wait_until_ended(task_id, timeout=0)
    assert caught.value.code == "still_running" and caught.value.details == {"taskId": task_id}
    tasks.update_task(task_id, {"status": "done"})
    assert results.wait_until_ended(task_id, timeout=0)["status"] == "done"
