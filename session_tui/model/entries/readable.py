"""How an entry reads to a person, the same in the exports, the detail pane
and the tree's rows: what Claude Code's command tags stand for, a response's
tokens in short form, a long output cut to its first lines.

Claude Code writes what the user ran in the client itself (a slash command,
a ``!`` shell line) as records of tags: ``<local-command-caveat>`` (a note
to the model), ``<command-name>/model</command-name>
<command-message>model</command-message> <command-args>opus</command-args>``
(as a user record, or a ``system`` ``local_command`` one),
``<local-command-stdout>`` (what the command printed), ``<bash-input>`` and
``<bash-stdout>``/``<bash-stderr>``. ``local_command`` reads them back as
the command typed (``/model opus``, ``! ls -1``) and its output. Only a text
made of these tags alone is read so: a prompt that quotes one stays as typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..sanitize import strip_ansi
from ..words import human_tokens
from .tokens import OUT_KEYS, first_count, response_counts
from .view import EntryView

_TAGS = (
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-caveat",
    "local-command-stdout",
    "local-command-stderr",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
)
_TAG = re.compile(r"\s*<(" + "|".join(_TAGS) + r")>(.*?)</\1>\s*", re.S)
_OUTPUTS = (("local-command-stdout", "local-command-stderr", False), ("bash-stdout", "bash-stderr", True))
_VIEW_MARK = re.compile(r"\[(?:local_command|sidechain)\] ")  # what a Claude view puts before a record's text


@dataclass(frozen=True)
class LocalCommand:
    """What a record of command tags stands for.

    ``kind`` is ``"command"`` (``text`` the command as typed: ``/model
    opus``, or ``! ls -1`` for a shell line), ``"output"`` (``text`` what it
    printed, ANSI colours dropped; ``error`` its stderr) or ``"caveat"``
    (``text`` Claude Code's note to the model that a command was run)."""

    kind: str
    text: str
    error: str = ""
    shell: bool = False  # a ``!`` shell line or its output, not a slash command
    contents: str = ""  # a command's expanded prompt, where the record holds it (``<command-contents>``)

    @property
    def line(self) -> str:
        """One line for a row: the command, ``⎿`` and the output's first line, or the caveat."""
        if self.kind == "command":
            return self.text
        if self.kind == "caveat":
            return "(caveat: a command run in Claude Code itself, not sent as a request)"
        first = next((line.strip() for line in (self.text or self.error).splitlines() if line.strip()), "")
        return f"⎿ {first}" if first else "⎿ (no output)"


def _tags(text: str) -> dict[str, str] | None:
    """Tag name → its text when ``text`` is nothing but known tags, else None."""
    if "<" not in text[:64]:
        return None
    found: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _TAG.match(text, position)
        if match is None:
            return None
        found.setdefault(match.group(1), match.group(2))
        position = match.end()
    return found or None


def local_command(text: str) -> LocalCommand | None:
    """The command a record of Claude Code's command tags stands for, or None
    when ``text`` is anything else (or holds anything beside the tags)."""
    text = _VIEW_MARK.sub("", text, count=2) if text.startswith("[") else text
    tags = _tags(text)
    if tags is None:
        return None
    if "command-name" in tags:
        name = " ".join(tags["command-name"].split())
        if name and not name.startswith("/"):
            name = "/" + name  # older clients wrote ``init`` for ``/init``
        typed = " ".join(part for part in (name, tags.get("command-args", "").strip()) if part)
        return LocalCommand("command", typed, contents=tags.get("command-contents", "").strip())
    if "bash-input" in tags:
        return LocalCommand("command", f"! {tags['bash-input'].strip()}", shell=True)
    if "local-command-caveat" in tags:
        return LocalCommand("caveat", tags["local-command-caveat"].strip())
    for out, err, shell in (
        ("local-command-stdout", "local-command-stderr", False),
        ("bash-stdout", "bash-stderr", True),
    ):
        if out in tags or err in tags:
            return LocalCommand(
                "output",
                strip_ansi(tags.get(out, "")).strip("\n"),
                error=strip_ansi(tags.get(err, "")).strip("\n"),
                shell=shell,
            )
    return None  # only a command-message or command-args: nothing to show as a command


def command_of(view: EntryView) -> LocalCommand | None:
    """``local_command`` of a user or system entry's text (results, calls and
    the model's text are never commands)."""
    if view.role not in ("user", "system") or view.result_for is not None or view.tool_calls:
        return None
    return local_command(view.text)


def added_by_client(record: Mapping[str, Any], view: EntryView) -> bool:
    """A user message the client wrote, not the person: Claude Code marks
    its own (a caveat, a skill's expanded prompt, /context's table) ``isMeta``."""
    return view.role == "user" and record.get("isMeta") is True


def readable_text(view: EntryView) -> str:
    """An entry's text as it reads: a command record as the command typed and
    what it printed (a caveat as its note), any other text as it is."""
    command = command_of(view)
    if command is None:
        return view.text
    if command.kind == "output":
        return "\n".join(part for part in (command.text, command.error) if part) or "(no output)"
    if command.kind == "command" and command.contents:
        return f"{command.text}\n\n{command.contents}"
    return command.text


# -- tokens ---------------------------------------------------------------------------


def response_usage(usages: Iterable[tuple[str | None, Mapping[str, Any]]]) -> dict[str, int]:
    """The tokens of the responses that (step, usage) pairs record (usage as
    ``model.session.usage.entry_tokens`` gives it), each response counted
    once as the session's count does: of the entries of one step, the one
    with the highest output; entries without a step each on their own.
    Each usage is read by ``model.entries.tokens.response_counts``: input is
    the uncached input, as every screen says it. Keys: input, output,
    cache_read, cache_write."""
    steps: dict[str, Mapping[str, Any]] = {}
    alone: list[Mapping[str, Any]] = []
    for step, usage in usages:
        if step is None:
            alone.append(usage)
        elif step not in steps or first_count(usage, OUT_KEYS) > first_count(steps[step], OUT_KEYS):
            steps[step] = usage
    total = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
    for usage in (*steps.values(), *alone):
        for key, count in zip(total, response_counts(usage), strict=True):
            total[key] += count
    return total


def tokens_line(usage: Mapping[str, int]) -> str:
    """``in 25.4k · out 13 · cache read 11.5k · cache write 13.8k`` of a
    ``response_usage`` (each count as its format reports it); empty when
    it counts nothing."""
    if not (usage.get("input") or usage.get("output")):
        return ""
    parts = [f"in {human_tokens(usage.get('input', 0))}", f"out {human_tokens(usage.get('output', 0))}"]
    for key, words in (("cache_read", "cache read"), ("cache_write", "cache write")):
        if usage.get(key):
            parts.append(f"{words} {human_tokens(usage[key])}")
    return " · ".join(parts)


# -- long outputs ---------------------------------------------------------------------


def first_lines(text: str, count: int, chars: int | None = None) -> tuple[str, int]:
    """The first ``count`` lines of ``text`` (and at most ``chars``
    characters of them, cut at a line's end where one is near) and how many
    lines follow what is kept."""
    lines = text.split("\n")
    head = "\n".join(lines[:count])
    if chars is not None and len(head) > chars:
        end = head.rfind("\n", 0, chars)
        head = head[: end if end > chars // 2 else chars]
    if len(head) >= len(text):
        return text, 0
    return head, text.count("\n", len(head)) + (0 if text[len(head)] == "\n" else 1)
