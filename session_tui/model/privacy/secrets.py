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
from collections.abc import Callable
from dataclasses import dataclass
from re import Pattern
from typing import Any

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector

__all__ = [
    "KINDS",
    "PREFILTERS",
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


# -- placeholders ------------------------------------------------------------------
_PLACEHOLDER_WORDS = re.compile(
    r"your|example|placeholder|dummy|redacted|changeme|change_me|replace|insert|sample|fake|"
    r"x{4,}|\*\*\*|\.\.\.|…|<|>|\{|\}|\$|%\(|\[",
    re.IGNORECASE,
)
_RUN = re.compile(r"(.)\1{4,}")  # five times the same character: xxxxx, 00000, *****


def _random_looking(body: str) -> bool:
    """A generated key's body: no placeholder word, no long run of one
    character, letters and digits mixed, many distinct characters."""
    if _PLACEHOLDER_WORDS.search(body) or _RUN.search(body):
        return False
    classes = any(c.islower() for c in body) + any(c.isupper() for c in body) + any(c.isdigit() for c in body)
    return classes >= 2 and len(set(body)) >= min(12, len(body) // 2)


def _after_prefix(prefix: Pattern[str]) -> Callable[[str], bool]:
    """A check on what follows a key's fixed prefix."""

    def check(value: str) -> bool:
        found = prefix.match(value)
        return _random_looking(value[found.end() if found else 0 :])

    return check


_PREFIX = re.compile(r"[A-Za-z0-9]+[-_.]|[A-Z]{4}")  # sk-, ghp_, xoxb-, AKIA, …
_keyish = _after_prefix(_PREFIX)

_TRIVIAL_VALUES = frozenset(
    "true false none null nil undefined empty secret password passwd token apikey api_key "
    "required optional string default test testing demo admin root user username guest hunter2 "
    "letmein qwerty 12345678 123456789 1234567890 abcdefgh postgres postgresql mysql mongodb rabbitmq "
    "minioadmin localhost".split()
)


def _non_trivial(value: str) -> bool:
    """A password or an assigned value that is one: not a placeholder, a
    word used as one, a reference to something else (``$VAR``, a path, a
    constant's name) or a number."""
    if len(value) < 8 or value.lower() in _TRIVIAL_VALUES or _PLACEHOLDER_WORDS.search(value) or _RUN.search(value):
        return False
    if value[0] in "/~.\\" or value.isdigit() or re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", value):
        return False
    if re.fullmatch(r"[a-z_]+", value) and "_" in value:  # a variable's name (``token=api_token``)
        return False
    if re.fullmatch(r"[A-Za-z_]+(?:\.[A-Za-z_][A-Za-z0-9_]*)+", value):  # an attribute (``os.environ``)
        return False
    return len(set(value)) >= 5


def _password(value: str) -> bool:
    return _non_trivial(value) or (len(value) >= 6 and _random_looking(value))


_WORDS = re.compile(r"[a-z]+(?:[-_.][a-z0-9]+){2,}")


def _assigned_password(value: str) -> bool:
    """A password assigned in code or config: not lower-case words joined by
    dashes or underscores (``test-secret-key-base-…``: a fixture's, a name)."""
    return _password(value) and not _WORDS.fullmatch(value)


def _generated(value: str) -> bool:
    """A value that looks generated, letters and digits (a YAML value: not a
    type annotation's name, ``API_KEY: Optional``)."""
    return _non_trivial(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _jwt(value: str) -> bool:
    return JwtTokenDetector.is_formally_valid(value)


# -- the patterns -----------------------------------------------------------------
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_E = r"(?![A-Za-z0-9_\-])"  # not followed by more of a token


def _plugin(detector: Any, index: int = 0) -> Pattern[str]:
    """The ``index``-th pattern of a detect-secrets regex plugin (a class attribute of each)."""
    pattern: Pattern[str] = list(detector.denylist)[index]
    return pattern


def _ended(regex: Pattern[str]) -> Pattern[str]:
    """A plugin's pattern that must not end inside a longer token."""
    return re.compile(regex.pattern + _E, regex.flags)


@dataclass(frozen=True)
class _Pattern:
    """A secret's form. It is tried only where one of its ``needles`` is, the
    match starting ``reach`` characters before it (so no pattern scans a
    long string: the needles are found by a literal search)."""

    kind: str
    needles: tuple[str, ...]
    regex: Pattern[str]
    group: int = 0  # the group holding the secret (0: the whole match)
    check: Callable[[str], bool] | None = None  # the secret must pass it (a placeholder does not)
    reach: int = 0
    bounded: bool = True  # not inside a longer token (``risk-…`` is no ``sk-…`` key)
    specific: bool = True  # a vendor's format: wins over a generic match (a JWT, a URL) it overlaps


_PATTERNS: tuple[_Pattern, ...] = (
    # vendors' formats: detect-secrets' plugins, and those it lacks
    _Pattern("anthropic-key", ("sk-",), re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{32,}"), check=_keyish),
    _Pattern("openai-key", ("sk-",), _plugin(OpenAIDetector)),
    _Pattern("openai-key", ("sk-",), re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}"), check=_keyish),
    _Pattern("openai-key", ("sk-",), re.compile(r"sk-[A-Za-z0-9]{32,}" + _E), check=_keyish),
    _Pattern(
        "github-token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), _ended(_plugin(GitHubTokenDetector)), check=_keyish
    ),
    _Pattern("github-token", ("github_pat_",), re.compile(r"github_pat_[A-Za-z0-9_]{50,}"), check=_keyish),
    *(
        _Pattern("gitlab-token", needles, _plugin(GitLabTokenDetector, n), check=_keyish)
        for n, needles in enumerate(
            (
                ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-"),
                ("GR1348941",),
                ("glcbt-",),
                ("glimt-",),
                ("glptt-",),
                ("glagent-",),
                ("gloas-",),
            )
        )
    ),
    _Pattern("aws-access-key", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), _ended(_plugin(AWSKeyDetector)), check=_keyish),
    _Pattern(
        "aws-secret-key", ("aws", "AWS", "Aws"), _plugin(AWSKeyDetector, 1), 1, lambda v: _aws_secret(v), bounded=False
    ),
    _Pattern(  # AWS_SECRET_ACCESS_KEY=…: an assignment, below
        "aws-secret-key",
        ("ecret",),
        re.compile(
            r"[sS]ecret_?[aA]ccess_?[kK]ey\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        lambda v: _aws_secret(v),
        reach=1,
        bounded=False,
    ),
    _Pattern("slack-token", ("xox",), _ended(_plugin(SlackDetector)), check=_keyish),
    _Pattern(
        "slack-token", ("xapp-", "xoxe."), re.compile(r"(?:xapp-\d|xoxe\.xox[bp]-\d)-[A-Za-z0-9\-]{20,}"), check=_keyish
    ),
    _Pattern(
        "slack-webhook",
        ("hooks.slack.com",),
        _plugin(SlackDetector, 1),
        check=lambda v: _random_looking(v.rsplit("/", 1)[-1]),
        reach=len("https://"),
    ),
    _Pattern("google-api-key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _E), check=_keyish),
    _Pattern(
        "google-oauth",
        ("GOCSPX-", "ya29."),
        re.compile(r"(?:GOCSPX-[A-Za-z0-9_\-]{28}|ya29\.[0-9A-Za-z_\-]{30,})"),
        check=_keyish,
    ),
    _Pattern("huggingface-token", ("hf_",), re.compile(r"hf_[A-Za-z0-9]{34,}" + _E), check=_keyish),
    _Pattern("stripe-key", ("k_live_",), _ended(_plugin(StripeDetector)), check=_keyish, reach=1),
    _Pattern("sendgrid-key", ("SG.",), _plugin(SendGridDetector), check=_keyish),
    _Pattern("npm-token", ("npm_",), re.compile(r"npm_[A-Za-z0-9]{36}" + _E), check=_keyish),
    _Pattern(
        "npm-token",
        ("_authToken=",),
        re.compile(r"_authToken=\s*([A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12})"),
        1,
        bounded=False,
    ),
    _Pattern("pypi-token", ("pypi-Ag",), _plugin(PypiTokenDetector)),
    _Pattern("pypi-token", ("pypi-Ag",), _plugin(PypiTokenDetector, 1)),
    _Pattern("square-oauth", ("sq0csp-",), _plugin(SquareOAuthDetector), check=_keyish),
    _Pattern(
        "mailchimp-key",
        ("-us",),
        _ended(_plugin(MailchimpDetector)),
        check=lambda v: _random_looking(v[:32]),
        reach=32,
    ),
    _Pattern(
        "azure-storage-key",
        ("AccountKey=",),
        re.compile(r"AccountKey=([a-zA-Z0-9+/=]{88})"),  # detect-secrets' pattern, the key alone
        1,
        _random_looking,
        bounded=False,
    ),
    _Pattern("twilio-key", ("AC", "SK"), re.compile(r"(?:AC|SK)[a-f0-9]{32}" + _E), check=_keyish),
    _Pattern(  # Azure AD (Entra ID) client secrets: 3 characters, a digit, Q~, 31 to 34 more
        "azure-client-secret",
        ("Q~",),
        re.compile(r"[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
        check=_random_looking,
        reach=4,
    ),
    # generic: a bearer token in an Authorization header, a password assigned
    # in any case (``password="…"``, ``client_secret: …``), a JSON Web Token
    # (signed), a password in a URL
    _Pattern(
        "bearer-token",
        ("Authorization", "authorization"),
        re.compile(
            r"[Aa]uthorization\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?:[Bb]earer|[Tt]oken|[Bb]asic)[ \t]+"
            r"([A-Za-z0-9\-._~+/]{16,}=*)(?![A-Za-z0-9\-._~+/=])"
        ),
        1,
        _random_looking,
        bounded=False,
        specific=False,
    ),
    _Pattern(
        "password-assignment",
        ("assword", "asswd", "ecret"),
        re.compile(
            r"(?:[Pp]ass(?:word|wd)|[Ss]ecret)[A-Za-z_]*\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?"
            r"([^\s\"'`$;&|<>(){}\[\]\\,]{8,})"
        ),
        1,
        _assigned_password,
        reach=1,
        bounded=False,
        specific=False,
    ),
    # generic: a JSON Web Token (signed), a password in a URL
    _Pattern(
        "jwt",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,}" + _E),
        check=_jwt,
        specific=False,
    ),
    _Pattern("url-credentials", ("://",), _plugin(BasicAuthDetector), 1, _password, bounded=False, specific=False),
    _Pattern(  # what it leaves out: no user name, a password with ``!`` or ``$`` in it
        "url-credentials",
        ("://",),
        re.compile(r"://[^\s:/?#\[\]@\"'<>]*:([^\s/?#\[\]@\"'<>]+)@"),
        1,
        _password,
        bounded=False,
        specific=False,
    ),
)

# .env-style assignments: a name like an environment variable's that holds a
# secret, then NAME=value (a .env file, a shell), NAME = "value" or
# "NAME": "value" (code, JSON), NAME: value (YAML); a name quoted in JSON in a
# string (``\"NAME\"``) too. Found from the name's last word, then the name
# read back and the value forward.
_ENV_NEEDLES = ("KEY", "SECRET", "TOKEN", "PASSW", "CREDENTIAL")
_ENV_NAME = (
    r"(?:[A-Z][A-Z0-9_]*?)?(?:API_?KEY|ACCESS_?KEY|SECRET_?KEY|PRIVATE_?KEY|CLIENT_?SECRET|AUTH_?KEY|SECRET|TOKEN|"
    r"PASSWORD|PASSWD|CREDENTIALS?)"
)
ENV_NAME = re.compile(_ENV_NAME)  # a record field of such a name holds a secret too
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ENV_VALUE = r"[^\s\"'`$;&|<>(){}\[\]\\,]{8,}"
_ENV_ASSIGNED = re.compile(
    r"\\*[\"']?(?:=\\*[\"']?("
    + _ENV_VALUE
    + r")|[ \t]*[:=][ \t]*\\*[\"']("
    + _ENV_VALUE
    + r")\\*[\"']|: ("
    + _ENV_VALUE
    + "))"
)


_AWS_SECRET_NAME = re.compile(r"(?:AWS_)?SECRET_?ACCESS_?KEY")


def _assignment(text: str, at: int) -> tuple[int, int, str] | None:
    """The value (start, end, kind) of the .env-style assignment whose name
    holds ``text[at]``, if there is one."""
    start = end = at
    while end < len(text) and text[end] in _NAME_CHARS:
        end += 1
    while start and text[start - 1] in _NAME_CHARS:
        start -= 1
    escaped_line_end = start >= 2 and text[start - 2] == "\\" and text[start - 1] in "nrt"  # ``\nNAME=``
    if start and (text[start - 1].isalnum() or text[start - 1] == "_") and not escaped_line_end:
        return None  # a lower-case name: code
    found = ENV_NAME.fullmatch(text, start, end) and _ENV_ASSIGNED.match(text, end)
    if not found:
        return None
    group = found.lastindex or 0
    value = found.group(group)
    if _AWS_SECRET_NAME.search(text, start, end) and _aws_secret(value):
        return (*found.span(group), "aws-secret-key")
    if _generated(value) if group == 3 else _non_trivial(value):
        return (*found.span(group), "env-assignment")
    return None


KINDS = (*dict.fromkeys(p.kind for p in _PATTERNS), "env-assignment", "private-key", "base64-secret")

# A private key block: any ``-----BEGIN … PRIVATE KEY-----`` header (RSA, EC,
# DSA, OpenSSH, PKCS#8, encrypted, PGP's ``PRIVATE KEY BLOCK``, SSH2's
# ``---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----``), then the body up to the END
# line (or, cut short, as far as it goes). A header without a body (code that
# looks for one, a placeholder) is no secret.
_NL = r"(?:\\+[rn]|\s)+"  # a newline, as text or as escapes (a key inside JSON inside a string)
_DASHES = r"-{4,5} ?"
_KEY_NAME = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"
_PRIVATE_KEY = re.compile(
    _DASHES + "BEGIN " + _KEY_NAME + " ?-{4,5}"
    r"(?:" + _NL + r"[A-Za-z0-9-]+: [^\n\\]*)*"  # headers (Proc-Type, DEK-Info, Comment)
    r"(" + _NL + r"[A-Za-z0-9+/=]{16,})+"
    r"(?:" + _NL + _DASHES + "END " + _KEY_NAME + " ?-{4,5})?"
)
_BODY_LINE = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/=]{16,}")


def _key_body(block: str) -> bool:
    """A real key's body: at least 64 base64 characters of at least 16
    kinds (an OpenSSH key has long runs of ``A``: no run is held against it)."""
    body = "".join(_BODY_LINE.findall(block))
    return len(body) >= 64 and len(set(body)) >= 16


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
_KEY_BLOCKS = ("PRIVATE KEY", "PuTTY-User-Key")
_BY_NEEDLE: dict[str, list[_Pattern]] = {}
for _pattern in _PATTERNS:
    for _needle in _pattern.needles:
        _BY_NEEDLE.setdefault(_needle, []).append(_pattern)
_REFINED = {  # each regex starts with its needle's first character, as it is
    "://": (r"://[^\s/@]{0,1024}:[^\s/@]{1,1024}@", r":\\/\\/[^\s@]{0,1024}:[^\s@]{1,1024}@"),  # also ``:\/\/``
    **{needle: (re.escape(needle) + r"[A-Z]*" + _ASSIGNED,) for needle in _ENV_NEEDLES},
    **{needle: (needle + r"[A-Za-z_]*" + _ASSIGNED,) for needle in ("assword", "asswd", "ecret")},
    **{needle: (needle + _ASSIGNED,) for needle in ("Authorization", "authorization")},
    "AC": (r"AC[a-f0-9]{32}",),
    "SK": (r"SK[a-f0-9]{32}",),
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
# A raw line may write a needle's characters as ``\\u`` escapes (``\\u0073k-``):
# a line with an escaped printable ASCII character (which JSON writers leave
# as it is) is decoded and looked at too.
_ESCAPED_ASCII = r"\\u00[2-7][0-9a-fA-F]"
PREFILTERS: tuple[Pattern[bytes], ...] = tuple(re.compile(regex.encode()) for regex in [*_SEARCHES, _ESCAPED_ASCII])
TEXT_PREFILTERS: tuple[Pattern[str], ...] = tuple(re.compile(regex) for regex in _SEARCHES)
_NEEDLES_AT = {**{first: tuple(needles) for first, needles in _FIRST.items()}}
for _needle in _REFINED:
    _NEEDLES_AT[_needle[0]] = (*_NEEDLES_AT.get(_needle[0], ()), _needle)


def has_candidate(raw: bytes) -> bool:
    """Whether a raw line may hold a secret (False: it certainly holds none)."""
    return any(prefilter.search(raw) for prefilter in PREFILTERS)


def candidate_lines(data: bytes, start: int = 0, stop: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line of ``data[start:stop]`` that may hold a
    secret, in order (``end``: before its newline); lines end at ``\n``, as
    JSONL lines do."""
    stop = len(data) if stop is None else stop
    hits = sorted({found.start() for prefilter in PREFILTERS for found in prefilter.finditer(data, start, stop)})
    lines: list[tuple[int, int]] = []
    for hit in hits:
        if lines and hit <= lines[-1][1]:
            continue
        end = data.find(b"\n", hit, stop)
        lines.append((data.rfind(b"\n", start, hit) + 1 or start, stop if end < 0 else end))
    return lines


def needle_hits(text: str) -> list[int]:
    """Where in ``text`` the prefilter finds something, in order: the only
    places a secret's needle can be."""
    return sorted({found.start() for prefilter in TEXT_PREFILTERS for found in prefilter.finditer(text)})


def find_secrets(
    text: str, name: str | None = None, hits: list[int] | None = None, *, in_base64: bool = False
) -> list[Secret]:
    """The secrets in ``text``, in order, none overlapping: a vendor's
    format wins over a JWT, a URL or an assignment around it. ``name`` is
    the field that holds ``text`` in a record: a field named like an
    environment variable that holds a secret (``OPENAI_API_KEY``) makes a
    non-trivial value a secret as a whole. ``hits``: ``needle_hits(text)``,
    when known. ``in_base64``: ``text`` is decoded base64 (not looked into again)."""
    found: list[tuple[bool, int, int, str]] = []  # (generic, start, end, kind)
    if name is not None and "\n" not in text and ENV_NAME.fullmatch(name) and _non_trivial(text.strip()):
        found.append((True, 0, len(text), "env-assignment"))
    for at in needle_hits(text) if hits is None else hits:
        for needle in _NEEDLES_AT.get(text[at], ()):
            if not text.startswith(needle, at):
                continue
            if needle in _ENV_NEEDLES:
                assigned = _assignment(text, at)
                if assigned:
                    start, end, kind = assigned
                    found.append((kind == "env-assignment", start, end, kind))
            elif needle in _B64_NEEDLES:
                run = None if in_base64 else _base64_secret(text, at)
                if run:
                    found.append((False, *run, "base64-secret"))
                continue
            elif needle in _KEY_BLOCKS:
                block = _PRIVATE_KEY if needle == "PRIVATE KEY" else _PUTTY
                begin = _key_start(text, at) if needle == "PRIVATE KEY" else at
                match = block.match(text, begin) if begin >= 0 else None
                if match and (needle != "PRIVATE KEY" or _key_body(match.group())):
                    found.append((False, *match.span(), "private-key"))
            for pattern in _BY_NEEDLE.get(needle, ()):
                start = at - pattern.reach
                match = pattern.regex.match(text, start) if start >= 0 else None
                if match and not (pattern.bounded and start and text[start - 1] in _TOKEN_CHARS):
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


def find_in_strings(items: list[tuple[str | None, str]]) -> list[list[Secret]]:
    """``find_secrets`` of many (field name, string) pairs (a record's), one
    list per pair. The prefilter's searches run once over all the strings
    joined by newlines (which no search crosses); only the strings they find
    something in, or whose field is named like a secret, are looked at."""
    joined = "\n".join(text for _, text in items)
    hits = needle_hits(joined)
    by_item: dict[int, list[int]] = {n: [] for n, (name, _) in enumerate(items) if name and ENV_NAME.fullmatch(name)}
    if hits:
        starts, at = [], 0
        for _, text in items:
            starts.append(at)
            at += len(text) + 1
        for hit in hits:
            n = bisect_right(starts, hit) - 1
            by_item.setdefault(n, []).append(hit - starts[n])
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
            if _aws_secret(match.group(1)):
                out.append((False, *match.span(1), "aws-secret-key"))
    return out


def _aws_secret(value: str) -> bool:
    """An AWS secret access key: random, mixed case or with ``/``/``+``
    (a hex digest of the same length is neither)."""
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return _random_looking(value) and (mixed or "/" in value or "+" in value)


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
_UNPREFIXED = frozenset({"aws-secret-key", "azure-storage-key", "mailchimp-key", "url-credentials", "env-assignment"})


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
