"""Why a run ended badly: the one reason vocabulary, the classifier, the words.

    code, detail = classify(agent="claude", stream="claude-stream-json", exit_code=1,
                            errors=["Not logged in · Please run /login"], stdout_tail=..., stderr_tail=...)
    explain(code, "claude")   # {"words": "not logged in", "next": "run `claude auth login`, or ..."}

The supervisor classifies every ended run and stores ``reason`` (a code of
:data:`REASONS`) and ``detail`` (a short, redacted excerpt) in the task
record; the run views, health, doctor and the page turn a code into words and
a next step with :func:`explain`.  A record written before reasons existed
gets one at read time from its own fields (:func:`from_record`: no log is
read, so listings stay cheap).

Classification, first match wins: not failed → none; interrupted; nothing
started (``agent_missing`` / ``launch_failed``); the agent's own words — its
stream's error lines read by the parser of its CLI (claude, codex, opencode,
pi; any other engine gets the generic rules), its error blocks and the end of
its stderr — naming a login, key, model, limit or network problem (also when
the watchdog stopped an agent that was still retrying it); the watchdog
(``timeout``); a signal (``crashed`` for SIGSEGV/SIGABRT/..., else
``killed``); a crash trace on stderr; an error block (``agent_error``); a
non-zero exit (``exit_nonzero``).  docs/runs.md ("Why a run failed") has the
table and each CLI's failure formats.
"""

from __future__ import annotations

import re

from openalice.core import patterns, redact

__all__ = ["REASONS", "DETAIL_LIMIT", "classify", "explain", "from_record", "describe"]

# code -> (words, next step); "{login}" and "{vendor}" are filled per agent.
REASONS = {
    "not_logged_in": ("not logged in",
                      "{login}, or add a credential: `alice credential add NAME --vendor {vendor}` "
                      "and `alice issue update ISSUE --credential NAME`"),
    "credential_rejected": ("the credential was rejected (invalid or expired key)",
                            "check the key: `alice credential add NAME --vendor {vendor} --replace`, "
                            "or for native login {login}"),
    "billing": ("the account has no credit or billing is not set up",
                "check the account's plan and billing with the vendor"),
    "model_not_found": ("the model does not exist or this account cannot use it",
                        "pick another model: `alice issue update ISSUE --model MODEL` "
                        "(`alice models list` shows known ids)"),
    "rate_limited": ("rate limited or over quota (the service answered 429 or overloaded)",
                     "wait and retry: `alice-schedule retry-now ISSUE`; or lower how often it runs"),
    "service_error": ("the model service failed (HTTP 5xx)",
                      "retry later: `alice-schedule retry-now ISSUE`"),
    "network": ("the model service could not be reached (network)",
                "check the network, proxy and the credential's base URL, then "
                "`alice-schedule retry-now ISSUE`"),
    "timeout": ("stopped by the watchdog: the run outlived its time limit",
                "raise it with `alice issue update ISSUE --timeout 1h`, or make the task smaller"),
    "killed": ("the agent was killed by a signal from outside",
               "see the stderr log; retry with `alice-schedule retry-now ISSUE`"),
    "crashed": ("the agent (or its supervisor) crashed",
                "see the stderr log; retry with `alice-schedule retry-now ISSUE`"),
    "interrupted": ("the run was interrupted before it finished",
                    "retry with `alice-schedule retry-now ISSUE`"),
    "agent_missing": ("the agent CLI is not installed (not on PATH)",
                      "install it (see `alice doctor`), then `alice-schedule retry-now ISSUE`"),
    "launch_failed": ("the run could not start", "fix what the detail says, then "
                                                 "`alice-schedule retry-now ISSUE`"),
    "agent_error": ("the agent reported an error", "see the detail and the logs"),
    "exit_nonzero": ("the agent exited with a non-zero status", "see the stderr log"),
}

DETAIL_LIMIT = 200
_LOGIN = {"claude": "run `claude auth login`", "codex": "run `codex login`",
          "opencode": "run `opencode auth login`",
          "pi": "run `pi` and type `/login` (or set the provider's API key variable)"}
