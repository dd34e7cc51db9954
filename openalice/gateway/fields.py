"""JSON bodies into CLI argv: the field mapping of issue create / update and of the adapter
actions.  Every value becomes its own ``--flag=value`` item (a value starting with ``-`` is never
read as a flag); bodies and secrets go on stdin, never argv."""

from __future__ import annotations

from .errors import HttpError
from .params import check_param, json_body, no_dash, text_value

MAX_SECRET_CHARS = 64 * 1024

# JSON field -> CLI flag; every value a string, passed as --flag=value.
_ISSUE_TEXT_FLAGS = {
    "every": "--every", "cron": "--cron", "at": "--at", "timezone": "--timezone",
    "assignee": "--assignee", "status": "--status", "priority": "--priority",
    "agent": "--agent", "credential": "--credential", "model": "--model", "effort": "--effort",
    "timeout": "--timeout", "commentPrompt": "--comment-prompt", "title": "--title",
}
_ISSUE_BOOL_FIELDS = ("catchUp", "nativeCredential")
ISSUE_CREATE_FIELDS = ("workspace", "id", "body", *_ISSUE_TEXT_FLAGS, *_ISSUE_BOOL_FIELDS)
ISSUE_UPDATE_FIELDS = ("body", "unset", *_ISSUE_TEXT_FLAGS, *_ISSUE_BOOL_FIELDS)
ISSUE_BODY_MAX = 1024 * 1024


def issue_args(data: dict, *, create: bool) -> tuple[list[str], bytes | None]:
    args: list[str] = []
    for field, flag in _ISSUE_TEXT_FLAGS.items():
        if data.get(field) is not None:
            args.append(f"{flag}={text_value(data[field], field, max_chars=10_000)}")
    catch_up = data.get("catchUp")
    if catch_up is not None:
        if not isinstance(catch_up, bool):
            raise HttpError(400, "catchUp must be true or false", code="bad_field", field="catchUp")
        if catch_up and create:
            pass  # catch-up is the default on create
        else:
            args.append("--catch-up" if catch_up else "--no-catch-up")
    native = data.get("nativeCredential")
    if native is not None:
        if not isinstance(native, bool):
            raise HttpError(400, "nativeCredential must be true or false", code="bad_field",
                            field="nativeCredential")
        if native:
            args.append("--native-credential")
    if data.get("unset") is not None and not isinstance(data["unset"], list):
        raise HttpError(400, "unset must be a list of field names", code="bad_field", field="unset")
    for field in data.get("unset") or []:
        args.append(f"--unset={no_dash(text_value(field, 'unset', max_chars=64), 'unset')}")
    stdin = None
    if data.get("body") is not None:
        body = text_value(data["body"], "body", max_chars=ISSUE_BODY_MAX, allow_empty=True)
        stdin = body.encode("utf-8")
        args.append("--body-file=-")
    return args, stdin



def adapter_action_args(adapter: str, body: bytes) -> tuple[list[str], bytes | None]:
    """``harness-adapter`` argv (and stdin) for a POST to ``/api/adapters/{adapter}``."""
    data = json_body(body, allowed=("action", "models", "reset", "config", "key", "value", "force"),
                     required=("action",))
    action = data["action"]
    extra = set(data) - {"action"}

    def only(*names: str) -> None:
        unexpected = sorted(extra - set(names))
        if unexpected:
            raise HttpError(400, f"{unexpected[0]!r} does not apply to action {action!r}",
                            code="unknown_field", field=unexpected[0])

    if action in ("enable", "disable"):
        only()
        return [action, adapter, "--json"], None
    if action == "set-models":
        only("models", "reset")
        if data.get("reset") is True:
            if data.get("models"):
                raise HttpError(400, "give models or reset, not both", code="bad_field",
                                field="models")
            return ["set-models", adapter, "--reset", "--json"], None
        models = data.get("models")
        if not isinstance(models, list) or not models:
            raise HttpError(400, "models must be a non-empty list (or reset: true)",
                            code="bad_field", field="models")
        checked = [check_param("model", text_value(m, "models", max_chars=200),
                               field="models") for m in models]
        # Positionals right after the id: argparse ends a nargs="*" at the first flag.
        return ["set-models", adapter, *checked, "--json"], None
    if action == "config":
        only("config")
        config = data.get("config")
        if not isinstance(config, dict) or not config:
            raise HttpError(400, "config must be an object of key: value (null unsets)",
                            code="bad_field", field="config")
        sets, unsets = [], []
        for key, value in config.items():
            key = no_dash(text_value(key, "config", max_chars=128), "config key")
            if "=" in key:
                raise HttpError(400, "a config key cannot contain '='", code="bad_field",
                                field="config")
            if value is None:
                unsets.append(f"--unset={key}")
            elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
                sets.append(f"{key}={text_value(str(value), 'config', max_chars=4096, allow_empty=True)}")
            else:
                raise HttpError(400, f"config value of {key!r} must be a string, a number "
                                     "or null", code="bad_field", field="config")
        return ["config", adapter, *sets, *unsets, "--json"], None
    if action == "set-secret":
        only("key", "value", "force")
        key = check_param("env_name", data.get("key") or "", field="key")
        value = data.get("value")
        if not isinstance(value, str) or not value:
            raise HttpError(400, "value must be a non-empty string", code="bad_field",
                            field="value")
        if len(value) > MAX_SECRET_CHARS or "\x00" in value:
            raise HttpError(400, "the secret value is too long or holds a NUL",
                            code="bad_field", field="value")
        args = ["set-secret", adapter, key, "-", "--json"]
        if data.get("force") is True:
            args.append("--force")
        # The value travels on the child's stdin only: never argv, logs or responses.
        return args, value.encode("utf-8")
    if action == "unset-secret":
        only("key")
        key = check_param("env_name", data.get("key") or "", field="key")
        return ["unset-secret", adapter, key, "--json"], None
    raise HttpError(400, "action must be one of enable, disable, set-models, config, "
                         "set-secret, unset-secret", code="bad_field", field="action")
