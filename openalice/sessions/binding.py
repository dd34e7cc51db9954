"""A session's runtime binding as a value: its id, agent, credential source, model and effort,
checked field by field (shape only: whether the agent or credential exists is the store's check)."""

from __future__ import annotations

from collections.abc import Mapping

from openalice.core import patterns
from openalice.core.errors import InvalidInput
from openalice.core.records import record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

VERSION = 1
MAX_DISPLAY_NAME = 120
#: Where a session was born: a scheduled (headless) run, ``alice session open``/``chat``
#: (interactive), or the Workspace Manager.  A fact of birth, written once, never compared.
SURFACES = ("headless", "interactive", "manager")


ADJECTIVES = ("calm", "brave", "bright", "clever", "eager", "gentle", "happy", "jolly", "keen", "kind",
              "lively", "lucky", "merry", "nimble", "proud", "quiet", "rapid", "shy", "steady", "swift",
              "tidy", "vivid", "warm", "wise", "bold", "crisp", "fresh", "grand", "neat", "sunny")
MATERIALS = ("amber", "bamboo", "brass", "bronze", "cedar", "chalk", "clay", "copper", "coral", "cotton",
             "crystal", "flint", "glass", "granite", "ivory", "jade", "linen", "marble", "oak", "onyx",
             "opal", "pearl", "quartz", "silk", "silver", "slate", "steel", "velvet", "willow", "wool")
NOUNS = ("river", "meadow", "harbor", "forest", "canyon", "island", "lantern", "garden", "mountain",
         "valley", "comet", "falcon", "heron", "otter", "badger", "beacon", "bridge", "cloud", "delta",
         "ember", "fjord", "glacier", "grove", "lagoon", "orchard", "prairie", "reef", "summit", "tide",
         "willow")
_SUFFIX = "0123456789abcdefghijklmnopqrstuvwxyz"
# Generated ids and legacy UUIDs are both valid; '.', '/', '\\' and NUL never are.
_ID_RE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}\Z")


@record_class(frozen=True)
class SessionBinding:
    resume_id: str
    agent: str
    credential: dict
    model: str | None = None
    reasoning_effort: str | None = None
    display_name: str | None = None
    created_at: str | None = None
    born_on: str | None = None        # one of SURFACES; None for files older than the field

    # The contract's camelCase names.
    @property
    def resumeId(self) -> str:
        return self.resume_id

    @property
    def reasoningEffort(self) -> str | None:
        return self.reasoning_effort

    @property
    def displayName(self) -> str | None:
        return self.display_name

    def ai(self) -> dict:
        out: dict[str, Any] = {"version": 1, "credential": dict(self.credential)}
        if self.model:
            out["model"] = self.model
        if self.reasoning_effort:
            out["reasoningEffort"] = self.reasoning_effort
        return out

    def runtime(self) -> dict:
        """The frozen part: what ``ensure`` compares."""
        return {"agent": self.agent, "ai": self.ai()}

    def to_file(self) -> dict:
        out: dict[str, Any] = {"version": VERSION, "resumeId": self.resume_id, "agent": self.agent,
                               "ai": self.ai()}
        if self.display_name:
            out["displayName"] = self.display_name
        if self.created_at:
            out["createdAt"] = self.created_at
        if self.born_on:
            out["bornOn"] = self.born_on
        return out

    def to_dict(self) -> dict:
        """Flat form for output: resumeId, agent, credential, model?, reasoningEffort?, displayName?."""
        out: dict[str, Any] = {"resumeId": self.resume_id, "agent": self.agent,
                               "credential": dict(self.credential)}
        for key, value in (("model", self.model), ("reasoningEffort", self.reasoning_effort),
                           ("displayName", self.display_name), ("createdAt", self.created_at),
                           ("bornOn", self.born_on)):
            if value:
                out[key] = value
        return out


def new_resume_id(rng: Any = None) -> str:
    """``resume-<adjective>-<material>-<noun>-<6 of [0-9a-z]>``.

    ``rng`` needs ``randrange(n)``; the default is the OS's secure source.
    """
    if rng is None:
        import secrets  # lazy: only a new session id needs it, not a listing

        rng = secrets.SystemRandom()
    words = [ADJECTIVES[rng.randrange(len(ADJECTIVES))], MATERIALS[rng.randrange(len(MATERIALS))],
             NOUNS[rng.randrange(len(NOUNS))]]
    suffix = "".join(_SUFFIX[rng.randrange(len(_SUFFIX))] for _ in range(6))
    return "resume-" + "-".join(words) + "-" + suffix


