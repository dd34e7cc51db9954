"""Wire shapes and endpoints: which API dialect a credential speaks, where.

A credential's ``wires`` map a shape (``anthropic``, ``google-generative-ai``,
``openai-chat``, ``openai-responses``) to a base URL; ``""`` means the
vendor's official endpoint from the model table.  An adapter picks one shape
it can drive (:func:`pick_wire`); an incompatible pair yields ``None`` so the
caller can refuse loudly instead of guessing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from urllib.parse import urlsplit

from openalice import models
from openalice.core.errors import InvalidInput

__all__ = [
    "WIRE_SHAPES", "OFFICIAL", "check_base_url", "check_shape", "parse_wire_specs", "default_wires",
    "endpoint_for", "available_wires", "pick_wire", "anthropic_auth",
]

WIRE_SHAPES = ("anthropic", "google-generative-ai", "openai-chat", "openai-responses")
OFFICIAL = ""
_BEARER_HOSTS = ("minimaxi.com", "minimax.io", "api.longcat.chat", "openrouter.ai")
_MINIMAX_HOSTS = ("api.minimax.io", "api.minimaxi.com")


def check_base_url(url: str, *, field: str = "base-url") -> str:
    """An http(s) URL with a host and no user info, query or fragment: a base
    URL must never carry a secret, because it is shown and stored."""
    if not isinstance(url, str) or not url or len(url) > 2048 or any(c.isspace() or ord(c) < 32 for c in url):
        raise InvalidInput("a base URL must be one http(s) URL without spaces", field=field,
                           code="bad_base_url")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(f"not an http(s) URL: {url!r}", field=field, code="bad_base_url")
    if parts.username is not None or parts.password is not None:
        raise InvalidInput("a base URL must not contain user info (secrets go on stdin)", field=field,
                           code="bad_base_url")
    if parts.query or parts.fragment:
        raise InvalidInput("a base URL must not contain a query or fragment", field=field,
                           code="bad_base_url")
    return url.rstrip("/")


def check_shape(shape: str, *, field: str = "wire") -> str:
    if shape not in WIRE_SHAPES:
        raise InvalidInput(f"unknown wire shape {shape!r} (one of: {', '.join(WIRE_SHAPES)})",
                           field=field, code="bad_wire")
    return shape


def default_wires(vendor: str) -> dict[str, str]:
    """Every official endpoint the vendor offers."""
    return {shape: OFFICIAL for shape in models.vendor_info(vendor).get("endpoints", {})}


def parse_wire_specs(vendor: str, base_url: str | None, specs: Sequence[str] = ()) -> dict[str, str]:
    """Build ``wires`` from ``--base-url`` and ``--wire SHAPE[=URL]`` flags.

    No flags: the vendor's official endpoints.  ``--base-url`` alone: the
    vendor's first shape at that URL (a custom vendor must name ``--wire``).
    """
    info = models.vendor_info(vendor)
    base = None if base_url is None else check_base_url(base_url)
    wires: dict[str, str] = {}
    for spec in specs:
        shape, sep, url = spec.partition("=")
        check_shape(shape.strip())
        if sep:
            wires[shape.strip()] = check_base_url(url.strip(), field="wire")
        elif base is not None:
            wires[shape.strip()] = base
        elif shape.strip() in info.get("endpoints", {}):
            wires[shape.strip()] = OFFICIAL
        else:
            raise InvalidInput(f"vendor {vendor!r} has no official {shape} endpoint; give --base-url "
                               f"or --wire {shape}=URL", field="wire", code="bad_wire")
    if wires:
        return wires
    endpoints = list(info.get("endpoints", {}))
    if base is not None:
        if not endpoints:
            raise InvalidInput(f"vendor {vendor!r} needs --wire SHAPE to say which API the base URL speaks",
                               field="wire", code="wire_required")
        return {endpoints[0]: base}
    if not endpoints:
        raise InvalidInput(f"vendor {vendor!r} has no official endpoint; give --base-url and --wire",
                           field="base-url", code="base_url_required")
    return {shape: OFFICIAL for shape in endpoints}


def endpoint_for(vendor: str, shape: str, value: str) -> str | None:
    """The concrete base URL of one wire, or None if '' has no official endpoint."""
    if value:
        return value

    try:
        return models.vendor_info(vendor).get("endpoints", {}).get(shape)
    except InvalidInput:
        return None


def _implied(vendor: str, wires: Mapping[str, str]) -> dict[str, str]:
    """MiniMax's chat endpoint implies its Anthropic-compatible one at the same origin."""
    out = dict(wires)
    chat = wires.get("openai-chat")
    if vendor == "minimax" and "anthropic" not in wires and chat is not None:
        url = endpoint_for(vendor, "openai-chat", chat)
        parts = urlsplit(url or "")
        if parts.hostname in _MINIMAX_HOSTS:
            out["anthropic"] = f"{parts.scheme}://{parts.netloc}/anthropic"
    return out


def available_wires(vendor: str, wires: Mapping[str, str]) -> dict[str, str]:
    """shape -> concrete base URL for every usable wire (implied ones included)."""
    out = {}
    for shape, value in _implied(vendor, wires).items():
        url = endpoint_for(vendor, shape, value)
        if url:
            out[shape] = url
    return out


def pick_wire(vendor: str, wires: Mapping[str, str], preference: Sequence[str], *,
              requested: str | None = None,
              fallbacks: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The (shape, base URL) an adapter should use, or None when incompatible.

    A requested shape must be one the adapter prefers and the credential has;
    otherwise its legacy fallback is tried; otherwise None (never a silent
    switch to something else).  Without a request: the first preferred shape
    the credential has.
    """
    available = available_wires(vendor, wires)
    if requested:
        if requested in preference and requested in available:
            return requested, available[requested]
        fallback = (fallbacks or {}).get(requested)
        if fallback and fallback in preference and fallback in available:
            return fallback, available[fallback]
        return None
    for shape in preference:
        if shape in available:
            return shape, available[shape]
    return None


def anthropic_auth(base_url: str, explicit: str | None = None) -> str:
    """``bearer`` or ``x-api-key`` for an Anthropic-shaped endpoint."""
    if explicit in ("bearer", "x-api-key"):
        return explicit
    host = (urlsplit(base_url).hostname or "").lower()
    if any(host == h or host.endswith("." + h) for h in _BEARER_HOSTS):
        return "bearer"
    return "x-api-key"

