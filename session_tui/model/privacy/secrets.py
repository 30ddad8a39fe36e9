"""Secrets in session text: what one looks like, where it is in a string,
and how it is shown without being shown.

The detector is detect-secrets' regex plugins (their patterns and checks,
used directly on strings, without its file scanning or baselines), minus the
ones that flag ordinary text (high-entropy strings: hashes, UUIDs, base64;
keywords: code; public IPs), plus the key formats coding agents meet that it
lacks: Anthropic, OpenAI project keys, GitHub fine-grained tokens, Google,
Hugging Face, npm, AWS secret keys beside their key ids, whole private key
blocks and ``.env``-style assignments. A placeholder (``sk-...``,
``YOUR_API_KEY``, ``<token>``, ``xxxx``) is never a secret.

``has_candidate`` is the cheap test on a raw line that lets every line
without a candidate skip decoding and the patterns (the scan's throughput
comes from it): each pattern below has a literal in it, or a short regex,
that the prefilter looks for.
"""

from __future__ import annotations

import base64
import hashlib
import re
from bisect import bisect_right
from dataclasses import dataclass
from re import Pattern

from ahocorasick_rs import BytesAhoCorasick, Implementation

from .secret_patterns import (
    ENV_NAME,
    ENV_NEEDLES,
    PATTERNS,
    TOKEN_CHARS,
    SecretPattern,
    assignment,
    aws_secret,
    non_trivial,
)

__all__ = [
    "KINDS",
    "Secret",
    "candidate_lines",
    "find_in_strings",
    "find_secrets",
    "has_candidate",
    "mark",
    "needle_hits",
    "preview",
]


@dataclass(frozen=True)
class Secret:
    """One secret in a string, at ``text[start:end]``; ``value`` is the
    secret itself (a private key's newlines escaped in JSON text unescaped)."""

    kind: str
    start: int
    end: int
    value: str


KINDS = (*dict.fromkeys(p.kind for p in PATTERNS), "env-assignment", "private-key", "base64-secret", "user-password")

# A private key block: any ``-----BEGIN … PRIVATE KEY-----`` header (RSA, EC,
# DSA, OpenSSH, PKCS#8, encrypted, PGP's ``PRIVATE KEY BLOCK``, SSH2's
# ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``), then the body up to the END
# line (or, cut short, as far as it goes), whatever the body's length: the
# header and a line of base64 after it are enough. A header without a body
# (code that looks for one) or with a placeholder's (``...``, ``<your key>``)
# is no secret.
_NL = r"(?:\\+[rn]|\s)+"  # a newline, as text or as escapes (a key inside JSON inside a string)
_DASHES = r"-{4,5} ?"
_KEY_NAME = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"
_PRIVATE_KEY = re.compile(
    _DASHES + "BEGIN " + _KEY_NAME + " ?-{4,5}"
    r"(?:" + _NL + r"[A-Za-z0-9-]+: [^\n\\]*)*"  # headers (Proc-Type, DEK-Info, Comment)
    r"(" + _NL + r"[A-Za-z0-9+/=]{4,})+"
    r"(?:" + _NL + _DASHES + "END " + _KEY_NAME + " ?-{4,5})?"
)


def _key_body(text: str, end: int) -> bool:
    """The body that ends at ``text[end]`` is a key's, not a placeholder's
    cut short (``MIIEowIBAAKCAQEA...``): no ellipsis right after it."""
    return not text.startswith(("...", "…"), end)


def _key_start(text: str, at: int) -> int:
    """Where the header holding ``PRIVATE KEY`` at ``at`` starts (its
    dashes), or -1."""
    begin = text.rfind("BEGIN ", max(0, at - 60), at)
    if begin > 0 and text[begin - 1] == " ":
        begin -= 1
    while begin > 0 and text[begin - 1] == "-":
        begin -= 1
    return begin


# Base64 text that decodes to a secret (``.env`` content piped through
# ``base64``, a Kubernetes secret's data): found by the base64 of the words
# such content holds, at each of the three alignments a word can have.
_B64_WORDS = (b"API_KEY", b"SECRET", b"TOKEN=", b"PASSWORD")  # (each search costs a pass: the words .env names hold)


