"""Secrets masked where session text is shown: everywhere when the app was
started with ``--redact`` (``serve --redact``), and in the detail pane while
its toggle is on. Each secret shows as its mark,
``[REDACTED:<kind>:<first 8 hex of its sha256>]``; what is written to files
is never masked (an edit writes what the file holds)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model.sanitize import inert

if TYPE_CHECKING:  # pragma: no cover
    from ..model.sanitize import Mask


def redacting(app: Any) -> bool:
    """Whether the app masks every secret it shows (started with ``--redact``)."""
    return bool(getattr(app, "redact", False))


def mask_of(app: Any) -> Mask | None:
    """What masks a text's secrets for the model to cut it after (titles,
    previews) when the app masks everything; None when it does not."""
    if not redacting(app):
        return None
    from ..model.privacy.redact import masked_text

    return masked_text


def inert_shown(app: Any, text: str, keep_newlines: bool = True) -> str:
    """``text`` as the app shows it: its secrets masked when it masks
    everything (``--redact``), then inert (``model.sanitize.inert``)."""
    return inert(masked(text, redacting(app)), keep_newlines=keep_newlines)


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
