"""The workspace view's routes: harness status, config switches, the upgrade
preview and its apply with the digest and one resolution per conflict,
sticker packs and their thumbnails, Studio, sessions, connectors.  Ids, keys,
paths and bodies are checked before any shell-out, argv are separate items,
a secret travels on stdin only, and state changes need token and Origin."""

from __future__ import annotations

import base64
import re

import pytest

from openalice.gateway import params
from openalice.stickers import pack as sticker_pack

DIGEST = "ab" * 32
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def test_status_runs_harness_status_and_attention_is_data(fake):
    fake.runner.answer(3, {"workspaces": [{"workspaceId": "notes", "upToDate": False}],
                           "error": {"code": "needs_attention", "message": "x", "exit": 3}})
    r = fake.get("/api/workspaces/notes/harness")
    assert r.status == 200 and r.json()["workspaces"][0]["workspaceId"] == "notes"
    assert fake.runner.calls == [("alice-harness", ("status", "--workspace=notes", "--json"), None)]
    fake.runner.calls.clear()
    fake.runner.answer(3, {"workspaces": [], "error": {"code": "x", "message": "x", "exit": 3}})
    assert fake.get("/api/workspaces/notes/stickers").status == 200
    assert fake.runner.calls[0][1] == ("stickers", "status", "--workspace=notes", "--json")
    fake.runner.calls.clear()
    fake.runner.answer(2, {"error": {"code": "not_found", "message": "no such workspace", "exit": 2}})
    r = fake.get("/api/workspaces/nope/harness")
    assert r.status == 400 and r.json()["error"]["message"] == "no such workspace"


def test_config_set_maps_switches_to_key_value_positionals(fake):
    r = fake.post("/api/workspaces/notes/harness/config",
                  {"set": {"skills.file-delivery": True, "cli.alice-inbox.enabled": False,
                           "cli.alice.groups.inbox": False}})
    assert r.status == 200
    assert fake.runner.calls == [("alice-harness", (
        "config", "set", "skills.file-delivery=true", "cli.alice-inbox.enabled=false",
        "cli.alice.groups.inbox=false", "--workspace=notes", "--json"), None)]


@pytest.mark.parametrize("body", [
    {}, {"set": {}}, {"set": []}, {"set": {"skills.x": "true"}}, {"set": {"--json": True}},
    {"set": {"skills.../x": True}}, {"set": {"cli.alice.bogus": True}}, {"set": {"skills.a=b": True}},
    {"set": {"skills.x": True}, "other": 1},
])
def test_a_bad_config_body_is_400_before_any_shell_out(fake, body):
    assert fake.post("/api/workspaces/notes/harness/config", body).status == 400
    assert fake.runner.calls == []


def test_preview_and_apply_with_the_digest_and_one_resolution_each(fake):
    assert fake.get("/api/workspaces/notes/harness/upgrade?template=1").status == 200
    assert fake.runner.calls[-1][1] == ("upgrade", "--workspace=notes", "--json", "--template")
    r = fake.post("/api/workspaces/notes/harness/upgrade", {
        "digest": DIGEST, "keepWorkspace": ["AGENTS.md"], "useTemplate": [".agents/skills/a/SKILL.md"]})
    assert r.status == 200
    assert fake.runner.calls[-1] == ("alice-harness", (
        "upgrade", "--workspace=notes", "--apply", f"--digest={DIGEST}", "--keep-workspace=AGENTS.md",
        "--use-template=.agents/skills/a/SKILL.md", "--json"), None)


def test_a_stale_plan_is_the_clis_refusal(fake):
    fake.runner.answer(2, {"ok": False, "error": {"code": "stale_plan", "exit": 2,
                                                  "message": "the workspace changed since the preview",
                                                  "details": {"digest": "cd" * 32}}})
    r = fake.post("/api/workspaces/notes/harness/upgrade", {"digest": DIGEST})
    assert r.status == 400 and r.json()["error"]["code"] == "stale_plan"


@pytest.mark.parametrize("body", [
    {}, {"digest": "abc"}, {"digest": DIGEST.upper()}, {"digest": DIGEST, "keepWorkspace": ["../etc/passwd"]},
    {"digest": DIGEST, "keepWorkspace": ["/etc/passwd"]}, {"digest": DIGEST, "useTemplate": ["--json"]},
    {"digest": DIGEST, "useTemplate": ["a//b"]}, {"digest": DIGEST, "useTemplate": ["a\x00b"]},
    {"digest": DIGEST, "useTemplate": "AGENTS.md"}, {"digest": DIGEST, "template": "yes"},
    {"digest": DIGEST, "keepWorkspace": ["A.md"], "useTemplate": ["A.md"]},
    {"digest": DIGEST, "keepWorkspace": ["A.md", "A.md"]}, {"digest": DIGEST, "bundle": "/tmp/b"},
])
def test_a_bad_apply_body_is_400_before_any_shell_out(fake, body):
    assert fake.post("/api/workspaces/notes/harness/upgrade", body).status == 400
    assert fake.runner.calls == []


