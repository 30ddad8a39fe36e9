"""Write forms, one module per format: how session-tui changes a file so
that the format's own tool still accepts it on resume (formats.md §10).
``edits`` picks the form by ``session.format.name``; a format without one
here is read-only.

``claude`` has no form yet: it goes in ``claude.py`` (a ``Form`` subclass,
``FORM = ...``) and into ``FORMS`` below.
"""

from __future__ import annotations

from . import astorlm, chat, codex, pi, tree
from .base import Form

FORMS: dict[str, Form] = {form.name: form for form in (tree.FORM, pi.FORM, chat.FORM, codex.FORM, astorlm.FORM)}
