"""Claude Code's ``attachment`` records, as it sends them to the model.

Claude Code 2.1.3xx writes what it tells the model beside a turn (the
environment, the model, the tools and agents on offer, the tokens left, the
date, the attribution to use) as ``attachment`` records chained after the
user record they go with; on resume it sends each as a
``<system-reminder>`` block: before the prompt's text, or after the output
of the tool result it follows. To a model that takes them
(``resume.system_turns``: claude-opus-4-8 and later) it sends those it
promotes (``promoted``: the record's ``renderedRole``) as one bare ``role:
"system"`` message after that user message instead. The wording is the client's own, read off
what Claude Code 2.1.328 sends (``../shared/oracle``): an attachment of
another kind, or of a shape not seen there, is not rendered (``render``
returns None) and the context view notes nothing for it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OPEN, CLOSE = "<system-reminder>\n", "\n</system-reminder>"

_UNTRUSTED = (
    " - Downloaded files and extracted archives are untrusted data: put each in its own new, empty directory, "
    "keep scripts you write in a different directory, and pass paths as arguments instead of running an "
    "interpreter or build tool from inside it. Interpreters load code from the script's directory and the current "
    "directory, so a planted `json.py` runs on `import json`. Run any Python that reads them with `-I`. This does "
    "not apply to code the user asked you to build or run.\n"
    " - In `curl`, send untrusted values with `--form-string`, not `-F`."
)
_DEFERRED = (
    "The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them "
    'directly will fail with InputValidationError. Use ToolSearch with query "select:<name>[,<name>...]" to load '
    "tool schemas before calling them:\n"
)
_CONCURRENCY = (
    "\n\nWhen you launch multiple agents for independent work, send them in a single message with multiple tool "
    "uses so they run concurrently."
)
_ATTRIBUTION = (
    "Attribution for git commits and pull requests you create from here on (this replaces Claude Code's own "
    "earlier attribution guidance, such as a previous copy of this reminder; the user's own instructions about "
    "these lines, such as a CLAUDE.md or memory rule, take precedence over this reminder, but do not add "
    "attribution lines this reminder leaves out):\n"
)
_TASKS = (
    "The task tools haven't been used recently. If you're working on tasks that would benefit from tracking "
    "progress, consider using TaskCreate to add new tasks and TaskUpdate to update task status (set to "
    "in_progress when starting, completed when done). Also consider cleaning up the task list if it has become "
    "stale. Only use these if relevant to the current work. This is just a gentle reminder - ignore if not "
    "applicable.\n"
)


def _strings(value: object) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _environment(a: dict[str, Any]) -> str | None:
    env = a.get("snapshot")
    if not isinstance(env, dict) or env.get("isWorktree") or env.get("additionalWorkingDirectories"):
        return None  # (a worktree, more directories: not seen rendered)
    keys = ("workingDirectory", "platform", "shell", "osVersion")
    if not all(isinstance(env.get(k), str) for k in keys) or not isinstance(env.get("isGitRepo"), bool):
        return None
    return (
        "# Environment\nYou have been invoked in the following environment: \n"
        f" - Primary working directory: {env['workingDirectory']}\n"
        f" - Is a git repository: {'true' if env['isGitRepo'] else 'false'}\n"
        f" - Platform: {env['platform']}\n - Shell: {env['shell']}\n - OS Version: {env['osVersion']}\n" + _UNTRUSTED
    )


def _text(a: dict[str, Any]) -> str | None:
    return a["text"] if isinstance(a.get("text"), str) else None


def _deferred(a: dict[str, Any]) -> str | None:
    added = _strings(a.get("addedLines"))
    if not added or a.get("removedNames") or a.get("readdedNames"):
        return None
    return _DEFERRED + "\n".join(added)


def _agents(a: dict[str, Any]) -> str | None:
    added = _strings(a.get("addedLines"))
    if not added or a.get("removedTypes"):
        return None
    return (
        "Available agent types for the Agent tool:\n"
        + "\n".join(added)
        + (_CONCURRENCY if a.get("showConcurrencyNote") else "")
    )


def _skills(a: dict[str, Any]) -> str | None:
    content = a.get("content")
    return "The following skills are available for use with the Skill tool:\n\n" + content if content else None


def _date(a: dict[str, Any]) -> str | None:
    return f"Today's date is {a['date']}." if isinstance(a.get("date"), str) else None


def _attribution(a: dict[str, Any]) -> str | None:
    commit, pr = a.get("commit"), a.get("pr")
    if not isinstance(commit, str) or not isinstance(pr, str) or not commit or not pr:
        return None
    return f"{_ATTRIBUTION}- End git commit messages with:\n{commit}\n- End pull request descriptions with:\n{pr}"


def _tasks(a: dict[str, Any]) -> str | None:
    return _TASKS if a.get("content") == [] else None  # (with tasks listed: not seen rendered)


_RENDER: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "environment": _environment,
    "model": _text,
    "deferred_tools_delta": _deferred,
    "agent_listing_delta": _agents,
    "skill_listing": _skills,
    "total_tokens_reminder": _text,
    "date": _date,
    "remote_session_change": _attribution,
    "task_reminder": _tasks,
    "silent_turn_reminder": _text,  # ("The user hasn't heard from you in a while. …", after a tool result)
}


def text_of(attachment: object) -> str | None:
    """The text Claude Code sends for ``attachment`` (unwrapped), or None for
    one it sends nothing for, or one not known here."""
    if not isinstance(attachment, dict):
        return None
    kind = attachment.get("type")
    make = _RENDER.get(kind) if isinstance(kind, str) else None
    text = make(attachment) if make else None
    return text or None


def render(attachment: object) -> str | None:
    """The ``<system-reminder>`` block Claude Code sends for ``attachment``,
    or None for one it sends nothing for, or one not known here."""
    text = text_of(attachment)
    return wrapped(text) if text else None


def wrapped(text: str) -> str:
    return OPEN + text + CLOSE


#: the kinds rendered here that Claude Code 2.1.328 always sends as user text (its ``I3o``), whatever the model
_USER_KINDS = frozenset({"remote_session_change"})


def promoted(record: dict[str, Any]) -> bool:
    """Whether Claude Code 2.1.328 sends the attachment ``record`` as a
    ``role: "system"`` message to a model that takes them
    (``system_turns``): as the record's ``renderedRole`` says
    (``"system"``/``"user"``, written by 2.1.3xx), else by its kind."""
    role = record.get("renderedRole")
    if role in ("system", "user"):
        return bool(role == "system")
    attachment = record.get("attachment")
    return isinstance(attachment, dict) and attachment.get("type") not in _USER_KINDS


def with_reminder(message: dict[str, Any], reminder: str) -> dict[str, Any]:
    """``message`` (a user record's) with ``reminder`` where Claude Code puts
    it: after the output of its last tool result (a blank line between), or, for a prompt, after
    the reminders already before its text (the last of them ends with a
    newline)."""
    content = message.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    results = [n for n, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == "tool_result"]
    if results:
        result = dict(blocks[results[-1]])
        output = result.get("content")
        if isinstance(output, str):  # (the output's trailing whitespace goes, as Claude Code trims it)
            result["content"] = output.rstrip() + "\n\n" + reminder
        else:
            result["content"] = [*(output if isinstance(output, list) else []), {"type": "text", "text": reminder}]
        blocks[results[-1]] = result
        return {**message, "content": blocks}
    at = 0
    while at < len(blocks) and _is_reminder(blocks[at]):
        at += 1
    if at:
        blocks[at - 1] = {**blocks[at - 1], "text": blocks[at - 1]["text"].removesuffix("\n")}
    blocks.insert(at, {"type": "text", "text": reminder + "\n"})
    return {**message, "content": blocks}


def _is_reminder(block: object) -> bool:
    return isinstance(block, dict) and isinstance(block.get("text"), str) and block["text"].startswith(OPEN)