@pytest.mark.parametrize("body,argv", [
    ({"action": "enable", "pack": "alice-ink"}, ("enable", "--pack=alice-ink")),
    ({"action": "enable", "pack": "alice-ink", "apply": True, "digest": DIGEST},
     ("enable", "--pack=alice-ink", "--apply", f"--digest={DIGEST}")),
    ({"action": "enable", "restore": True, "apply": True, "keep": ["sticker/wave.png"]},
     ("enable", "--restore", "--apply", "--keep=sticker/wave.png")),
    ({"action": "disable"}, ("disable",)),
    ({"action": "disable", "apply": False}, ("disable", "--preview")),
])
def test_sticker_actions_map_to_enable_and_disable(fake, body, argv):
    assert fake.post("/api/workspaces/notes/stickers", body).status == 200
    assert fake.runner.calls == [("alice-harness", ("stickers", *argv, "--workspace=notes", "--json"),
                                  None)]


@pytest.mark.parametrize("body", [
    {}, {"action": "import"}, {"action": "enable", "pack": "../x"}, {"action": "enable", "pack": "-rf"},
    {"action": "disable", "pack": "alice-ink"}, {"action": "enable", "digest": DIGEST},
    {"action": "enable", "keep": ["sticker/a.png"]}, {"action": "enable", "apply": 1},
    {"action": "disable", "apply": False, "digest": DIGEST},
])
def test_a_bad_sticker_body_is_400_before_any_shell_out(fake, body):
    assert fake.post("/api/workspaces/notes/stickers", body).status == 400
    assert fake.runner.calls == []


def test_a_thumbnail_is_the_packs_image_served_inline_only_as_an_image(fake):
    fake.runner.answer(0, {"id": "alice-ink", "revision": "1.0.0+0123456789ab", "file": "wave.png",
                           "kind": "png", "bytes": len(PNG), "sha256": "0" * 64, "encoding": "base64",
                           "content": base64.b64encode(PNG).decode()})
    r = fake.get("/api/stickers/alice-ink/files/wave.png")
    assert r.status == 200 and r.body == PNG
    assert r.header("Content-Type") == "image/png" and r.header("X-Content-Type-Options") == "nosniff"
    assert r.header("Content-Security-Policy").startswith("sandbox")
    assert fake.runner.calls == [("alice-harness", ("stickers", "cat", "alice-ink", "wave.png", "--json"),
                                  None)]
    fake.runner.answer(0, {"file": "wave.png", "content": base64.b64encode(b"<html>").decode()})
    r = fake.get("/api/stickers/alice-ink/files/wave.png")
    assert r.header("Content-Type") == "application/octet-stream"  # not an image: never inline
    fake.runner.answer(0, b"garbage")
    assert fake.get("/api/stickers/alice-ink/files/wave.png").status == 502


@pytest.mark.parametrize("path", [
    "/api/stickers/..%2Fx/files/wave.png", "/api/stickers/alice-ink/files/wave.svg",
    "/api/stickers/alice-ink/files/..%2Fpack.json", "/api/stickers/alice-ink/files/-x.png",
    "/api/stickers/Alice/files/wave.png", "/api/stickers/alice-ink/files/a%00.png",
])
def test_a_bad_pack_or_sticker_name_is_400_before_any_shell_out(fake, path):
    assert fake.get(path).status == 400
    assert fake.runner.calls == []


def test_the_gateway_grammars_are_the_sticker_librarys():
    for value in ("alice-ink", "a", "x" * 64, "x" * 65, "A", "-a", "a_b"):
        assert bool(params.PACK_ID_RE.match(value)) == bool(sticker_pack.ID_RE.match(value)), value
    for value in ("wave.png", "a_b-c.webp", "x.svg", "-a.png", ".png", "a" * 81 + ".png"):
        assert bool(params.STICKER_FILE_RE.match(value)) == bool(sticker_pack.FILE_RE.match(value)), value


def test_studio_sessions_and_their_argv(fake):
    fake.get("/api/workspaces/app/studio")
    fake.post("/api/workspaces/app/studio", {"action": "start"})
    fake.post("/api/workspaces/app/studio", {"action": "stop"})
    fake.get("/api/workspaces/app/studio/logs?bytes=2048")
    fake.get("/api/workspaces/app/sessions")
    assert [c[1] for c in fake.runner.calls] == [
        ("studio", "status", "--workspace=app", "--json"), ("studio", "start", "--workspace=app", "--json"),
        ("studio", "stop", "--workspace=app", "--json"),
        ("studio", "logs", "--workspace=app", "--bytes=2048", "--json"),
        ("session", "list", "--workspace=app", "--json")]


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/api/workspaces/app/studio", {"action": "kill"}),
    ("POST", "/api/workspaces/app/studio", {"action": "start", "argv": ["sh"]}),
    ("POST", "/api/workspaces/app/studio", {}),
    ("GET", "/api/workspaces/app/studio/logs?bytes=0", None),
    ("GET", "/api/workspaces/app/studio/logs?bytes=70000", None),
    ("GET", "/api/workspaces/..%2Fapp/studio", None), ("GET", "/api/workspaces/-rf/sessions", None),
    ("POST", "/api/workspaces/Notes/harness/upgrade", {"digest": DIGEST}),
    ("POST", "/api/connectors/..%2Fx/enable", {}), ("POST", "/api/connectors/-x/disable", {}),
    ("POST", "/api/connectors/hook/enable", {"force": True}),
])
def test_bad_ids_and_bodies_are_400_before_any_shell_out(fake, method, path, body):
    assert fake.request(method, path, body).status == 400
    assert fake.runner.calls == []