_VENDOR = {"claude": "anthropic", "codex": "openai"}
_CRASH_SIGNALS = ("SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE", "SIGSYS", "SIGTRAP")
_CRASH_TRACE = patterns.compile(r"panicked at|Segmentation fault|FATAL ERROR|Traceback \(most recent call last\)"
                          r"|Fatal JavaScript|core dumped")
# Status → code (HTTP statuses as the CLIs report them).
_BY_STATUS = {401: "credential_rejected", 403: "credential_rejected", 402: "billing", 404: "model_not_found",
              429: "rate_limited", 529: "rate_limited"}
# The generic rules: phrases the CLIs and the vendors use, in priority order.
_RULES = (
    ("not_logged_in", re.compile(r"not logged in|please run /login|run /login|no api key found|"
                                 r"missing environment variable|login required|didn't provide an api key|"
                                 r"no credentials? (?:found|configured)|auth login", re.I)),
    ("credential_rejected", re.compile(r"invalid (?:x-)?api[ -]key|incorrect api key|authentication_error|"
                                       r"authentication_failed|invalid_api_key|\b401\b|unauthori[sz]ed|"
                                       r"permission_error|\b403\b|forbidden|token (?:has )?expired", re.I)),
    ("billing", re.compile(r"billing|credit balance|insufficient_quota|payment required|\b402\b", re.I)),
    ("model_not_found", re.compile(r"model_not_found|not_found_error|does not exist or you do not have access|"
                                   r"issue with the selected model|unknown model|model (?:`[^`]*` )?not found|"
                                   r"^model: |\b404\b", re.I)),
    ("rate_limited", re.compile(r"rate[ _-]?limit|\b429\b|too many requests|overloaded|\b529\b", re.I)),
    ("network", re.compile(r"unable to connect|connection ?refused|connection error|connection failed|"
                           r"connection reset|failed to lookup address|getaddrinfo|econnrefused|enotfound|"
                           r"etimedout|econnreset|network is unreachable|waiting for network|"
                           r"stream disconnected|error sending request|fetch failed|dns", re.I)),
    ("service_error", re.compile(r"\b5\d\d\b|internal server error|bad gateway|service unavailable|"
                                 r"api_error|server_error", re.I)),
)
# Lines a CLI prints on every run that are not its failure (codex, unknown model metadata).
_NOISE = patterns.compile("(?i)" r"^Model metadata for .* not found|^Falling back from WebSockets")
_STATUS_IN_TEXT = patterns.compile(r"(?:status:? |status code |\(|^|HTTP )([45]\d\d)\b")


def _words(code: str, agent: str | None) -> tuple[str, str]:
    words, step = REASONS.get(code, REASONS["agent_error"])
    login = _LOGIN.get(agent or "", "log in with the agent's own login command")
    vendor = _VENDOR.get(agent or "", "VENDOR")
    return words, step.format(login=login, vendor=vendor)


def explain(code: str | None, agent: str | None = None, *, workspace: str | None = None,
            issue: str | None = None) -> dict | None:
    """``{"code", "words", "next"}`` for people; None for no code.  With the
    run's workspace and issue, the commands of the next step name them."""
    if not code:
        return None
    words, step = _words(code, agent)
    if workspace and issue:
        step = (step.replace("alice issue update ISSUE", f"alice issue update {issue} --workspace {workspace}")
                .replace("ISSUE", f"{workspace}/{issue}"))
    return {"code": code, "words": words, "next": step}


def describe(code: str | None, detail: str | None, agent: str | None = None) -> str | None:
    """One line: ``words (detail) — next step``."""
    told = explain(code, agent)
    if told is None:
        return None
    text = told["words"]
    if detail:
        text += f" ({detail})"
    return f"{text} — {told['next']}"


def _short(text: str | None) -> str | None:
    if not text:
        return None
    return redact.summarize(str(text), limit=DETAIL_LIMIT) or None


def _rule(text: str) -> str | None:
    for code, pattern in _RULES:
        if pattern.search(text):
            return code
    return None


def _by_status(status: int | None) -> str | None:
    if not isinstance(status, int) or isinstance(status, bool):
        return None
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return "service_error" if 500 <= status < 600 else None