def _b64_needles(word: bytes) -> list[str]:
    """The base64 characters ``word`` alone decides, at each alignment."""
    out = []
    for pad in range(3):
        encoded = base64.b64encode(b"A" * pad + word + b"AAA").decode()
        out.append(encoded[-(-8 * pad // 6) : (8 * pad + 8 * len(word)) // 6])
    return out


_B64_NEEDLES = frozenset(needle for word in _B64_WORDS for needle in _b64_needles(word))
_B64_BODY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
_B64_MAX = 1 << 20


def _base64_secret(text: str, at: int) -> tuple[int, int] | None:
    """The base64 run around ``text[at]``, if it decodes to text holding a secret."""
    start, end = at, at
    while start and text[start - 1] in _B64_BODY:
        start -= 1
    while end < len(text) and text[end] in _B64_BODY:
        end += 1
    body = text[start:end]
    while end < len(text) and text[end] == "=":
        end += 1
    if not 16 <= len(body) <= _B64_MAX:
        return None
    body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    try:
        decoder = base64.urlsafe_b64decode if ("-" in body or "_" in body) else base64.b64decode
        decoded = decoder(body + "=" * (-len(body) % 4)).decode("utf-8", "replace")
    except ValueError:
        return None
    return (start, end) if find_secrets(decoded, in_base64=True) else None


_PUTTY = re.compile(r"PuTTY-User-Key-File-\d: [^\n]*(?:\n[^\n]*){0,40}?\nPrivate-MAC: [0-9a-f]+")

# -- the prefilter, and where the patterns are tried --------------------------------
# Every secret holds a needle: a pattern's, an assignment's name's last word,
# ``PRIVATE KEY``. A raw JSON line holds it as it is (no needle has a
# character JSON escapes, but ``/``, which may be written ``\/``). Needles
# common in ordinary text (``://``, ``KEY``) are looked for with what must
# follow them. One search per first letter of the needles: Python's regular
# expressions find a literal at gigabytes a second, an alternation of dozens
# of them at 15 MB/s (each search costs a pass over the text: 15 to 40 ms
# per 50 MB).
_ASSIGNED = r"\\*[\"']?(?:[ \t]|\\t)*[:=]"  # after a name: its assignment (the name quoted, in JSON, or twice)
_BARE_40 = r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"  # an AWS-style secret of 40 random characters
_KEY_BLOCKS = ("PRIVATE KEY", "PuTTY-User-Key")
_BY_NEEDLE: dict[str, list[SecretPattern]] = {}
for _pattern in PATTERNS:
    for _needle in _pattern.needles:
        _BY_NEEDLE.setdefault(_needle, []).append(_pattern)
_REFINED = {  # each regex starts with its needle's first character, as it is
    "://": (r"://[^\s/@]{0,1024}:[^\s/@]{1,1024}@", r":\\/\\/[^\s@]{0,1024}:[^\s@]{1,1024}@"),  # also ``:\/\/``
    **{needle: (re.escape(needle) + r"[A-Z]*" + _ASSIGNED,) for needle in ENV_NEEDLES},
    **{needle: (needle + r"[A-Za-z_]*" + _ASSIGNED,) for needle in ("assword", "asswd", "ecret")},
    **{needle: (needle + _ASSIGNED,) for needle in ("Authorization", "authorization")},
    "AC": (r"AC[a-f0-9]{32}",),
    "SK": (r"SK[a-f0-9]{32}",),
    ":": (":" + _BARE_40,),  # user:SECRET (curl -u, an Authorization value, a URL, a .env line)
}
_FIRST: dict[str, list[str]] = {}  # the plain needles by first letter, longest first
for _needle in sorted((*_BY_NEEDLE, *_KEY_BLOCKS, *_B64_NEEDLES), key=len, reverse=True):
    if _needle not in _REFINED:
        _FIRST.setdefault(_needle[0], []).append(_needle)
# one search per first character: what may follow it, plain needles and refined ones alike
_AFTER: dict[str, list[str]] = {first: [re.escape(n[1:]) for n in needles] for first, needles in _FIRST.items()}
for _needle, _regexes in _REFINED.items():
    _AFTER.setdefault(_needle[0], []).extend(regex[1:] for regex in _regexes)
_SEARCHES = [re.escape(first) + "(?:" + "|".join(rest) + ")" for first, rest in _AFTER.items()]
# Characters that show as nothing (zero-width, bidi controls, the soft hyphen,
# a BOM): a token split by them is the token itself, so they are taken out
# before a string is scanned; a line holding one (raw or ``\u``-escaped) is a candidate.
_INVISIBLE_CHARS = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_INVISIBLE = re.compile("[" + _INVISIBLE_CHARS + "]")
TEXT_PREFILTERS: tuple[Pattern[str], ...] = tuple(re.compile(regex) for regex in _SEARCHES)
_NEEDLES_AT = {**{first: tuple(needles) for first, needles in _FIRST.items()}}
for _needle in _REFINED:
    _NEEDLES_AT[_needle[0]] = (*_NEEDLES_AT.get(_needle[0], ()), _needle)

# -- the raw-line prefilter: one pass of an Aho-Corasick automaton ------------------
# (Rust's aho-corasick, its DFA: over the search bench's 60 MB the 33 regex
# passes it replaces took 6-7x its time.) Its literals: every plain needle;
# each refined needle, a hit where its regex matches there; ``\u``, a hit
# where it escapes a printable ASCII character or an invisible one (a raw
# line may write a needle's characters so, ``\u0073k-``: JSON writers leave
# them as they are, so such a line is decoded and looked at too); and the
# invisible characters' UTF-8 bytes. With every escape spelt out (278
# literals) the automaton ran at a third of the speed. What starts with a
# lone ``:`` has no literal worth a stop: its search stays a regex pass.
_ESCAPE = re.compile(  # after a ``\\u``: an escaped printable ASCII character, or an invisible one
    rb"\\u(?:00[2-7][0-9a-fA-F]|00[aA][dD]|061[cC]|180[eE]|200[b-fB-F]|202[a-eA-E]|206[0-46-9]|[fF][eE][fF][fF])"
)
_LITERALS: dict[bytes, Pattern[bytes] | None] = {  # a literal -> None (a hit is a candidate) or what must match at it
    b"\\u": _ESCAPE,
    # the invisible characters' UTF-8 bytes (the two lead pairs of the U+2000 block, checked)
    **dict.fromkeys((b"\xc2\xad", b"\xd8\x9c", b"\xe1\xa0\x8e", b"\xef\xbb\xbf"), None),
    b"\xe2\x80": re.compile(b"\xe2\x80[\x8b-\x8f\xaa-\xae]"),
    b"\xe2\x81": re.compile(b"\xe2\x81[\xa0-\xa4\xa6-\xa9]"),
}
for _first, _needles in _FIRST.items():
    if _first != ":":
        _LITERALS.update(dict.fromkeys((needle.encode() for needle in _needles), None))
for _needle, _regexes in _REFINED.items():
    if _needle[0] != ":":
        _LITERALS[_needle.encode()] = re.compile("|".join(_regexes).encode())
_AUTOMATON = BytesAhoCorasick(list(_LITERALS), implementation=Implementation.DFA)
_CHECKS = list(_LITERALS.values())
_COLON = re.compile(next(regex for regex in _SEARCHES if regex.startswith(":")).encode())


def _hits(data: bytes | memoryview, offset: int = 0) -> list[int]:
    """Where in ``data`` the prefilter finds something (not in order; ``offset`` added)."""
    checks = _CHECKS
    hits = [
        offset + at
        for literal, at, _ in _AUTOMATON.find_matches_as_indexes(data, overlapping=True)
        if (check := checks[literal]) is None or check.match(data, at)
    ]
    hits.extend(offset + found.start() for found in _COLON.finditer(data))
    return hits


def has_candidate(raw: bytes) -> bool:
    """Whether a raw line may hold a secret (False: it certainly holds none)."""
    return bool(_hits(raw))


def candidate_lines(data: bytes, start: int = 0, stop: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line of ``data[start:stop]`` that may hold a
    secret, in order (``end``: before its newline); lines end at ``\n``, as
    JSONL lines do."""
    stop = len(data) if stop is None else stop
    part = data if start == 0 and stop == len(data) else memoryview(data)[start:stop]
    lines: list[tuple[int, int]] = []
    for hit in sorted(set(_hits(part, start))):
        if lines and hit <= lines[-1][1]:
            continue
        end = data.find(b"\n", hit, stop)
        lines.append((data.rfind(b"\n", start, hit) + 1 or start, stop if end < 0 else end))
    return lines


def needle_hits(text: str) -> list[int]:
    """Where in ``text`` the prefilter finds something, in order: the only
    places a secret's needle can be."""
    return sorted({found.start() for prefilter in TEXT_PREFILTERS for found in prefilter.finditer(text)})


def _plainly_none(text: str, name: str | None) -> bool:
    """Whether the raw-line prefilter's one pass tells that ``text`` holds no
    secret, sparing the text's regex passes (``needle_hits``, ``_HIDING``).
    For ASCII only: there its searches are the text's, byte for byte (a
    needle's regex counts characters, ``{1,1024}``, that are more bytes
    beyond ASCII); and only when ``name`` makes no secret of a value whole."""
    return text.isascii() and not (name and ENV_NAME.fullmatch(name)) and not _hits(text.encode())


def find_secrets(
    text: str, name: str | None = None, hits: list[int] | None = None, *, in_base64: bool = False
) -> list[Secret]:
    """The secrets in ``text``, in order, none overlapping: a vendor's
    format wins over a JWT, a URL or an assignment around it. ``name`` is
    the field that holds ``text`` in a record: a field named like an
    environment variable that holds a secret (``OPENAI_API_KEY``) makes a
    non-trivial value a secret as a whole. ``hits``: ``needle_hits(text)``,
    when known. ``in_base64``: ``text`` is decoded base64 (not looked into again)."""
    if hits is None and _plainly_none(text, name):
        return []
    if _HIDING.search(text):
        return _unhidden(text, name, in_base64)
    found: list[tuple[bool, int, int, str]] = []  # (generic, start, end, kind)
    if name is not None and "\n" not in text and ENV_NAME.fullmatch(name) and non_trivial(text.strip()):
        found.append((True, 0, len(text), "env-assignment"))
    for at in needle_hits(text) if hits is None else hits:
        for needle in _NEEDLES_AT.get(text[at], ()):
            if not text.startswith(needle, at):
                continue
            if needle in ENV_NEEDLES:
                assigned = assignment(text, at)
                if assigned:
                    start, end, kind = assigned
                    found.append((kind == "env-assignment", start, end, kind))
            elif needle in _B64_NEEDLES:
                run = None if in_base64 else _base64_secret(text, at)
                if run:
                    found.append((False, *run, "base64-secret"))
                continue
            elif needle == ":":
                if at and text[at - 1] in _USER_CHARS and _BARE_AFTER_USER.match(text, at):
                    if aws_secret(text[at + 1 : at + 41]):
                        found.append((True, at + 1, at + 41, "user-password"))
                continue
            elif needle in _KEY_BLOCKS:
                block = _PRIVATE_KEY if needle == "PRIVATE KEY" else _PUTTY
                begin = _key_start(text, at) if needle == "PRIVATE KEY" else at
                match = block.match(text, begin) if begin >= 0 else None
                if match and (needle != "PRIVATE KEY" or _key_body(text, match.end())):
                    found.append((False, *match.span(), "private-key"))
            for pattern in _BY_NEEDLE.get(needle, ()):
                start = at - pattern.reach
                match = pattern.regex.match(text, start) if start >= 0 else None
                if match and not (pattern.bounded and start and text[start - 1] in TOKEN_CHARS):
                    first, last = match.span(pattern.group)
                    if first < last and (pattern.check is None or pattern.check(text[first:last])):
                        found.append((not pattern.specific, first, last, pattern.kind))
    if any(kind == "aws-access-key" for *_, kind in found):
        found += _aws_secrets_beside(text, [(s, e) for _, s, e, kind in found if kind == "aws-access-key"])
    if found and "[REDACTED:" in text:  # a mark redaction wrote is no secret, nor part of one
        marks = [m.span() for m in _MARK.finditer(text)]
        found = [f for f in found if all(f[2] <= start or f[1] >= end for start, end in marks)]
    return _resolve(text, found)


_MARK = re.compile(r"\[REDACTED:[a-z0-9-]+:[0-9a-f]{8}\]")
_USER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_BARE_AFTER_USER = re.compile(":" + _BARE_40)


# What hides a secret's characters in a text: an invisible character, or a
# ``\u`` escape of a token character as a raw JSON line writes it (a raw view).
_HIDING = re.compile(
    "[" + _INVISIBLE_CHARS + r"]|\\u00(?:[46][1-9a-fA-F]|[57][0-9aA]|3[0-9aAdD]|2[bBdDeEfF]|5[fF]|7[eE])"
)


def _unhidden(text: str, name: str | None, in_base64: bool) -> list[Secret]:
    """``find_secrets`` of ``text`` with its invisible characters taken out
    and its escaped token characters as they read, each secret's span the
    original text's (what hid in it included); its value is the secret as it
    reads (the same mark as when nothing hid it)."""
    plain: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for found in _HIDING.finditer(text):
        for k in range(at, found.start()):
            plain.append(text[k])
            starts.append(k)
            ends.append(k + 1)
        if len(found.group()) == 6:  # an escape: the character it writes
            plain.append(chr(int(found.group()[2:], 16)))
            starts.append(found.start())
            ends.append(found.end())
        at = found.end()
    for k in range(at, len(text)):
        plain.append(text[k])
        starts.append(k)
        ends.append(k + 1)
    return [
        Secret(s.kind, starts[s.start], ends[s.end - 1], s.value)
        for s in find_secrets("".join(plain), name, in_base64=in_base64)
        if s.end > s.start
    ]


def find_in_strings(items: list[tuple[str | None, str]]) -> list[list[Secret]]:
    """``find_secrets`` of many (field name, string) pairs (a record's), one
    list per pair. The prefilter's searches run once over all the strings
    joined by newlines (which no search crosses); only the strings they find
    something in, or whose field is named like a secret, are looked at."""
    joined = "\n".join(text for _, text in items)
    plain = _plainly_none(joined, None)  # (then neither a needle nor what hides one: the env names alone are looked at)
    hits = [] if plain else needle_hits(joined)
    by_item: dict[int, list[int]] = {n: [] for n, (name, _) in enumerate(items) if name and ENV_NAME.fullmatch(name)}
    if hits:
        starts, at = [], 0
        for _, text in items:
            starts.append(at)
            at += len(text) + 1
        for hit in hits:
            n = bisect_right(starts, hit) - 1
            by_item.setdefault(n, []).append(hit - starts[n])
    if not plain and _HIDING.search(joined):  # (a token split by them holds no needle as written)
        for n, (_, text) in enumerate(items):
            if n not in by_item and _HIDING.search(text):
                by_item[n] = []
    out: list[list[Secret]] = [[] for _ in items]
    for n, item_hits in by_item.items():
        name, text = items[n]
        out[n] = find_secrets(text, name, item_hits)
    return out


_AWS_NEAR = 300  # characters around a key id where its secret key is looked for
_B64_40 = re.compile(r"(?<![A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")


def _aws_secrets_beside(text: str, ids: list[tuple[int, int]]) -> list[tuple[bool, int, int, str]]:
    """40-character secret keys near an AWS key id (``aws configure``'s
    files, ``sts`` output): random-looking, so never a hex digest."""
    out = []
    for start, end in ids:
        lo, hi = max(0, start - _AWS_NEAR), min(len(text), end + _AWS_NEAR)
        for match in _B64_40.finditer(text, lo, hi):
            if aws_secret(match.group(1)):
                out.append((False, *match.span(1), "aws-secret-key"))
    return out


def _resolve(text: str, found: list[tuple[bool, int, int, str]]) -> list[Secret]:
    """Specific matches first, then generic ones, each kept only where it
    overlaps nothing kept before it; longer before shorter at one start."""
    kept: list[tuple[int, int, str]] = []
    for _, start, end, kind in sorted(found, key=lambda f: (f[0], f[1], -f[2])):
        if all(end <= s or start >= e for s, e, _ in kept):
            kept.append((start, end, kind))
    return [Secret(kind, start, end, _unescaped(kind, text[start:end])) for start, end, kind in sorted(kept)]


_ESCAPED_NEWLINE = re.compile(r"\\+([rn])")


def _unescaped(kind: str, value: str) -> str:
    """The secret itself: a private key found inside JSON text (its newlines
    escaped, once or more) is the same key, with the same mark."""
    if kind != "private-key" or "\\" not in value:
        return value
    return _ESCAPED_NEWLINE.sub(lambda m: "\r" if m.group(1) == "r" else "\n", value)


# -- how a secret is shown -----------------------------------------------------------
_UNPREFIXED = frozenset(
    {"aws-secret-key", "azure-storage-key", "mailchimp-key", "url-credentials", "env-assignment", "user-password"}
)


def preview(secret: str, kind: str | None = None) -> str:
    """A masked preview: the first characters of a key whose form starts
    with a fixed prefix (at most 4, and at most a quarter of it), then its
    length: ``sk-a…(108 chars)``; a password, an assigned value, a key of
    random characters only as its length: ``…(16 chars)``."""
    unprefixed = kind in _UNPREFIXED or (kind == "npm-token" and not secret.startswith("npm_"))
    shown = "" if unprefixed else secret[: min(4, len(secret) // 4)]
    return f"{shown}…({len(secret)} chars)"


def digest(secret: str) -> str:
    """The first 8 hex digits of the secret's SHA-256: the same secret, the same mark."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def mark(kind: str, secret: str) -> str:
    """What replaces a secret: ``[REDACTED:<kind>:<first 8 hex of its sha256>]``."""
    return f"[REDACTED:{kind}:{digest(secret)}]"