def check_resume_id(resume_id: Any, *, field: str = "resumeId", file: object = None) -> str:
    if not isinstance(resume_id, str) or not _ID_RE.match(resume_id):
        raise InvalidInput(f"invalid session id {resume_id!r}", field=field, file=file, code="bad_resume_id")
    return resume_id


def normalize_credential(credential: Any, *, field: str = "credential", file: object = None) -> dict:
    if credential is None:
        return {"source": "native"}
    if not isinstance(credential, Mapping):
        raise InvalidInput("credential must be an object", field=field, file=file, code="bad_binding")
    source = credential.get("source")
    if source == "native":
        if set(credential) != {"source"}:
            raise InvalidInput("a native credential has no other fields", field=field, file=file,
                               code="bad_binding")
        return {"source": "native"}
    if source == "vault":
        from openalice.credentials import SLUG_RE  # lazy: only a vault credential needs the vault
        from openalice.credentials.wires import WIRE_SHAPES  # lazy: as above

        extra = set(credential) - {"source", "credentialSlug", "wireShape"}
        if extra:
            raise InvalidInput(f"unknown credential field {sorted(extra)[0]!r}", field=field, file=file,
                               code="bad_binding")
        slug = credential.get("credentialSlug")
        if not isinstance(slug, str) or not SLUG_RE.match(slug):
            raise InvalidInput(f"invalid credential slug {slug!r}", field=f"{field}/credentialSlug", file=file,
                               code="bad_binding")
        out = {"source": "vault", "credentialSlug": slug}
        if credential.get("wireShape") is not None:
            if credential["wireShape"] not in WIRE_SHAPES:
                raise InvalidInput(f"unknown wire shape {credential['wireShape']!r}", field=f"{field}/wireShape",
                                   file=file, code="bad_binding")
            out["wireShape"] = credential["wireShape"]
        return out
    raise InvalidInput(f"unsupported credential source {source!r} (native or vault)", field=f"{field}/source",
                       file=file, code="unsupported_credential_source")


def check_display_name(value: Any, *, file: object = None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or "\n" in value or "\x00" in value:
        raise InvalidInput("displayName must be one line of text", field="displayName", file=file,
                           code="bad_display_name")
    value = value.strip()
    if len(value) > MAX_DISPLAY_NAME:
        raise InvalidInput(f"displayName is too long ({len(value)} > {MAX_DISPLAY_NAME})", field="displayName",
                           file=file, code="too_long")
    return value or None


def make_binding(*, resume_id: str, agent: str, credential: Any = None, model: str | None = None,
                 effort: str | None = None, display_name: str | None = None, created_at: str | None = None,
                 born_on: str | None = None, file: object = None) -> SessionBinding:
    """Validate the fields of a binding (shape only; not whether the agent or credential exist)."""
    from openalice import models  # lazy: only once a binding is read or made (session start-up)
    from openalice.preferences import validate_agent_name  # lazy: likewise

    check_resume_id(resume_id, file=file)
    validate_agent_name(agent, file=file)
    cred = normalize_credential(credential, file=file)
    if model is not None:
        if (not isinstance(model, str) or len(model) > 512 or any(ord(c) < 32 for c in model)
                or model.strip().startswith("-")):
            raise InvalidInput("model must be 1-512 printable characters, not starting with '-'",
                               field="model", file=file, code="bad_model")
        model = model.strip() or None  # an empty model means "engine default"
    if effort is not None:
        try:
            models.check_effort(effort)
        except InvalidInput as exc:
            raise InvalidInput(exc.message, field="reasoningEffort", file=file, code="bad_effort") from None
    if born_on is not None and born_on not in SURFACES:
        raise InvalidInput(f"bornOn must be one of {', '.join(SURFACES)}", field="bornOn", file=file,
                           code="bad_binding")
    return SessionBinding(resume_id=resume_id, agent=agent, credential=cred, model=model,
                          reasoning_effort=effort, display_name=check_display_name(display_name, file=file),
                          created_at=created_at, born_on=born_on)
