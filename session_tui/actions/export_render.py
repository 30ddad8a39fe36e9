"""Entries as a self-contained HTML page (see ``export``), and what the
Markdown document (``export_markdown``) shares with it: a ``Section`` per
entry, its heading, facts and tokens.

Every string from the session passes through ``inert()``, and in HTML
through ``html.escape`` as well; in Markdown, session text outside fenced
code blocks passes through ``md_text()`` so a renderer shows it as literal
text."""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

from ..model.entries.readable import LocalCommand, first_lines, response_usage, tokens_line
from ..model.entries.view import EntryView, call_summary, parse_time
from ..model.reading import json_text
from ..model.reading.records import loads as json_loads
from ..model.sanitize import inert, strip_ansi

#: a tool's output longer than this many lines shows its first FOLDED_HEAD lines, the rest folded
LONG_OUTPUT = 20
FOLDED_HEAD = 10
#: ... or longer than this many characters: its first FOLDED_CHARS at most
LONG_CHARS = 3000
FOLDED_CHARS = 1200


@dataclass(frozen=True)
class Section:
    """One entry to export: its line, its view, the tokens it records
    (``model.session.usage.entry_tokens``) and, for a record of Claude
    Code's command tags, the command it stands for."""

    line: int
    view: EntryView
    usage: Mapping[str, Any] | None = None
    command: LocalCommand | None = None
    added: bool = False  # a user message the client wrote, not the person (Claude Code's ``isMeta``)


def split_arguments(arguments: str) -> tuple[str, str]:
    """(language, text) of tool-call arguments: JSON pretty-printed when it is JSON."""
    try:
        return "json", json_text.dumps(json_loads(arguments), indent=True)
    except orjson.JSONDecodeError:
        return "", arguments


def _plain(text: str) -> str:
    return text


def meta_line(section: Section, escape=_plain, tokens: str = "", call: str = "") -> str:
    """The line under a section's heading: line, id, the response's tokens,
    the call a result answers (``call``: its tool and what it ran); session
    strings through ``escape``."""
    view = section.view
    parts = [f"line {section.line}"]
    if view.id:
        parts.append(f"id {escape(inert(str(view.id), keep_newlines=False))}")
    if view.result_for:
        failed = "✗ failed " if view.is_error else ""
        parts.append(f"{failed}result for {escape(inert(view.result_for, keep_newlines=False))}")
        if call:
            parts.append(escape(inert(call, keep_newlines=False)))
    if tokens:
        parts.append(tokens)
    if view.tokens_before is not None:
        parts.append(f"{view.tokens_before:,} tokens before")
    if view.tokens_after is not None:
        parts.append(f"{view.tokens_after:,} tokens after")
    return " · ".join(parts)


def step_title(n: int, view: EntryView, escape=_plain) -> str:
    title = f"{n}. {escape(inert(str(view.role), keep_newlines=False))}"
    return f"{title} · {escape(inert(str(view.time), keep_newlines=False))}" if view.time else title


def is_output(view: EntryView) -> bool:
    return view.result_for is not None or view.role == "tool"


def step_tokens(sections: list[Section]) -> dict[int, str]:
    """Index of the section that ends a model response → that response's
    tokens in short form: a response written over several entries (one
    step) is counted once, at its last entry."""
    last: dict[str, int] = {}
    usages: dict[str | int, list[tuple[str | None, Mapping[str, Any]]]] = {}
    for n, section in enumerate(sections):
        step = section.view.step
        key: str | int = n if step is None else step
        if step is not None:
            last[step] = n
        if section.usage:
            usages.setdefault(key, []).append((step, section.usage))
    out: dict[int, str] = {}
    for key, found in usages.items():
        text = tokens_line(response_usage(found))
        if text:
            out[key if isinstance(key, int) else last[key]] = text
    return out


