"""``format`` as an assertion: the draft 2020-12 formats.  A part of the compiler.

``format`` is an annotation unless the Validator is built with
``format_assertion=True`` or the schema's dialect lists the format-assertion
vocabulary.  Then each known format checks strings (other types pass) by the
RFC it names: ``date-time``/``date``/``time``/``duration`` (RFC 3339, leap
seconds at 23:59:60 UTC only), ``email``/``idn-email`` (RFC 5321/6531),
``hostname``/``idn-hostname`` (:mod:`.idna`), ``ipv4``/``ipv6`` (RFC 2673/4291,
no leading zeros, no zone), ``uri``/``uri-reference``/``iri``/``iri-reference``
(RFC 3986/3987), ``uuid`` (RFC 4122), ``json-pointer``/``relative-json-pointer``,
``uri-template`` (RFC 6570 level 4 syntax) and ``regex`` (ECMA-262).  An
unknown format name asserts nothing.
"""

from __future__ import annotations

import re

from openalice.core import patterns

from .instances import json_pointer, show
from .nodes import STRINGS, Keyword
from .report import Violation

_DATE = patterns.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TIME = patterns.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))\Z")
_DURATION = patterns.compile(r"P(?:[0-9]+W|(?=[0-9]|T[0-9])(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)?"
                       r"(?:T(?=[0-9])(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?)\Z")
_UUID = patterns.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z")
_POINTER = patterns.compile(r"(?:/(?:[^~/]|~[01])*)*\Z")
_RELATIVE_POINTER = patterns.compile(r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~[01])*)*)\Z")
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LOCAL = patterns.compile(rf'(?:{_ATOM}+(?:\.{_ATOM}+)*|"(?:[^"\\\r\n]|\\.)*")\Z')
_IDN_LOCAL = patterns.compile(rf'(?:(?:{_ATOM}|[^\x00-\x7f])+(?:\.(?:{_ATOM}|[^\x00-\x7f])+)*|"(?:[^"\\\r\n]|\\.)*")\Z')

# RFC 3986 / 3987 pieces; "I" is the IRI extension (ucschar, iprivate in queries).
_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_UCS = "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef\U00010000-\U000efffd"
_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"


def _uri_grammar(iri: bool):
    extra = _UCS if iri else ""
    pct = "%[0-9A-Fa-f]{2}"
    pchar = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:@{extra}]|{pct})"
    reg = f"(?:[{_UNRESERVED}{_SUB_DELIMS}{extra}]|{pct})*"
    user = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:{extra}]|{pct})*"
    authority = rf"(?:{user}@)?(?:\[[^\]/]*\]|{reg})(?::[0-9]*)?"
    query = f"(?:{pchar}|[/?{_PRIVATE if iri else ''}])*"
    fragment = f"(?:{pchar}|[/?])*"
    hier = rf"(?://{authority}(?:/{pchar}*)*|/(?:{pchar}+(?:/{pchar}*)*)?|{pchar}+(?:/{pchar}*)*|)"
    relative_first = f"(?:[{_UNRESERVED}{_SUB_DELIMS}@{extra}]|{pct})"
    relative = rf"(?://{authority}(?:/{pchar}*)*|/(?:{pchar}+(?:/{pchar}*)*)?|{relative_first}+(?:/{pchar}*)*|)"
    tail = rf"(?:\?{query})?(?:#{fragment})?\Z"
    absolute = re.compile(rf"[A-Za-z][A-Za-z0-9+\-.]*:{hier}{tail}")
    reference = re.compile(rf"(?:[A-Za-z][A-Za-z0-9+\-.]*:{hier}|{relative}){tail}")
    return absolute, reference


_GRAMMARS: dict = {}


def _uri(text: str, *, iri: bool, reference: bool) -> bool:
    grammar = _GRAMMARS.get(iri)
    if grammar is None:
        grammar = _GRAMMARS[iri] = _uri_grammar(iri)
    if grammar[1 if reference else 0].match(text) is None:
        return False
    start = text.find("//")
    if start < 0 or "[" not in text:
        return True
    authority = re.split(r"[/?#]", text[start + 2:], maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if not host.startswith("["):
        return True
    inner = host[1:host.find("]")]
    return ipv6(inner) or re.fullmatch(rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED}{_SUB_DELIMS}:]+", inner) is not None