def test_connectors_enable_disable_and_add_with_the_secret_on_stdin_only(fake):
    fake.post("/api/connectors/hook/enable", {})
    fake.post("/api/connectors/hook/disable", {})
    secret = "sign-" + "s" * 40
    r = fake.post("/api/connectors", {"kind": "webhook", "name": "hook", "url": "http://127.0.0.1:9/in",
                                      "secret": secret, "workspaces": ["notes"], "replace": True})
    assert r.status == 200
    calls = fake.runner.calls
    assert calls[0] == ("alice", ("connector", "enable", "hook", "--json"), None)
    assert calls[1] == ("alice", ("connector", "disable", "hook", "--json"), None)
    tool, args, stdin = calls[2]
    assert (tool, stdin) == ("alice", secret.encode())
    assert args == ("connector", "add", "webhook", "hook", "--json", "--url=http://127.0.0.1:9/in",
                    "--workspace=notes", "--replace", "--sign")
    assert not any(secret in a for a in args) and secret not in fake.log.getvalue()


@pytest.mark.parametrize("body", [
    {"kind": "webhook", "name": "hook"}, {"kind": "shell", "name": "x"}, {"kind": "webhook", "name": "-x",
                                                                          "url": "http://a/"},
    {"kind": "webhook", "name": "hook", "url": "file:///etc/passwd"},
    {"kind": "telegram", "name": "phone", "chatIds": ["12"]},
    {"kind": "telegram", "name": "phone", "secret": "t", "chatIds": ["12; rm"]},
    {"kind": "desktop", "name": "bell", "secret": "x"}, {"kind": "desktop", "name": "bell", "workspaces": "a"},
    {"kind": "desktop", "name": "bell", "sign": True},
])
def test_a_bad_connector_is_400_before_any_shell_out(fake, body):
    assert fake.post("/api/connectors", body).status == 400
    assert fake.runner.calls == []


@pytest.mark.parametrize("method,path,body", [
    ("POST", "/api/workspaces/notes/harness/config", {"set": {"skills.a": True}}),
    ("POST", "/api/workspaces/notes/harness/upgrade", {"digest": DIGEST}),
    ("POST", "/api/workspaces/notes/stickers", {"action": "disable"}),
    ("POST", "/api/workspaces/app/studio", {"action": "start"}),
    ("POST", "/api/connectors", {"kind": "desktop", "name": "bell"}),
    ("POST", "/api/connectors/hook/enable", {}),
])
def test_every_action_needs_the_token_and_the_origin(fake, method, path, body):
    assert fake.request(method, path, body, state=False).status == 403
    assert fake.request(method, path, body, headers={"Origin": "http://evil.example"}).status == 403
    assert fake.runner.calls == []


@pytest.mark.parametrize("path", [
    "/api/workspaces/notes/harness", "/api/workspaces/notes/stickers", "/api/stickers",
    "/api/stickers/alice-ink/files/wave.png", "/api/workspaces/app/studio", "/api/workspaces/app/sessions",
])
def test_every_read_needs_credentials(fake, path):
    r = fake.request("GET", path, None, auth=None)
    assert r.status == 401 and fake.runner.calls == []
    assert re.search(r"unauthenticated", r.body.decode())


def test_a_telegram_connector_takes_its_token_on_stdin_and_a_desktop_one_none(fake):
    token = "123456:" + "T" * 35
    r = fake.post("/api/connectors", {"kind": "telegram", "name": "phone", "secret": token,
                                      "chatIds": ["123456789"], "apiBase": "http://127.0.0.1:8081",
                                      "workspaces": ["notes"]})
    assert r.status == 200
    fake.post("/api/connectors", {"kind": "desktop", "name": "bell", "skipSilent": True, "backfill": True})
    (_, args, stdin), (_, desk, none) = fake.runner.calls
    assert stdin == token.encode() and not any(token in a for a in args)
    assert args == ("connector", "add", "telegram", "phone", "--json", "--api-base=http://127.0.0.1:8081",
                    "--chat-id=123456789", "--workspace=notes")
    assert desk == ("connector", "add", "desktop", "bell", "--json", "--skip-silent", "--backfill")
    assert none is None
