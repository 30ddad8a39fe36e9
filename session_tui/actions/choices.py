"""The names the command line offers as choices, kept apart from the modules
they name: building the parser must not import every format reader (a
``search`` answers in tens of milliseconds, imports included)."""

from __future__ import annotations

# model.formats.FORMATS, checked by a test
FORMAT_NAMES = ("astorlm", "chat", "claude", "codex", "copilot", "gemini", "opencode", "pi", "qwen", "tree")
EXPORT_TARGETS = ("md", "html", "json")
