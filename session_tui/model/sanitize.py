"""Make untrusted session text inert before it reaches a terminal."""

from __future__ import annotations

import re

# C0 but tab and newline, DEL, C1; and the bidi controls (ALM, LRM, RLM, the
# embeddings/overrides LRE..RLO and PDF, the isolates LRI..PDI), which reorder
# how a line reads on screen ("Trojan source")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _placeholder(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀..␟, e.g. ␛ for ESC
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"<{code:02X}>"  # C1 controls such as CSI (0x9B)
    return f"<{code:04X}>"  # bidi controls such as RLO (<202E>)


def inert(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character (ESC, BEL, C1 CSI, bidi
    overrides and isolates, …) replaced by a visible placeholder, so no
    escape sequence can act on a terminal nor reorder what is read.
    Tabs and, unless ``keep_newlines`` is false, newlines are kept."""
    text = _CONTROL.sub(_placeholder, text)
    if not keep_newlines:
        text = text.replace("\n", "\u240a").replace("\t", " ")
    return text
