"""Machine state: fail-closed defaults, subset rule, secret refusal, atomic concurrent writes."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from openalice.adapters import catalog, state
from openalice.core.errors import InvalidInput

REPO = Path(__file__).resolve().parents[2]


def codex():
    return catalog.find("codex")


def test_absent_state_means_every_adapter_disabled():
    assert not state.state_path().exists()
    assert state.load_state() == {}
    assert state.AdapterState().enabled is False


def test_enable_disable_round_trip_writes_valid_state():
    state.set_enabled("codex", True)
    assert state.load_state()["codex"].enabled is True
    state.set_enabled("codex", False)
    document = json.loads(state.state_path().read_text())
    assert document == {"version": "adapters-state/v1", "state": {"codex": {"enabled": False}}}


def test_model_allow_must_be_a_subset_of_the_catalog():
    with pytest.raises(InvalidInput) as info:
        state.set_model_allow(codex(), ["gpt-5-codx"])
    assert info.value.code == "model_not_in_catalog"
    assert info.value.details["hint"] == "did you mean 'gpt-5-codex'?"
    assert not state.state_path().exists()  # nothing written
    narrowed = state.set_model_allow(codex(), ["gpt-5-codex", "gpt-5-codex"])
    assert narrowed.modelAllow == ("gpt-5-codex",)
    assert state.set_model_allow(codex(), None).modelAllow is None


@pytest.mark.parametrize("key", ["api_key", "apiKey", "TOKEN", "password", "client_secret",
                                 "auth_header"])
def test_secret_looking_config_keys_are_refused(key):
    with pytest.raises(InvalidInput) as info:
        state.set_config("codex", {key: "x"})
    assert info.value.code == "secret_in_config" and info.value.exit_code == 2
    assert not state.state_path().exists()


@pytest.mark.parametrize("value", ["sk-abcdefgh12345678", "Bearer abcdefghijklmnop",
                                   "https://user:hunter2@proxy.example/v1"])
def test_credential_shaped_config_values_are_refused(value):
    with pytest.raises(InvalidInput) as info:
        state.set_config("codex", {"base_url": value})
    assert info.value.code == "secret_in_config"
    assert value not in str(info.value) and value not in json.dumps(info.value.to_dict())


def test_config_set_and_unset():
    state.set_config("codex", {"region": "eu", "base_url": "http://127.0.0.1:8080/v1"})
    state.set_config("codex", {"region": "us"}, ["base_url"])
    assert state.load_state()["codex"].config == {"region": "us"}
    state.set_config("codex", None, ["region"])
    assert "config" not in json.loads(state.state_path().read_text())["state"]["codex"]
    with pytest.raises(InvalidInput):
        state.set_config("codex", {"bad key": "x"})


def test_a_hand_edited_secret_fails_reads_but_can_be_unset():
    path = state.state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": "adapters-state/v1", "state": {
        "codex": {"enabled": True, "config": {"api_key": "sk-handedited0123"}}}}))
    with pytest.raises(InvalidInput) as info:
        state.load_state()
    assert info.value.field == "/state/codex/config/api_key"
    assert "sk-handedited0123" not in json.dumps(info.value.to_dict())
    state.set_config("codex", None, ["api_key"])
    assert state.load_state()["codex"].config == {}


def test_malformed_state_is_an_error_and_is_never_overwritten():
    path = state.state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": "adapters-state/v1", "state": {"codex": {"enabled": "yes"}}}')
    before = path.read_bytes()
    with pytest.raises(InvalidInput) as info:
        state.load_state()
    assert info.value.file == str(path) and info.value.field == "/state/codex/enabled"
    with pytest.raises(InvalidInput):
        state.set_enabled("claude", True)
    assert path.read_bytes() == before
    path.write_text("{not json")
    with pytest.raises(InvalidInput) as info:
        state.set_enabled("claude", True)
    assert "malformed JSON" in info.value.message


def test_records_of_other_catalogs_are_kept():
    state.set_enabled("from-another-catalog", True)
    state.set_enabled("codex", True)
    assert set(state.load_state()) == {"from-another-catalog", "codex"}


_LOOP = """
import sys
sys.path.insert(0, sys.argv[1])
from openalice.adapters import state
ids = sys.argv[2].split(",")
rounds = int(sys.argv[3])
final = sys.argv[4] == "on"
state.set_enabled(ids[0], final)  # warm: the first write's lazy imports happen before "ready"
print("ready", flush=True)
for i in range(rounds):
    for adapter_id in ids:
        state.set_enabled(adapter_id, i % 2 == 0)
    if i == 0:
        print("writing", flush=True)   # one round written: the file exists, the loop goes on
for adapter_id in ids:
    state.set_enabled(adapter_id, final)
"""


def test_eight_processes_toggling_different_adapters_keep_every_change():
    procs = []
    for n in range(8):
        final = "on" if n % 2 == 0 else "off"
        procs.append(subprocess.Popen(
            [sys.executable, "-c", _LOOP, str(REPO), f"adapter-{n}", "15", final],
            stdout=subprocess.PIPE, text=True))
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        assert p.wait(timeout=60) == 0
        p.stdout.close()
    states = state.load_state()
    assert {k: v.enabled for k, v in states.items()} == {
        f"adapter-{n}": n % 2 == 0 for n in range(8)}


def test_sigkill_mid_write_leaves_a_whole_state_file():
    rng = random.Random(7)
    path = state.state_path()
    kills = int(os.environ.get("OPENALICE_CRASH_ITERATIONS", "25"))
    for _ in range(kills):
        p = subprocess.Popen([sys.executable, "-c", _LOOP, str(REPO), "codex,claude,pi", "100000", "on"],
                             stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "ready"
        # The kill lands inside the write loop whatever the machine's load: the
        # child says when its first round is written (so the file exists and
        # it is writing), then a random few milliseconds pass (nothing is
        # being timed) so the kill falls at an arbitrary point of a write.
        assert p.stdout.readline().strip() == "writing"
        time.sleep(rng.uniform(0.0, 0.02))
        p.send_signal(signal.SIGKILL)
        assert p.wait() == -signal.SIGKILL      # killed in the loop, never finished on its own
        p.stdout.close()
        if path.exists():
            document = json.loads(path.read_text())  # always parses
            assert document["version"] == "adapters-state/v1"
            state.load_state()  # and passes the schema
    assert path.exists()
