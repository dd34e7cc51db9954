"""Host names for ``format``: ``hostname`` (RFC 1123, with IDNA A-labels) and
``idn-hostname`` (RFC 5890-5893, IDNA2008), from :mod:`unicodedata` alone.

A label's code points are classified as RFC 5892 derives them (letters, digits
and marks that are stable under NFKC case folding are PVALID; the listed
exceptions; ZWJ/ZWNJ and the CONTEXTO characters with their rules), and a
name with a right-to-left label must satisfy the Bidi rule (RFC 5893).  The
joining types of CONTEXTJ and the scripts of CONTEXTO are approximated from
character names, which ``unicodedata`` does carry.
"""

from __future__ import annotations

import unicodedata

from openalice.core import patterns

_LDH = patterns.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\Z")
_PVALID = {0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007}
_DISALLOWED = {0x0640, 0x07FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B}
_CONTEXTO = {0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB} | set(range(0x0660, 0x066A)) | set(range(0x06F0, 0x06FA))
_LETTER_DIGITS = frozenset(("Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc"))
_IGNORABLE_BLOCKS = ((0x20D0, 0x20FF), (0x1D100, 0x1D1FF), (0x1D200, 0x1D24F))
_OLD_HANGUL_JAMO = ((0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF))
_RTL = frozenset(("R", "AL", "AN"))
_SEPARATORS = patterns.compile("[.\u3002\uff0e\uff61]")


def hostname(text: str) -> bool:
    """RFC 1123 host name; an ``xn--`` label must be a valid IDNA A-label."""
    if not text or len(text) > 253 or not text.isascii():
        return False
    labels = text.split(".")
    if not all(_LDH.match(label) for label in labels):
        return False
    return all(_a_label(label) for label in labels if label[2:4] == "--")


def idn_hostname(text: str) -> bool:
    """An internationalized host name: U-labels or A-labels separated by dots."""
    if not text:
        return False
    labels = _SEPARATORS.split(text)
    unicode_labels = []
    length = len(labels) - 1  # the dots
    for label in labels:
        if not label:
            return False
        if label.isascii():
            if not _LDH.match(label) or (label[2:4] == "--" and not _a_label(label)):
                return False
            unicode_labels.append(_decode(label) if label[:4].lower() == "xn--" else label)
        else:
            if not u_label(label):
                return False
            unicode_labels.append(label)
        try:
            size = len(label) if label.isascii() else 4 + len(label.encode("punycode"))
        except UnicodeError:
            return False
        if size > 63:
            return False
        length += size
    if length > 253:
        return False
    if any(_bidi(ch) in _RTL for label in unicode_labels for ch in label):
        return all(_bidi_rule(label) for label in unicode_labels)
    return True


def _decode(label: str) -> str:
    try:
        return label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError, IndexError):
        return ""


def _a_label(label: str) -> bool:
    """An ``xn--`` label that decodes to a valid U-label and encodes back to itself."""
    if label[:4].lower() != "xn--":
        return False  # "--" in the 3rd and 4th positions is reserved for A-labels
    decoded = _decode(label)
    if not decoded or decoded.isascii():
        return False
    try:
        if decoded.encode("punycode").decode("ascii") != label[4:].lower():
            return False
    except UnicodeError:
        return False
    return u_label(decoded)


def u_label(label: str) -> bool:
    """RFC 5891 section 5.4 checks of one Unicode label."""
    if not unicodedata.is_normalized("NFC", label):
        return False
    if label[2:4] == "--" or label[0] == "-" or label[-1] == "-":
        return False
    if unicodedata.category(label[0]).startswith("M"):
        return False
    for position, char in enumerate(label):
        code = ord(char)
        if code in (0x200C, 0x200D):
            if not _context_j(label, position):
                return False
        elif code in _CONTEXTO:
            if not _context_o(label, position):
                return False
        elif not _pvalid(char):
            return False
    return True


def _pvalid(char: str) -> bool:
    code = ord(char)
    if code in _PVALID:
        return True
    if code in _DISALLOWED:
        return False
    if char.isascii():
        return char.islower() or char.isdigit() or char == "-"
    if unicodedata.category(char) not in _LETTER_DIGITS:
        return False
    if any(lo <= code <= hi for lo, hi in _IGNORABLE_BLOCKS + _OLD_HANGUL_JAMO):
        return False
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", char).casefold())
    return folded == char


def _name(char: str) -> str:
    return unicodedata.name(char, "")


def _context_o(label: str, position: int) -> bool:
    code = ord(label[position])
    before = label[position - 1] if position else ""
    after = label[position + 1] if position + 1 < len(label) else ""
    if code == 0x00B7:  # MIDDLE DOT: between two 'l'
        return before == "l" and after == "l"
    if code == 0x0375:  # GREEK KERAIA: followed by Greek
        return bool(after) and _name(after).startswith("GREEK")
    if code in (0x05F3, 0x05F4):  # HEBREW GERESH / GERSHAYIM: preceded by Hebrew
        return bool(before) and _name(before).startswith("HEBREW")
    if code == 0x30FB:  # KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han
        return any(c != "\u30fb" and _name(c).startswith(("HIRAGANA", "KATAKANA", "CJK UNIFIED", "CJK COMPAT"))
                   for c in label)
    if 0x0660 <= code <= 0x0669:  # Arabic-Indic digits: not mixed with the extended ones
        return not any("\u06f0" <= c <= "\u06f9" for c in label)
    return not any("\u0660" <= c <= "\u0669" for c in label)


def _joining(char: str) -> bool:
    """Approximately: a character of a joining script (dual- or one-side-joining)."""
    return _name(char).startswith(("ARABIC LETTER", "SYRIAC LETTER", "NKO LETTER", "MONGOLIAN LETTER",
                                   "MANDAIC LETTER", "PHAGS-PA LETTER"))


def _context_j(label: str, position: int) -> bool:
    if position and unicodedata.combining(label[position - 1]) == 9:  # preceded by a virama
        return True
    if ord(label[position]) == 0x200D:
        return False
    # ZWNJ between joining characters, transparent marks allowed in between
    left = position - 1
    while left >= 0 and unicodedata.category(label[left]) in ("Mn", "Me", "Cf"):
        left -= 1
    right = position + 1
    while right < len(label) and unicodedata.category(label[right]) in ("Mn", "Me", "Cf"):
        right += 1
    return left >= 0 and right < len(label) and _joining(label[left]) and _joining(label[right])


def _bidi(char: str) -> str:
    return unicodedata.bidirectional(char)


def _bidi_rule(label: str) -> bool:
    """RFC 5893 section 2."""
    classes = [_bidi(c) for c in label]
    first = classes[0]
    if first not in ("L", "R", "AL"):
        return False
    trimmed = classes[:]
    while trimmed and trimmed[-1] == "NSM":
        trimmed.pop()
    if not trimmed:
        return False
    if first in ("R", "AL"):
        if any(c not in ("R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM") for c in classes):
            return False
        if trimmed[-1] not in ("R", "AL", "EN", "AN"):
            return False
        return not ("EN" in classes and "AN" in classes)
    if any(c not in ("L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM") for c in classes):
        return False
    return trimmed[-1] in ("L", "EN")