# -- what each CLI says ------------------------------------------------------

def _events(stdout_tail: str):
    import json  # lazy: only the supervisor classifies a stream

    for line in stdout_tail.splitlines():
        line = line.strip()
        if line[:1] != "{":
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            yield event


def _claude(stdout_tail: str) -> list[tuple[str | None, int | None, str]]:
    """``(kind, status, text)`` per failure line: the synthetic assistant
    message (``error`` is claude's kind: authentication_failed, rate_limit,
    model_not_found, server_error, billing_error, ...), the ``result`` with
    ``is_error`` (``api_error_status``), and ``system/api_retry`` lines."""
    found = []
    for event in _events(stdout_tail):
        kind = event.get("type")
        if kind == "assistant" and isinstance(event.get("error"), str):
            content = (event.get("message") or {}).get("content") or []
            text = " ".join(c.get("text", "") for c in content if isinstance(c, dict))
            found.append((event["error"], None, text))
        elif kind == "result" and event.get("is_error") is True:
            found.append((None, event.get("api_error_status"), str(event.get("result") or "")))
        elif kind == "system" and event.get("subtype") == "api_retry":
            found.append((event.get("error"), event.get("error_status"), ""))
    return found


_CLAUDE_KINDS = {"authentication_failed": "credential_rejected", "oauth_org_not_allowed": "credential_rejected",
                 "billing_error": "billing", "rate_limit": "rate_limited", "overloaded": "rate_limited",
                 "model_not_found": "model_not_found"}


def _claude_code(stdout_tail: str) -> tuple[str, str] | None:
    found = _claude(stdout_tail)
    text = next((t for _, _, t in reversed(found) if t), "")
    if text and _RULES[0][1].search(text):
        return "not_logged_in", text
    for kind, status, _ in reversed(found):
        code = _CLAUDE_KINDS.get(kind or "") or _by_status(status)
        if code:
            return code, text or f"{kind or 'API error'} (HTTP {status})"
        if kind == "server_error" and text and _rule(text) == "network":
            return "network", text
    if text:
        code = _rule(text)
        return (code, text) if code else ("agent_error", text)
    return None


def _codex_code(messages: list[str]) -> tuple[str, str] | None:
    """codex prints the API's message; its status only as ``unexpected status
    401 Unauthorized`` / ``last status: 429`` (``Reconnecting... n/5 (...)``
    while it retries)."""
    for text in reversed(messages):
        if not text or _NOISE.search(text):
            continue
        match = _STATUS_IN_TEXT.search(text)
        if _RULES[0][1].search(text):
            return "not_logged_in", text
        code = (_by_status(int(match.group(1))) if match else None) or _rule(text)
        return (code or "agent_error"), text
    return None


def _opencode_code(stdout_tail: str) -> tuple[str, str] | None:
    """opencode's ``error`` event: ``error.name`` (APIError, ProviderAuthError,
    UnknownError) and ``error.data.statusCode``."""
    for event in reversed(list(_events(stdout_tail))):
        if event.get("type") != "error" or not isinstance(event.get("error"), dict):
            continue
        error = event["error"]
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        text = str(data.get("message") or error.get("name") or "opencode error")
        if error.get("name") == "ProviderAuthError":
            return "not_logged_in", text
        code = _by_status(data.get("statusCode")) or _rule(text)
        return (code or "agent_error"), f"{error.get('name')}: {text}" if error.get("name") else text
    return None


def _pi_code(messages: list[str]) -> tuple[str, str] | None:
    """pi's ``errorMessage`` starts with the HTTP status (``401 Incorrect API
    key``); "Connection error." when the server is gone."""
    for text in reversed(messages):
        if not text:
            continue
        match = re.match(r"\s*([45]\d\d)\b", text)
        code = (_by_status(int(match.group(1))) if match else None) or _rule(text)
        return (code or "agent_error"), text
    return None


