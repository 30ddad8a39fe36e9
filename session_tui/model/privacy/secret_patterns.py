"""The secret patterns: detect-secrets' regex plugins kept (their patterns
and checks), the key formats coding agents meet that it lacks, the
``.env``-style assignment, and what makes a value a placeholder rather than
a secret. Used by ``secrets``, which finds them in text."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from re import Pattern
from typing import Any

from .deferred_import import deferred

with deferred("requests"):  # (for their verify functions, never called here: 64 ms of a start)
    from detect_secrets.plugins.aws import AWSKeyDetector
    from detect_secrets.plugins.basic_auth import BasicAuthDetector
    from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector
    from detect_secrets.plugins.mailchimp import MailchimpDetector
    from detect_secrets.plugins.openai import OpenAIDetector
    from detect_secrets.plugins.pypi_token import PypiTokenDetector
    from detect_secrets.plugins.sendgrid import SendGridDetector
    from detect_secrets.plugins.slack import SlackDetector
    from detect_secrets.plugins.square_oauth import SquareOAuthDetector

# -- placeholders ------------------------------------------------------------------
_PLACEHOLDER_WORDS = re.compile(
    r"your|example|placeholder|dummy|redacted|changeme|change_me|replace|insert|sample|fake|"
    r"x{4,}|\*\*\*|\.\.\.|…|<|>|\{|\}|\$|%\(|\[",
    re.IGNORECASE,
)
_RUN = re.compile(r"(.)\1{4,}")  # five times the same character: xxxxx, 00000, *****


def random_looking(body: str) -> bool:
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
        return random_looking(value[found.end() if found else 0 :])

    return check


_PREFIX = re.compile(r"[A-Za-z0-9]+[-_.]|[A-Z]{4}")  # sk-, ghp_, xoxb-, AKIA, …
_keyish = _after_prefix(_PREFIX)

_TRIVIAL_VALUES = frozenset(
    "true false none null nil undefined empty secret password passwd token apikey api_key "
    "required optional string default test testing demo admin root user username guest hunter2 "
    "letmein qwerty 12345678 123456789 1234567890 abcdefgh postgres postgresql mysql mongodb rabbitmq "
    "minioadmin localhost".split()
)


def non_trivial(value: str) -> bool:
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
    return non_trivial(value) or (len(value) >= 6 and random_looking(value))


_WORDS = re.compile(r"[a-z]+(?:[-_.][a-z0-9]+){2,}")


def _assigned_password(value: str) -> bool:
    """A password assigned in code or config: not lower-case words joined by
    dashes or underscores (``test-secret-key-base-…``: a fixture's, a name)."""
    return _password(value) and not _WORDS.fullmatch(value)


def _generated(value: str) -> bool:
    """A value that looks generated, letters and digits (a YAML value: not a
    type annotation's name, ``API_KEY: Optional``)."""
    return non_trivial(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def aws_secret(value: str) -> bool:
    """An AWS secret access key: random, mixed case or with ``/``/``+``
    (a hex digest of the same length is neither)."""
    mixed = any(c.islower() for c in value) and any(c.isupper() for c in value)
    return random_looking(value) and (mixed or "/" in value or "+" in value)


def _jwt(value: str) -> bool:
    return JwtTokenDetector.is_formally_valid(value)


# -- the patterns -----------------------------------------------------------------
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_E = r"(?![A-Za-z0-9_\-])"  # not followed by more of a token


def _plugin(detector: Any, index: int = 0) -> Pattern[str]:
    """The ``index``-th pattern of a detect-secrets regex plugin (a class attribute of each)."""
    pattern: Pattern[str] = list(detector.denylist)[index]
    return pattern


def _ended(regex: Pattern[str]) -> Pattern[str]:
    """A plugin's pattern that must not end inside a longer token."""
    return re.compile(regex.pattern + _E, regex.flags)


@dataclass(frozen=True)
class SecretPattern:
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


PATTERNS: tuple[SecretPattern, ...] = (
    # vendors' formats: detect-secrets' plugins, and those it lacks
    SecretPattern("anthropic-key", ("sk-",), re.compile(r"sk-ant-[a-z]+\d*-[A-Za-z0-9_\-]{32,}"), check=_keyish),
    SecretPattern("openai-key", ("sk-",), _plugin(OpenAIDetector)),
    SecretPattern("openai-key", ("sk-",), re.compile(r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{32,}"), check=_keyish),
    SecretPattern("openai-key", ("sk-",), re.compile(r"sk-[A-Za-z0-9]{32,}" + _E), check=_keyish),
    SecretPattern(  # detect-secrets' pattern, any length from its 36 (a longer token is one too)
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36,}" + _E),
        check=_keyish,
    ),
    SecretPattern("github-token", ("github_pat_",), re.compile(r"github_pat_[A-Za-z0-9_]{50,}"), check=_keyish),
    *(
        SecretPattern("gitlab-token", needles, _plugin(GitLabTokenDetector, n), check=_keyish)
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
    SecretPattern(
        "aws-access-key", ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), _ended(_plugin(AWSKeyDetector)), check=_keyish
    ),
    SecretPattern(
        "aws-secret-key", ("aws", "AWS", "Aws"), _plugin(AWSKeyDetector, 1), 1, lambda v: aws_secret(v), bounded=False
    ),
    SecretPattern(  # AWS_SECRET_ACCESS_KEY=…: an assignment, below
        "aws-secret-key",
        ("ecret",),
        re.compile(
            r"[sS]ecret_?[aA]ccess_?[kK]ey\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
        lambda v: aws_secret(v),
        reach=1,
        bounded=False,
    ),
    SecretPattern("slack-token", ("xox",), _ended(_plugin(SlackDetector)), check=_keyish),
    SecretPattern(
        "slack-token", ("xapp-", "xoxe."), re.compile(r"(?:xapp-\d|xoxe\.xox[bp]-\d)-[A-Za-z0-9\-]{20,}"), check=_keyish
    ),
    SecretPattern(
        "slack-webhook",
        ("hooks.slack.com",),
        _plugin(SlackDetector, 1),
        check=lambda v: random_looking(v.rsplit("/", 1)[-1]),
        reach=len("https://"),
    ),
    SecretPattern("google-api-key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _E), check=_keyish),
    SecretPattern(
        "google-oauth",
        ("GOCSPX-", "ya29."),
        re.compile(r"(?:GOCSPX-[A-Za-z0-9_\-]{28}|ya29\.[0-9A-Za-z_\-]{30,})"),
        check=_keyish,
    ),
    SecretPattern("huggingface-token", ("hf_",), re.compile(r"hf_[A-Za-z0-9]{34,}" + _E), check=_keyish),
    SecretPattern(  # detect-secrets' pattern, any length from its 24 (Stripe's keys have grown to 99)
        "stripe-key", ("k_live_",), re.compile(r"[rs]k_live_[0-9a-zA-Z]{24,}" + _E), check=_keyish, reach=1
    ),
    SecretPattern("sendgrid-key", ("SG.",), _plugin(SendGridDetector), check=_keyish),
    SecretPattern("npm-token", ("npm_",), re.compile(r"npm_[A-Za-z0-9]{36,}" + _E), check=_keyish),
    SecretPattern(
        "npm-token",
        ("_authToken=",),
        re.compile(r"_authToken=\s*([A-Fa-f0-9]{8}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{4}-[A-Fa-f0-9]{12})"),
        1,
        bounded=False,
    ),
    SecretPattern("pypi-token", ("pypi-Ag",), _plugin(PypiTokenDetector)),
    SecretPattern("pypi-token", ("pypi-Ag",), _plugin(PypiTokenDetector, 1)),
    SecretPattern("square-oauth", ("sq0csp-",), _plugin(SquareOAuthDetector), check=_keyish),
    SecretPattern(
        "mailchimp-key",
        ("-us",),
        _ended(_plugin(MailchimpDetector)),
        check=lambda v: random_looking(v[:32]),
        reach=32,
    ),
    SecretPattern(
        "azure-storage-key",
        ("AccountKey=",),
        re.compile(r"AccountKey=([a-zA-Z0-9+/=]{88})"),  # detect-secrets' pattern, the key alone
        1,
        random_looking,
        bounded=False,
    ),
    SecretPattern("twilio-key", ("AC", "SK"), re.compile(r"(?:AC|SK)[a-f0-9]{32}" + _E), check=_keyish),
    SecretPattern(  # Azure AD (Entra ID) client secrets: 3 characters, a digit, Q~, 31 to 34 more
        "azure-client-secret",
        ("Q~",),
        re.compile(r"[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
        check=random_looking,
        reach=4,
    ),
    # generic: a bearer token in an Authorization header, a password assigned
    # in any case (``password="…"``, ``client_secret: …``), a JSON Web Token
    # (signed), a password in a URL
    SecretPattern(
        "bearer-token",
        ("Authorization", "authorization"),
        re.compile(
            r"[Aa]uthorization\\*[\"']?[ \t]*[:=][ \t]*\\*[\"']?(?:[Bb]earer|[Tt]oken|[Bb]asic)[ \t]+"
            r"([A-Za-z0-9\-._~+/]{16,}=*)(?![A-Za-z0-9\-._~+/=])"
        ),
        1,
        random_looking,
        bounded=False,
        specific=False,
    ),
    SecretPattern(
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
    SecretPattern(
        "jwt",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{16,}" + _E),
        check=_jwt,
        specific=False,
    ),
    SecretPattern("url-credentials", ("://",), _plugin(BasicAuthDetector), 1, _password, bounded=False, specific=False),
    SecretPattern(  # what it leaves out: no user name, a password with ``!`` or ``$`` in it
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
ENV_NEEDLES = ("KEY", "SECRET", "TOKEN", "PASSW", "CREDENTIAL")
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


def assignment(text: str, at: int) -> tuple[int, int, str] | None:
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
    if _AWS_SECRET_NAME.search(text, start, end) and aws_secret(value):
        return (*found.span(group), "aws-secret-key")
    if _generated(value) if group == 3 else non_trivial(value):
        return (*found.span(group), "env-assignment")
    return None
