"""Entries as a Markdown document or a self-contained HTML page (see ``export``).

Every string from the session passes through ``inert()``, and in HTML
through ``html.escape`` as well; in Markdown, session text outside fenced
code blocks passes through ``md_text()`` so a renderer shows it as literal
text."""

from __future__ import annotations

import html
import re

import orjson

from ..model.entries.view import EntryView, call_summary
from ..model.reading import json_text
from ..model.reading.records import loads as json_loads
from ..model.sanitize import inert, strip_ansi


def _arguments(arguments: str) -> tuple[str, str]:
    """(language, text) of tool-call arguments: JSON pretty-printed when it is JSON."""
    try:
        return "json", json_text.dumps(json_loads(arguments), indent=True)
    except orjson.JSONDecodeError:
        return "", arguments


def _plain(text: str) -> str:
    return text


def _meta(line: int, view: EntryView, escape=_plain) -> str:
    """The line under a section's heading: line, id, tokens, the call a result
    answers; session strings through ``escape``."""
    parts = [f"line {line}"]
    if view.id:
        parts.append(f"id {escape(inert(str(view.id), keep_newlines=False))}")
    if view.result_for:
        parts.append(f"result for {escape(inert(view.result_for, keep_newlines=False))}")
    if view.tokens_before is not None:
        parts.append(f"{view.tokens_before:,} tokens before")
    if view.tokens_after is not None:
        parts.append(f"{view.tokens_after:,} tokens after")
    return " · ".join(parts)


def _title(n: int, view: EntryView, escape=_plain) -> str:
    title = f"{n}. {escape(inert(str(view.role), keep_newlines=False))}"
    return f"{title} · {escape(inert(str(view.time), keep_newlines=False))}" if view.time else title


def _is_output(view: EntryView) -> bool:
    return view.result_for is not None or view.role == "tool"


# -- Markdown -------------------------------------------------------------------------
_BACKTICKS = re.compile(r"`+")


