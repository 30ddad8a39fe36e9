"""A document's fields as words of their own: each filtered field's value
is written into the indexed text as three characters from the Supplementary
Private Use Area (which no session's text is expected to hold, and which a
hit is checked without), so that the index intersects ``role:tool`` or
``error:`` with the query's words itself instead of the filters thinning
its candidates page after page."""

from __future__ import annotations

import zlib
from functools import lru_cache

BASE = 0xF0000
FIELDS = {"role": 0, "kind": 1, "tool": 2, "error": 3, "format": 4, "secret": 5}


@lru_cache(maxsize=4096)  # (a few values each: worked out once, not for each of a build's documents)
def mark(field: str, value: str) -> str:
    """The three characters standing for ``field`` = ``value``."""
    code = zlib.crc32(value.encode("utf-8", "surrogatepass")) & 0xFFFF
    return chr(BASE + FIELDS[field]) + chr(BASE + 0x100 + (code & 0xFF)) + chr(BASE + 0x200 + (code >> 8))


def marks(role: str, kind: str, tool: str | None, error: bool, format: str, secrets: tuple[str, ...] = ()) -> str:
    """The marks of a document, one per line (added to its indexed text);
    ``secrets``: the kinds of secret it held (``secret:`` any of them, ``""``)."""
    found = [mark("role", role), mark("kind", kind), mark("format", format)]
    found += [mark("secret", kind) for kind in ("", *secrets)] if secrets else []
    if tool:
        found.append(mark("tool", tool))
    if error:
        found.append(mark("error", "1"))
    return "\n".join(found)