# -- HTML -----------------------------------------------------------------------------
_ROLE_CLASSES = ("system", "developer", "user", "assistant", "tool", "summary")
_THINKING = ("reasoning", "thinking")
_CSS = """
body { font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 62rem; margin: 2rem auto;
       padding: 0 1rem; color: #1f2328; background: #fff; }
header { border-bottom: 1px solid #d0d7de; margin-bottom: 1.5rem; }
h1 { font-size: 1.35rem; margin: 0 0 0.3rem; } header dl { display: grid; grid-template-columns: max-content 1fr;
       gap: 0.1rem 1rem; font-size: 0.9rem; } header dt { color: #57606a; } header dd { margin: 0; }
section { border-left: 4px solid #d0d7de; margin: 1.2rem 0; padding: 0.2rem 0 0.2rem 1rem; }
section.user { border-color: #0969da; } section.assistant { border-color: #1a7f37; }
section.command { border-color: #0969da; border-left-style: dotted; }
section.summary { border-color: #9a6700; background: #fff8c5; }
section.system, section.developer, section.other, section.tool { border-color: #57606a; }
h2 { font-size: 1rem; margin: 0; } .meta { color: #57606a; font-size: 0.85rem; font-weight: normal; }
.tokens { color: #57606a; font-size: 0.8rem; font-weight: normal; float: right; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4rem 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.3rem 0; background: #f6f8fa; padding: 0.5rem;
      border-radius: 4px; font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.typed { font: 0.95rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 600;
         margin: 0.4rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.call { margin: 0.6rem 0 0.2rem; } .call > summary, .result > summary { cursor: pointer; }
.tool-name { font-weight: 600; } .summary-line { font-family: ui-monospace, Menlo, Consolas, monospace; }
.result { margin: 0.2rem 0 0.6rem 1.2rem; } .result.failed > summary { color: #cf222e; font-weight: 600; }
.result.failed pre { border-left: 3px solid #cf222e; } .result.missing { color: #cf222e; }
details.more > summary { color: #57606a; font-size: 0.85rem; cursor: pointer; }
details.more > pre { margin-top: 0; }
details.thinking, details.aside { color: #57606a; font-style: italic; margin: 0.3rem 0; font-size: 0.9rem; }
details.thinking > summary, details.aside > summary { cursor: pointer; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } .meta, .tokens, header dt, details.thinking { color: #9198a1; }
  pre { background: #161b22; } section.summary { background: #2b2111; }
  .result.failed > summary { color: #ff7b72; } .result.failed pre { border-color: #ff7b72; }
}
"""


def _h(text: str, *, keep_newlines: bool = True) -> str:
    """Session text made inert, then escaped for HTML (attributes included);
    ANSI colour and cursor sequences are dropped (no ␛ boxes)."""
    return html.escape(inert(strip_ansi(text), keep_newlines=keep_newlines), quote=True)


def _when(value: object) -> str:
    """A time as ``2026-12-02 15:48:15`` (UTC, as the header says), or as recorded when it is no time."""
    seconds = parse_time(value)
    if seconds is None:
        return _h(str(value), keep_newlines=False)
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S")


def _thinking(view: EntryView) -> bool:
    return view.role in _THINKING or view.kind in _THINKING


def _aside(section: Section) -> bool:
    """A record beside the conversation's turns (an attachment, an event, a turn's settings)."""
    view = section.view
    return view.result_for is None and section.command is None and view.role not in (*_ROLE_CLASSES, *_THINKING)


def _responses(sections: list[Section]) -> list[list[Section]]:
    """The entries grouped as read: one group per model response (its
    thinking, text and calls, recorded on one line or several: one ``step``,
    or in a format without steps the lines up to a result or a prompt), the
    results of its calls with it; a command run in the client (its caveat,
    the command, its output) one group; every other entry a group of its own."""
    groups: list[list[Section]] = []
    calls: set[str] = set()  # the calls of the open response
    step: str | None = None
    open_response = False
    answered = False
    command: set[str] = set()  # what the open command group holds: "caveat", "command", "output"
    for section in sections:
        view = section.view
        model_side = view.role == "assistant" or _thinking(view)
        if groups and _aside(section):  # an attachment, an event: folded where it was written, no new section
            groups[-1].append(section)
            continue
        if view.result_for is not None and open_response and view.result_for in calls:
            groups[-1].append(section)
            answered = True
            continue
        if (
            section.added and section.command is None and command
        ):  # what a command adds for the model (a skill's prompt, /context's table)
            groups[-1].append(section)
            continue
        if section.command is not None:
            kind = section.command.kind
            joins = bool(command) and kind != "caveat" and "output" not in command and kind not in command
            if joins:
                groups[-1].append(section)
                command.add(kind)
            else:
                groups.append([section])
                command = {kind}
            open_response = False
            continue
        command = set()
        same = (
            open_response
            and model_side
            and ((view.step is not None and view.step == step) or (view.step is None and step is None and not answered))
        )
        if same:
            groups[-1].append(section)
        else:
            groups.append([section])
            open_response, answered, calls = model_side, False, set()
        if model_side:
            step = view.step
            calls.update(call.id for call in view.tool_calls)
    return groups


