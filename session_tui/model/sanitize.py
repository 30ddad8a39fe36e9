"""Make untrusted session text inert before it reaches a terminal."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _placeholder(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀..␟, e.g. ␛ for ESC
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"<{code:02X}>"  # C1 controls such as CSI (0x9B)


def inert(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character (ESC, BEL, C1 CSI, …) replaced
    by a visible placeholder, so no escape sequence can act on a terminal.
    Tabs and, unless ``keep_newlines`` is false, newlines are kept."""
    text = _CONTROL.sub(_placeholder, text)
    if not keep_newlines:
        text = text.replace("\n", "\u240a").replace("\t", " ")
    return text