def _leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def date(text: str) -> bool:
    match = _DATE.match(text)
    if match is None:
        return False
    year, month, day = map(int, match.groups())
    if not 1 <= month <= 12:
        return False
    days = (31, 29 if _leap_year(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    return 1 <= day <= days


def time(text: str) -> bool:
    match = _TIME.match(text)
    if match is None:
        return False
    hour, minute, second = int(match[1]), int(match[2]), int(match[3])
    if hour > 23 or minute > 59 or second > 60:
        return False
    if match[4]:
        offset_hour, offset_minute = int(match[5]), int(match[6])
        if offset_hour > 23 or offset_minute > 59:
            return False
        if second == 60:  # a leap second is 23:59:60 in UTC
            shift = (offset_hour * 60 + offset_minute) * (1 if match[4] == "+" else -1)
            utc = (hour * 60 + minute - shift) % (24 * 60)
            return utc == 23 * 60 + 59
    return second < 60 or (hour == 23 and minute == 59)


def date_time(text: str) -> bool:
    day, separator, clock = text[:10], text[10:11], text[11:]
    return separator in ("T", "t") and date(day) and time(clock)


def ipv4(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(
        p.isascii() and p.isdigit() and (p == "0" or p[0] != "0") and int(p) <= 255 for p in parts)


def ipv6(text: str) -> bool:
    if not text or not text.isascii():
        return False
    if "." in text:
        head, _, tail = text.rpartition(":")
        if not head or not ipv4(tail):
            return False
        text = head + ":0:0"  # the IPv4 part stands for two groups
    if text.count("::") > 1 or ":::" in text:
        return False
    if "::" in text:
        left, right = text.split("::")
        groups = (left.split(":") if left else []) + (right.split(":") if right else [])
        if len(groups) > 7:
            return False
    else:
        groups = text.split(":")
        if len(groups) != 8:
            return False
    return all(1 <= len(g) <= 4 and all(c in "0123456789abcdefABCDEF" for c in g) for g in groups)


def _email(text: str, *, idn: bool) -> bool:
    local, at, domain = text.rpartition("@")
    if not at or not local or not domain:
        return False
    if not (_IDN_LOCAL if idn else _LOCAL).match(local):
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        return ipv6(literal[5:]) if literal[:5].lower() == "ipv6:" else ipv4(literal)
    if idn:
        return all(label and re.fullmatch(r"(?:[A-Za-z0-9]|[^\x00-\x7f])(?:[A-Za-z0-9-]|[^\x00-\x7f])*", label)
                   and not label.endswith("-") for label in domain.split("."))
    from .idna import hostname  # lazy: only the host name formats need unicodedata
    return hostname(domain)


_TEMPLATE_LITERAL = patterns.compile(r"(?:[^\x00-\x20\x7f\"'%<>\\^`{|}]|'|%[0-9A-Fa-f]{2})*\Z")
_VARSPEC = patterns.compile(r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*"
                      r"(?::[1-9][0-9]{0,3}|\*)?\Z")


def uri_template(text: str) -> bool:
    for position, piece in enumerate(re.split(r"(\{[^{}]*\})", text)):
        if position % 2:
            body = piece[1:-1]
            if body[:1] and body[0] in "+#./;?&=,!@|":
                body = body[1:]
            if not body or not all(_VARSPEC.match(v) for v in body.split(",")):
                return False
        elif not _TEMPLATE_LITERAL.match(piece):
            return False
    return True


_NOT_ECMA = patterns.compile(r"\(\?P|\(\?#|\(\?[a-zA-Z]+[):-]|\\[aAzZ]")


def regex(text: str) -> bool:
    """An ECMA-262 pattern: no Python-only syntax, and one that compiles."""
    if _NOT_ECMA.search(text):
        return False
    from ..ecma_regex import compile_pattern  # lazy: only format "regex" needs it here
    try:
        compile_pattern(text)
    except re.error as err:
        return "look-behind requires fixed-width" in str(err)  # ECMA allows variable-width lookbehind
    except RecursionError:
        return False
    return True


def _checkers():
    from .idna import hostname, idn_hostname  # lazy: only the host name formats need unicodedata
    return {
        "date-time": date_time, "date": date, "time": time, "duration": lambda t: _DURATION.match(t) is not None,
        "email": lambda t: _email(t, idn=False), "idn-email": lambda t: _email(t, idn=True),
        "hostname": hostname, "idn-hostname": idn_hostname, "ipv4": ipv4, "ipv6": ipv6,
        "uri": lambda t: _uri(t, iri=False, reference=False), "uri-reference": lambda t: _uri(t, iri=False, reference=True),
        "iri": lambda t: _uri(t, iri=True, reference=False), "iri-reference": lambda t: _uri(t, iri=True, reference=True),
        "uuid": lambda t: _UUID.match(t) is not None, "json-pointer": lambda t: _POINTER.match(t) is not None,
        "relative-json-pointer": lambda t: _RELATIVE_POINTER.match(t) is not None,
        "uri-template": uri_template, "regex": regex,
    }


def format_keyword(self, node, schema, base, where):
    """The compiled asserting ``format`` (``self`` is the compiler)."""
    name = schema["format"]
    if not isinstance(name, str):
        raise self.fail(where, f"format must be a string, not {show(name)}")
    check = _checkers().get(name)
    if check is None:
        return None  # an unknown format asserts nothing

    def collect(value, path, out):
        if not check(value):
            out.append(Violation(json_pointer(path), where, f"{show(value)} is not a valid {name}"))
    return Keyword(STRINGS, 1, check, collect)