def fenced(text: str, language: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run in ``text``."""
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(text)), default=0))
    return f"{fence}{language}\n{text}\n{fence}"


# What Markdown (CommonMark, GFM, common extensions) gives a meaning inline:
# backslash escapes, code spans, emphasis (``_`` only where it can open or
# close: not between letters or digits), strikethrough, link and image
# brackets (so no link, image or reference definition), headings' ``#``,
# tables, attribute lists; ``<``, ``>`` and ``&`` become entities (no raw
# HTML, autolink, entity or nested quote).
_MD_SPECIAL = re.compile(r"[\\`*~\[\]#|{}<>&]|(?<![^\W_])_|_(?![^\W_])")
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_LINE_START = re.compile(r"[-+=]|\d+(?=[.)])")  # list item, thematic break, setext underline, ordered item


def _md_char(match: re.Match) -> str:
    char = match.group()
    return _MD_ENTITIES.get(char) or "\\" + char


def md_text(text: str) -> str:
    """Session text as Markdown that renders as that literal text: special
    characters backslash-escaped or entities, a line's leading ``-``, ``+``,
    ``=``, ``1.`` or ``1)`` escaped, and its indentation made of ``&nbsp;``
    (it would otherwise start a code block, which shows the escapes)."""
    lines = []
    for line in text.split("\n"):
        body = line.lstrip(" \t")
        indent = line[: len(line) - len(body)].replace("\t", "    ")
        body = _MD_SPECIAL.sub(_md_char, body)
        start = _MD_LINE_START.match(body)
        if start:
            end = start.end()
            body = f"\\{body}" if not body[0].isdigit() else f"{body[:end]}\\{body[end:]}"
        lines.append("&nbsp;" * len(indent) + body)
    return "\n".join(lines)


def quoted(text: str) -> str:
    """``text`` as a block quote (pass it through ``md_text`` first to have it
    render literally); whatever it opens (a fence, a heading) ends with the quote."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def markdown(heading: str, sections: list[tuple[int, EntryView]]) -> str:
    out = [f"# {md_text(inert(heading, keep_newlines=False))}"]
    for n, (line, view) in enumerate(sections, 1):
        out.append(f"## {_title(n, view, md_text)}")
        out.append(_meta(line, view, md_text))
        text = inert(view.text)
        if text.strip():
            out.append(fenced(text) if _is_output(view) else quoted(md_text(text)))
        for call in view.tool_calls:
            name, call_id = (md_text(inert(s, keep_newlines=False)) for s in (call.name, call.id))
            out.append(f"**→ {name}** · call {call_id}")
            language, arguments = _arguments(call.arguments)
            out.append(fenced(inert(arguments), language))
    if not sections:
        out.append("(no entries)")
    return "\n\n".join(out) + "\n"


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
section.summary { border-color: #9a6700; background: #fff8c5; }
section.system, section.developer, section.other, section.tool { border-color: #57606a; }
h2 { font-size: 1rem; margin: 0; } .meta { color: #57606a; font-size: 0.85rem; font-weight: normal; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4rem 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.3rem 0; background: #f6f8fa; padding: 0.5rem;
      border-radius: 4px; font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.call { margin: 0.6rem 0 0.2rem; } .call > summary, .result > summary { cursor: pointer; }
.tool-name { font-weight: 600; } .summary-line { font-family: ui-monospace, Menlo, Consolas, monospace; }
.result { margin: 0.2rem 0 0.6rem 1.2rem; } .result.failed > summary { color: #cf222e; font-weight: 600; }
.result.failed pre { border-left: 3px solid #cf222e; } .result.missing { color: #cf222e; }
details.thinking, details.aside { color: #57606a; font-style: italic; margin: 0.3rem 0; font-size: 0.9rem; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } .meta, header dt, details.thinking { color: #9198a1; }
  pre { background: #161b22; } section.summary { background: #2b2111; }
  .result.failed > summary { color: #ff7b72; } .result.failed pre { border-color: #ff7b72; }
}
"""


def _h(text: str, *, keep_newlines: bool = True) -> str:
    """Session text made inert, then escaped for HTML (attributes included);
    ANSI colour and cursor sequences are dropped (no ␛ boxes)."""
    return html.escape(inert(strip_ansi(text), keep_newlines=keep_newlines), quote=True)


def _thinking(view: EntryView) -> bool:
    return view.role in _THINKING or view.kind in _THINKING


def _aside(view: EntryView) -> bool:
    """A record beside the conversation's turns (an attachment, an event, a turn's settings)."""
    return view.result_for is None and view.role not in (*_ROLE_CLASSES, *_THINKING)


def _responses(sections: list[tuple[int, EntryView]]) -> list[list[tuple[int, EntryView]]]:
    """The entries grouped as read: one group per model response (its
    thinking, text and calls, recorded on one line or several: one ``step``,
    or in a format without steps the lines up to a result or a prompt), the
    results of its calls with it; every other entry a group of its own."""
    groups: list[list[tuple[int, EntryView]]] = []
    calls: set[str] = set()  # the calls of the open response
    step: str | None = None
    open_response = False
    answered = False
    for line, view in sections:
        model_side = view.role == "assistant" or _thinking(view)
        if groups and _aside(view):  # an attachment, an event: folded where it was written, no new section
            groups[-1].append((line, view))
            continue
        if view.result_for is not None and open_response and view.result_for in calls:
            groups[-1].append((line, view))
            answered = True
            continue
        same = (
            open_response
            and model_side
            and ((view.step is not None and view.step == step) or (view.step is None and step is None and not answered))
        )
        if same:
            groups[-1].append((line, view))
        else:
            groups.append([(line, view)])
            open_response, answered, calls = model_side, False, set()
        if model_side:
            step = view.step
            calls.update(call.id for call in view.tool_calls)
    return groups


def _result_html(view: EntryView, name: str) -> str:
    failed = " failed" if view.is_error else ""
    mark = "✗ failed" if view.is_error else "←"
    lines = view.text.count("\n") + 1 if view.text else 0
    size = f"{lines:,} line{'s' if lines != 1 else ''}" if lines else "no output"
    return (
        f'<details class="result{failed}" {"open" if view.is_error or lines <= 12 else ""}>'
        f"<summary>{mark} {_h(name, keep_newlines=False)} result · {size}</summary>"
        f"<pre>{_h(view.text)}</pre></details>"
    )


def _group_html(n: int, group: list[tuple[int, EntryView]]) -> list[str]:
    first_line, first = group[0]
    role = "assistant" if first.role == "assistant" or _thinking(first) else first.role
    role_class = role if role in _ROLE_CLASSES else "other"
    results = {view.result_for: view for _, view in group[1:] if view.result_for is not None}
    lines = f"line {first_line}" if len(group) == 1 else f"lines {first_line}–{group[-1][0]}"
    when = f" · {_h(str(first.time), keep_newlines=False)}" if first.time else ""
    out = [
        f'<section class="{role_class}">',
        f'<h2>{n}. {_h(role, keep_newlines=False)} <span class="meta">{lines}{when}</span></h2>',
    ]
    if first.kind == "summary" and (first.tokens_before is not None):
        out.append(f'<div class="meta">{first.tokens_before:,} tokens before</div>')
    shown_calls: set[str] = set()
    for _, view in group:
        if view.result_for is not None and view.result_for in results and view.result_for in shown_calls:
            continue  # shown under its call
        if _aside(view) and view is not first:
            aside = f"<summary>{_h(view.role, keep_newlines=False)}</summary><pre>{_h(view.text)}</pre>"
            out.append(f'<details class="aside">{aside}</details>')
            continue
        if view.result_for is not None:  # a result whose call is elsewhere
            out.append(_result_html(view, f"call {view.result_for}"))
            continue
        if view.text.strip():
            if _thinking(view) or view.text.startswith(("[thinking]", "[reasoning]")):
                text = view.text.removeprefix("[thinking] ").removeprefix("[reasoning] ")
                folded = f'<summary>thinking</summary><div class="prose">{_h(text)}</div>'
                out.append(f'<details class="thinking">{folded}</details>')
            else:
                out.append(f'<div class="prose">{_h(view.text)}</div>')
        for call in view.tool_calls:
            language, arguments = _arguments(call.arguments)
            out.append(
                f'<details class="call"><summary><span class="tool-name">{_h(call.name, keep_newlines=False)}</span> '
                f'<span class="summary-line">{_h(call_summary(call.name, call.arguments), keep_newlines=False)}</span> '
                f'<span class="meta">call {_h(call.id, keep_newlines=False)}</span></summary>'
                f"<pre>{_h(arguments)}</pre></details>"
            )
            answer = results.get(call.id)
            if answer is not None:
                out.append(_result_html(answer, call.name))
                shown_calls.add(call.id)
            else:
                out.append('<div class="result missing">⚠ no result in the file</div>')
    out.append("</section>")
    return out


def html_page(heading: str, facts: list[tuple[str, str]], sections: list[tuple[int, EntryView]]) -> str:
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
    for n, group in enumerate(_responses(sections), 1):
        out.extend(_group_html(n, group))
    if not sections:
        out.append("<p>(no entries)</p>")
    out.append("</body>\n</html>")
    return "\n".join(out) + "\n"
