"""What of a record's text the index may keep: its secrets masked (the
privacy room's detector), so that the index's words cannot spell a token
back out, and the kinds it held (the ``secret:`` filter)."""

from __future__ import annotations

from ..privacy.secrets import find_secrets, mark


def masked(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with each secret replaced by its mark, and their kinds (in order, once each)."""
    found = find_secrets(text)
    if not found:
        return text, ()
    out, at = [], 0
    for secret in found:
        out += [text[at : secret.start], mark(secret.kind, secret.value)]
        at = secret.end
    out.append(text[at:])
    return "".join(out), tuple(dict.fromkeys(s.kind for s in found))
