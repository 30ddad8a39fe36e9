"""Secrets masked where session text is shown: everywhere when the app was
started with ``--redact`` (``serve --redact``), and in the detail pane while
its toggle is on. Each secret shows as its mark,
``[REDACTED:<kind>:<first 8 hex of its sha256>]``; what is written to files
is never masked (an edit writes what the file holds)."""

from __future__ import annotations

from typing import Any


def redacting(app: Any) -> bool:
    """Whether the app masks every secret it shows (started with ``--redact``)."""
    return bool(getattr(app, "redact", False))


def masked(text: str, on: bool = True) -> str:
    """``text`` with each secret replaced by its mark (when ``on``)."""
    if not on or not text:
        return text
    from ..model.privacy.redact import Redactor

    return Redactor().text(text)


def masked_record(record: dict[str, Any], on: bool = True) -> dict[str, Any]:
    """A copy of ``record`` with the secrets in its strings replaced (when ``on``)."""
    if not on:
        return record
    from ..model.privacy.redact import Redactor

    return Redactor().value(record)