def _agent_words(agent: str | None, stdout_tail: str, errors: list[str]) -> tuple[str, str] | None:
    if agent == "claude":
        return _claude_code(stdout_tail)
    if agent == "codex":
        return _codex_code(errors)
    if agent == "opencode":
        return _opencode_code(stdout_tail)
    if agent == "pi":
        return _pi_code(errors)
    for text in reversed(errors):  # catalog wrappers: their error events, generic rules
        code = _rule(text or "")
        if code:
            return code, text
    return None


def _stderr_words(stderr_tail: str) -> tuple[str, str] | None:
    lines = [line.strip() for line in stderr_tail.splitlines() if line.strip()]
    for line in reversed(lines[-20:]):
        code = _rule(line)
        if code in ("not_logged_in", "credential_rejected", "model_not_found", "rate_limited", "network"):
            return code, line
    return None


# -- the classifier ----------------------------------------------------------

def classify(*, agent: str | None, status: str, exit_code: int | None = None, signal: str | None = None,
             killed: bool = False, interruption: str | None = None, process_started: bool = True,
             launch_error: str | None = None, launch_code: str | None = None, errors=(),
             stdout_tail: str = "", stderr_tail: str = "", native: bool = False,
             timeout_s: int | None = None) -> tuple[str | None, str | None]:
    """``(reason, detail)`` of an ended run; ``(None, None)`` for a run that is
    not failed or interrupted.  ``errors`` are the normalized error blocks'
    messages in order; the tails are the ends of stdout.log and stderr.log;
    ``native`` says the run used the agent's own login (no vault credential)."""
    if status not in ("failed", "interrupted"):
        return None, None
    if status == "interrupted":
        return "interrupted", _short(interruption)
    if not process_started:
        if launch_code == "executable_not_found":
            return "agent_missing", _short(launch_error)
        if launch_code == "supervisor_error":
            return "crashed", _short(launch_error)
        return "launch_failed", _short(launch_error)
    errors = [str(e) for e in errors if e]
    said = _agent_words(agent, stdout_tail, errors) or _stderr_words(stderr_tail)
    if said is not None and said[0] == "credential_rejected" and native and agent == "codex":
        # codex with no login sends no key at all, and the service answers 401.
        said = ("not_logged_in", said[1])
    if killed:
        if said is not None and said[0] not in ("agent_error", "service_error"):
            limit = f" after {timeout_s}s" if timeout_s else ""
            return said[0], _short(f"{said[1]} (still retrying when the watchdog stopped it{limit})")
        return "timeout", _short(f"stopped after {timeout_s}s" if timeout_s else None)
    if signal:
        code = "crashed" if signal in _CRASH_SIGNALS else "killed"
        return code, _short(f"killed by {signal}")
    if said is not None and said[0] != "agent_error":
        return said[0], _short(said[1])
    trace = next((l.strip() for l in stderr_tail.splitlines() if _CRASH_TRACE.search(l)), None)
    if trace:
        return "crashed", _short(trace)
    if said is not None:
        return "agent_error", _short(said[1])
    if errors:
        return "agent_error", _short(errors[-1])
    if exit_code not in (None, 0):
        last = next((l.strip() for l in reversed(stderr_tail.splitlines()) if l.strip()), "")
        return "exit_nonzero", _short(f"exit code {exit_code}" + (f": {last}" if last else ""))
    return "agent_error", None


def from_record(record: dict) -> tuple[str | None, str | None]:
    """``(reason, detail)`` of a task record: its own, or derived from its
    fields for a record written before reasons existed (no log is read)."""
    if record.get("reason"):
        return record["reason"], record.get("detail")
    status = record.get("status")
    if status not in ("failed", "interrupted"):
        return None, None
    if status == "interrupted":
        return "interrupted", _short(record.get("interruptionReason"))
    if record.get("processStarted") is False or record.get("error"):
        code = "agent_missing" if record.get("launchErrorCode") == "executable_not_found" else "launch_failed"
        return code, _short(record.get("error"))
    if record.get("killed"):
        return "timeout", None
    if record.get("signal"):
        return ("crashed" if record["signal"] in _CRASH_SIGNALS else "killed"), f"killed by {record['signal']}"
    code = record.get("exitCode")
    if code not in (None, 0):
        return "exit_nonzero", f"exit code {code}"
    return "agent_error", None
