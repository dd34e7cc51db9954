"""The suite's own isolation: a test that changes this process's environment or
cwd without monkeypatch (as the reliability suite's ``Machine.enter()`` does)
leaves nothing to the next test.  The two tests run in file order."""

from __future__ import annotations

import os

LEAK = "OPENALICE_TEST_LAUNCH"


def test_a_test_that_leaks_environment_and_cwd(tmp_path):
    os.environ[LEAK] = "none"
    os.environ["PATH"] = f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}"
    os.chdir(tmp_path)


def test_the_next_test_inherits_none_of_it(tmp_path_factory):
    assert LEAK not in os.environ
    base = str(tmp_path_factory.getbasetemp())
    assert not os.environ["PATH"].startswith(base)
    assert not os.getcwd().startswith(base)
