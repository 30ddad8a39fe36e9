"""Write forms, one module per format: how session-tui changes a file so
that the format's own tool still accepts it on resume (docs/formats.md#consequences-for-session-tui).
``edits`` picks the form by ``session.format.name``; a format without one
here is read-only.
"""

from __future__ import annotations

from . import astorlm, chat, claude, codex, copilot, gemini, opencode, pi, qwen, tree
from .base import Form

FORMS: dict[str, Form] = {
    form.name: form
    for form in (
        tree.FORM,
        pi.FORM,
        chat.FORM,
        codex.FORM,
        claude.FORM,
        astorlm.FORM,
        gemini.FORM,
        qwen.FORM,
        copilot.FORM,
        opencode.FORM,
    )
}
