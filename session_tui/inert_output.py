"""The one writer of what a command prints: every text a verb writes to
stdout or stderr (its report, its JSON, its errors and notices, argparse's
usage lines) has its controls made inert as
:func:`~session_tui.model.sanitize.inert` makes them, so no C0 or C1 control
but newline and tab, no bidi control and no invisible character from a
session reaches a terminal, whichever verb printed it and whether or not it
escaped the string itself.

With ``--redact`` it is handed a mask (``inert_output(mask)``) and masks
each secret in the plain text it writes, before its controls are made
inert: the one place every heading, file name, row and message a verb
prints is masked. What a verb renders (JSON, HTML, an export) it writes
with :func:`print_rendered`, unmasked here: the verb masked the strings
inside before rendering them, and masking the rendered text again would
read its escapes as text. The verbs still make their own strings inert
and mask what they cut before cutting it; this is the floor under them all.
The terminal UI does not write through it: Textual draws on the real
stream (``sys.__stderr__``) from widgets that are inert already.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from .model.sanitize import controls_inert


class InertWriter:
    """A text stream that writes ``inert(text)`` to the stream it wraps,
    its secrets masked first when it was given a ``mask``."""

    def __init__(self, stream: TextIO, mask: Callable[[str], str] | None = None) -> None:
        self.wrapped = stream
        self.mask = mask

    def write(self, text: str) -> int:
        self.wrapped.write(controls_inert(text if self.mask is None or not text else self.mask(text)))
        return len(text)

    def write_rendered(self, text: str) -> int:
        """``text`` rendered by what masked the strings in it (JSON, HTML):
        its controls inert, nothing masked again."""
        self.wrapped.write(controls_inert(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.wrapped.flush()

    def fileno(self) -> int:
        return self.wrapped.fileno()

    def isatty(self) -> bool:
        return self.wrapped.isatty()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # encoding, reconfigure, … of the stream itself
        return getattr(self.wrapped, name)


def print_rendered(text: str, file: TextIO | None = None, end: str = "\n") -> None:
    """Print ``text`` that a verb rendered (JSON, HTML, an export) from
    strings it masked itself: the one writer does not mask it again."""
    stream = sys.stdout if file is None else file
    getattr(stream, "write_rendered", stream.write)(text + end)


@contextmanager
def inert_output(mask: Callable[[str], str] | None = None) -> Iterator[None]:
    """stdout and stderr written through :class:`InertWriter` while it
    holds, ``mask`` masking what they write (``--redact``); within another
    ``inert_output``, in its place."""
    before = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (
        cast(TextIO, InertWriter(stream.wrapped if isinstance(stream, InertWriter) else stream, mask))
        for stream in before
    )
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = before
