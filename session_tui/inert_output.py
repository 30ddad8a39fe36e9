"""The one writer of what a command prints: every text a verb writes to
stdout or stderr (its report, its JSON, its errors and notices, argparse's
usage lines) has its controls made inert as
:func:`~session_tui.model.sanitize.inert` makes them, so no C0 or C1 control
but newline and tab, no bidi control and no invisible character from a
session reaches a terminal, whichever verb printed it and whether or not it
escaped the string itself.

The verbs still make their own strings inert (a JSON writer escapes what it
must, a report marks a name's controls where they are) and mask secrets
under ``--redact`` before they cut or render them (masking rendered HTML or
JSON again would read its escapes as text); this is the floor under them all.
The terminal UI does not write through it: Textual draws on the real
stream (``sys.__stderr__``) from widgets that are inert already.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from .model.sanitize import controls_inert


class InertWriter:
    """A text stream that writes ``inert(text)`` to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: str) -> int:
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


@contextmanager
def inert_output() -> Iterator[None]:
    """stdout and stderr written through :class:`InertWriter` while it holds."""
    before = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (cast(TextIO, InertWriter(stream)) for stream in before)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = before
