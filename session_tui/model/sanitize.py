"""The one place where untrusted text (session content, file names) becomes display text.

Every widget, screen, notice, title, export and CLI printer passes what it
shows through :func:`inert`, so nothing from a session can act on a terminal
(escape sequences), reorder what is read (bidi controls) or hide text
(zero-width and separator characters).
"""

from __future__ import annotations

import re
from collections.abc import Callable

# C0 but tab and newline, DEL, C1; the bidi controls (ALM, LRM, RLM, the
# embeddings/overrides LRE..RLO and PDF, the isolates LRI..PDI), which reorder
# how a line reads on screen ("Trojan source"); the invisible characters that
# can hide or split text (soft hyphen, ZWSP, ZWNJ, word joiner and the invisible
# operators, BOM, Mongolian vowel separator), the line/paragraph separators some
# terminals and editors treat as line ends, and lone surrogates (a file name's
# undecodable bytes, as os.fsdecode gives them). A zero-width joiner is kept
# between two pictographs (it builds one emoji from several) and marked anywhere else.
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
    "|(?<![\u2600-\u27bf\U0001f000-\U0001faff])\u200d|\u200d(?![\u2600-\u27bf\U0001f000-\U0001faff])"
)
# what JSON output must write as \\u escapes (orjson escapes C0, writes these as they are)
INVISIBLE_IN_JSON = re.compile(
    "[\x80-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)


UNDECODABLE = re.compile("[\ud800-\udfff]")  # lone surrogates: a file name's bytes that are not UTF-8 (os.fsdecode)


def _placeholder(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀..␟, e.g. ␛ for ESC
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0xFF:
        return f"<{code:02X}>"  # C1 controls such as CSI (0x9B), the soft hyphen
    if 0xDC80 <= code <= 0xDCFF:
        return f"<{code - 0xDC00:02X}>"  # an undecodable byte of a file name, e.g. <9B>
    return f"<{code:04X}>"  # bidi controls such as RLO (<202E>), ZWSP (<200B>)


def inert(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character (ESC, BEL, C1 CSI, bidi
    overrides and isolates, zero-width characters, …) replaced by a visible
    placeholder, so no escape sequence can act on a terminal nor anything
    reorder or hide what is read. Tabs and, unless ``keep_newlines`` is
    false, newlines are kept. Nothing is masked here: what shows session
    text under ``--redact`` masks it first, with the ``Mask`` it is handed
    (``masked_cut``, ``ui.masking.shown``, the one writer ``inert_output``)."""
    text = _CONTROL.sub(_placeholder, text)
    if not keep_newlines:
        text = text.replace("\n", "\u240a").replace("\t", " ")
    return text


Mask = Callable[[str], str]  # a text with its secrets masked (``privacy.redact.masked_text``), handed down


def masked_cut(text: str, limit: int, mask: Mask | None) -> str:
    """``text`` cut to ``limit`` characters, its secrets masked first when
    ``mask`` is given (the caller's ``--redact``): a secret cut short
    escapes the patterns that would find it whole."""
    return (text if mask is None else mask(text))[:limit]


def controls_inert(text: str) -> str:
    """``text`` with its controls as placeholders, as ``inert`` makes them,
    but no secret masked: for text already rendered (HTML, JSON) by what
    masked the session's strings in it before rendering them."""
    return _CONTROL.sub(_placeholder, text)


def mark_undecodable(text: str) -> str:
    """``text`` with only its undecodable bytes as placeholders (``<9B>``): valid UTF-8, e.g. for JSON."""
    return UNDECODABLE.sub(_placeholder, text)


def inert_line(text: object) -> str:
    """``text`` (any value, e.g. a role or tool name read from a file) as one inert line."""
    return inert(text if isinstance(text, str) else str(text), keep_newlines=False)


def json_escape_invisible(text: str) -> str:
    """JSON text with C1 controls, bidi controls, zero-width and separator
    characters written as ``\\uXXXX`` escapes: the same value, but no byte of
    it acts on a terminal nor hides from whoever reads it."""
    return INVISIBLE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def strip_ansi(text: str) -> str:
    """``text`` without its ANSI CSI sequences (colours, cursor moves): what a
    terminal shows of a tool's output, for a page that cannot render them.
    Every other escape (OSC titles and clipboard writes, C1 controls) is
    left to ``inert``, which shows it."""
    return _ANSI.sub("", text) if "\x1b[" in text else text
