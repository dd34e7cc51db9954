"""Model lists: parsing, the 24 h cache, stale-on-error, curated fallback."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from openalice.adapters import catalog, models
from openalice.core.errors import Unavailable
from openalice.core.resources import schema
from openalice.core.schema import Validator

from .stubs import adapter, calls, standard_catalog, write_catalog, write_stub

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def cat(tmp_path):
    return catalog.load_catalog(standard_catalog(tmp_path))


@pytest.mark.parametrize("text, expected", [
    ("a\nb\n\n# comment\nc\n", ["a", "b", "c"]),
    ("a\na\n", ["a"]),
    ('{"models": ["x", {"id": "y", "contextWindow": 8}]}', ["x", "y"]),
    ("  openai/gpt-5  \n", ["openai/gpt-5"]),
])
def test_parse_model_list(text, expected):
    assert models.parse_model_list(text) == expected


@pytest.mark.parametrize("text", ["", "\n\n", "has space\n", '{"models": "x"}', "{broken",
                                  '{"models": [1]}', "-flag\n"])
def test_parse_model_list_rejects(text):
    with pytest.raises(ValueError):
        models.parse_model_list(text)


def test_wrapper_list_is_cached_for_24_hours(cat):
    entry = cat.get("good")
    first = models.available_models(entry, now=NOW)
    assert (first.models, first.source, first.stale, first.fetchedAt) == (
        ["m-1", "m-2", "m-3"], "wrapper", False, "2026-11-30T09:00:00Z")
    document = json.loads(models.cache_path().read_text())
    assert Validator(schema("adapters-cache")).errors(document) == []
    later = models.available_models(entry, now=NOW + timedelta(hours=23, minutes=59))
    assert later.source == "cache" and later.models == first.models
    assert calls(entry.wrapper) == ["--list-models"]  # served from the cache
    expired = models.available_models(entry, now=NOW + timedelta(hours=24))
    assert expired.source == "wrapper" and calls(entry.wrapper) == ["--list-models"] * 2


def test_refresh_forces_the_wrapper(cat):
    entry = cat.get("good")
    models.available_models(entry, now=NOW)
    assert models.available_models(entry, now=NOW, refresh=True).source == "wrapper"
    assert len(calls(entry.wrapper)) == 2


def test_an_edited_wrapper_invalidates_the_cache(cat):
    import os

    entry = cat.get("good")
    models.available_models(entry, now=NOW)
    st = os.stat(entry.wrapper)
    os.utime(entry.wrapper, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert models.available_models(entry, now=NOW).source == "wrapper"


def test_failure_returns_the_stale_list_and_is_never_cached(tmp_path):
    stub = write_stub(tmp_path, "w.sh", "healthy")
    path = write_catalog(tmp_path, [adapter("w", "w.sh", listModels=True)])
    entry = catalog.load_catalog(path).get("w")
    models.available_models(entry, now=NOW)
    write_stub(tmp_path, "w.sh", "list-fails")  # same path, now failing
    before = models.cache_path().read_bytes()
    stale = models.available_models(entry, now=NOW + timedelta(days=2))
    assert stale.stale and stale.source == "cache" and stale.models == ["m-1", "m-2", "m-3"]
    assert stale.fetchedAt == "2026-11-30T09:00:00Z"
    assert "exited 1" in stale.detail and "abcd1234secret" not in stale.detail
    assert models.cache_path().read_bytes() == before
    assert stub.exists()


def test_failure_without_a_cached_list_is_unavailable(cat):
    with pytest.raises(Unavailable) as info:
        models.available_models(cat.get("flaky"), now=NOW)
    assert info.value.exit_code == 3 and "abcd1234secret" not in str(info.value)
    assert not models.cache_path().exists()


def test_without_list_models_the_curated_list_is_returned_and_nothing_runs(cat):
    entry = cat.get("nohealth")
    result = models.available_models(entry, now=NOW, refresh=True)
    assert (result.models, result.source, result.fetchedAt, result.stale) == (["n-1"], "catalog", None, False)
    assert calls(entry.wrapper) == []


def test_json_model_list(tmp_path):
    write_stub(tmp_path, "j.sh", "json-models")
    entry = catalog.load_catalog(write_catalog(tmp_path, [adapter("j", "j.sh", listModels=True)])).get("j")
    assert models.available_models(entry, now=NOW).models == ["x-large", "x-small"]


def test_a_malformed_cache_is_reported_and_replaced(cat):
    path = models.cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{oops")
    result = models.available_models(cat.get("good"), now=NOW)
    assert result.source == "wrapper" and result.warnings and "ignoring the model cache" in result.warnings[0]
    assert json.loads(path.read_text())["entries"]["good"]["models"] == ["m-1", "m-2", "m-3"]