def _lines(count: int) -> str:
    return f"{count:,} line{'s' if count != 1 else ''}"


def _output_html(text: str) -> str:
    """A tool's or command's output: all of it when short, else its first
    lines and the rest folded."""
    long = text.count("\n") >= LONG_OUTPUT or len(text) > LONG_CHARS
    head, more = first_lines(text, FOLDED_HEAD, FOLDED_CHARS) if long else (text, 0)
    if not more:
        return f"<pre>{_h(text)}</pre>"
    rest = text[len(head) :].removeprefix("\n")
    return (
        f"<pre>{_h(head)}</pre>"
        f'<details class="more"><summary>… {more:,} more line{"s" if more != 1 else ""}</summary>'
        f"<pre>{_h(rest)}</pre></details>"
    )


def _added_html(view: EntryView) -> str:
    """A user message the client wrote itself: folded, its first line showing."""
    first = next((line.strip() for line in view.text.splitlines() if line.strip()), "")
    preview = first if len(first) <= 90 else first[:89] + "…"
    summary = f"added by the client, not typed · {_h(preview, keep_newlines=False)}"
    return f'<details class="aside"><summary>{summary}</summary><div class="prose">{_h(view.text)}</div></details>'


def _result_html(view: EntryView, name: str, what: str = "") -> str:
    failed = " failed" if view.is_error else ""
    mark = "✗ failed" if view.is_error else "←"
    lines = view.text.count("\n") + 1 if view.text else 0
    size = _lines(lines) if lines else "no output"
    ran = f' <span class="summary-line">{_h(what, keep_newlines=False)}</span>' if what else ""
    return (
        f'<details class="result{failed}" open>'
        f"<summary>{mark} {_h(name, keep_newlines=False)} result{ran} · {size}</summary>"
        f"{_output_html(view.text) if view.text else ''}</details>"
    )


def _asides_html(asides: list[Section]) -> str:
    """Records beside the turns (attachments, events), folded into one line."""
    kinds = list(dict.fromkeys(s.view.role for s in asides))
    what = ", ".join(kinds) if len(asides) == 1 else f"{len(asides)} records: {', '.join(kinds)}"
    body = "".join(f"<pre>{_h(s.view.text)}</pre>" for s in asides)
    return f'<details class="aside"><summary>{_h(what, keep_newlines=False)}</summary>{body}</details>'


def _command_html(section: Section) -> str:
    command = section.command
    assert command is not None
    if command.kind == "caveat":  # Claude Code's note to the model: dim and folded
        return f'<details class="aside"><summary>caveat</summary><div class="prose">{_h(command.text)}</div></details>'
    if command.kind == "command":
        contents = f'<div class="prose">{_h(command.contents)}</div>' if command.contents else ""
        return f'<div class="typed">❯ {_h(command.text)}</div>{contents}'
    text = "\n".join(part for part in (command.text, command.error) if part)
    return _output_html(text) if text else '<div class="meta">(no output)</div>'


def _thinking_html(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    preview = first if len(first) <= 90 else first[:89] + "…"
    summary = f"thinking · {_h(preview, keep_newlines=False)}" if preview else "thinking"
    return f'<details class="thinking"><summary>{summary}</summary><div class="prose">{_h(text)}</div></details>'


def _description(arguments: str, summary: str) -> str:
    """What the model said a call is for (Claude Code's ``description``),
    escaped and followed by `` · ``, unless the summary already says it."""
    try:
        value = json_loads(arguments) if arguments.lstrip().startswith("{") else None
    except ValueError:  # not JSON, or nested deeper than the reader goes
        return ""
    said = value.get("description") if isinstance(value, dict) else None
    if not isinstance(said, str) or not said.strip() or said.strip() in summary:
        return ""
    said = " ".join(said.split())
    return _h(said if len(said) <= 80 else said[:79] + "…", keep_newlines=False) + " · "


def _group_html(n: int, group: list[Section], calls: Mapping[str, tuple[str, str]]) -> list[str]:
    """One section of the page; ``calls``: every call id of the page → its tool and what it ran."""
    first_section, first = group[0], group[0].view
    if first_section.command is not None:
        role = "command" if any(s.command and s.command.kind == "command" for s in group) else first.role
        role_class = "command"
    else:
        role = "assistant" if first.role == "assistant" or _thinking(first) else first.role
        role_class = role if role in _ROLE_CLASSES else "other"
    results = {s.view.result_for: s.view for s in group[1:] if s.view.result_for is not None}
    lines = f"line {first_section.line}" if len(group) == 1 else f"lines {first_section.line}–{group[-1].line}"
    when = f" · {_when(first.time)}" if first.time else ""
    usages = [(s.view.step, s.usage) for s in group if s.usage and s.view.result_for is None]
    tokens = tokens_line(response_usage(usages)) if usages else ""
    spent = f'<span class="tokens">{tokens}</span>' if tokens else ""
    out = [
        f'<section class="{role_class}">',
        f'<h2>{n}. {_h(role, keep_newlines=False)} <span class="meta">{lines}{when}</span>{spent}</h2>',
    ]
    if first.kind == "summary" and (first.tokens_before is not None):
        out.append(f'<div class="meta">{first.tokens_before:,} tokens before</div>')
    shown_calls: set[str] = set()
    asides: list[Section] = []
    for section in group:
        view = section.view
        if _aside(section) and section is not first_section:
            asides.append(section)
            continue
        if asides:
            out.append(_asides_html(asides))
            asides = []
        if view.result_for is not None and view.result_for in results and view.result_for in shown_calls:
            continue  # shown under its call
        if section.command is not None:
            out.append(_command_html(section))
            continue
        if view.result_for is not None:  # a result whose call is elsewhere
            name, what = calls.get(view.result_for, (f"call {view.result_for}", ""))
            out.append(_result_html(view, name, what))
            continue
        if section.added and view.text.strip():
            out.append(_added_html(view))
            continue
        if view.text.strip():
            if _thinking(view) or view.text.startswith(("[thinking]", "[reasoning]")):
                out.append(_thinking_html(view.text.removeprefix("[thinking] ").removeprefix("[reasoning] ")))
            else:
                out.append(f'<div class="prose">{_h(view.text)}</div>')
        for call in view.tool_calls:
            language, arguments = split_arguments(call.arguments)
            what = call_summary(call.name, call.arguments)
            said = _description(call.arguments, what)
            out.append(
                f'<details class="call"><summary><span class="tool-name">{_h(call.name, keep_newlines=False)}</span> '
                f'<span class="summary-line">{_h(what, keep_newlines=False)}</span> '
                f'<span class="meta">{said}call {_h(call.id, keep_newlines=False)}</span></summary>'
                f"<pre>{_h(arguments)}</pre></details>"
            )
            answer = results.get(call.id)
            if answer is not None:
                out.append(_result_html(answer, call.name))
                shown_calls.add(call.id)
            else:
                out.append('<div class="result missing">⚠ no result in the file</div>')
    if asides:
        out.append(_asides_html(asides))
    out.append("</section>")
    return out


def html_page(heading: str, facts: list[tuple[str, str]], sections: list[Section]) -> str:
    title = next((value for key, value in facts if key == "title"), heading)
    out = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_h(title, keep_newlines=False)}</title>\n<style>{_CSS}</style>\n</head>\n<body>",
        f"<header><h1>{_h(title, keep_newlines=False)}</h1>",
        f'<div class="meta">{_h(heading, keep_newlines=False)}</div><dl>',
    ]
    out.extend(f"<dt>{_h(key)}</dt><dd>{_h(value, keep_newlines=False)}</dd>" for key, value in facts if key != "title")
    out.append("</dl></header>")
    calls = {
        call.id: (call.name, call_summary(call.name, call.arguments)) for s in sections for call in s.view.tool_calls
    }
    for n, group in enumerate(_responses(sections), 1):
        out.extend(_group_html(n, group, calls))
    if not sections:
        out.append("<p>(no entries)</p>")
    out.append("</body>\n</html>")
    return "\n".join(out) + "\n"
