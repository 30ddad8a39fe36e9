"""Export a branch of a session, or the context at an entry, as Markdown, a
self-contained HTML page or JSON (``session-tui export``).

Markdown and HTML show each entry through its format's ``view()``: role,
time, text, tool calls with their arguments, results, summaries. Every
string from the session passes through ``inert()`` (no escape sequence
survives), and in HTML through ``html.escape`` as well; the page loads
nothing (inline CSS, no scripts, a CSP that forbids the rest). In Markdown,
session text outside fenced code blocks passes through ``md_text()`` so a
renderer shows it as literal text (no HTML, link, image or heading of its own).
"""

from __future__ import annotations

import html
import os
import re
import tempfile
from typing import TYPE_CHECKING

import orjson

from .model import json_text
from .model.entry_view import EntryView
from .model.records import loads as json_loads
from .model.sanitize import inert, json_escape_invisible
from .model.session import Session

if TYPE_CHECKING:  # pragma: no cover
    from .model.redact import Redactor

TARGETS = ("md", "html", "json")
#: the field marking, in a JSON context, a message the client adds on resume (no real message has it)
ADDED_BY = "_added_by"


def export(
    session: Session, to: str, leaf: int | None = None, *, context: bool = False, redact: Redactor | None = None
) -> str:
    """The path root → ``leaf`` (default: the active leaf), or with
    ``context`` the messages the model would be sent at it, as ``to``
    (one of TARGETS). With ``redact``, each secret in them is replaced by
    its mark (``redact.count`` says how many were)."""
    record = session.record if redact is None else (lambda entry: redact.value(session.record(entry)))
    leaf = session.active_leaf() if leaf is None else leaf
    items = session.context_items(leaf) if context and leaf >= 0 else []
    path = session.tree.path_to(leaf) if leaf >= 0 and not context else []
    if to == "json":
        if context:  # what the client sends on resume; its own additions carry ADDED_BY
            messages = [
                {**sent.message, ADDED_BY: sent.added_by} if sent.added_by else sent.message
                for sent in session.resume_items(leaf)
            ]
            return _json(messages if redact is None else redact.value(messages))
        return _json([record(entry) for entry in path])
    if leaf < 0:
        what = "empty session"
    elif context:
        what = f"context at line {session.line_of(leaf)}: {_count(len(items), 'message', 'messages')}"
        model = session.format.resume_model(session, items)
        what += f", as sent to {model}" if model else ""
    else:
        which = "active branch" if leaf == session.active_leaf() else "branch"
        what = f"{which} to line {session.line_of(leaf)}: {_count(len(path), 'entry', 'entries')}"
    # one section per entry: context messages rebuilt from one entry (a Codex compaction's history) share it
    entries = [entry for n, (entry, _) in enumerate(items) if not n or items[n - 1][0] != entry] if context else path
    heading = f"{os.path.basename(session.path)} · {session.format.name} · {what}"
    sections = [(session.line_of(entry), session.format.view(record(entry))) for entry in entries]
    return (_markdown if to == "md" else _html)(heading, sections)


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def save(path: str, text: str, *, force: bool = False, source: str | None = None) -> None:
    """Write ``text`` to ``path`` through a temp file in the same directory
    and ``os.replace``; an existing ``path`` raises FileExistsError unless
    ``force``, and the session file it was exported from (``source``) always."""
    if source is not None and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
        raise FileExistsError(f"{path}: is the session file itself; never overwritten by its export")
    if not force and os.path.lexists(path):
        raise FileExistsError(f"{path}: already exists; not overwritten (--force overwrites it)")
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


# -- JSON -----------------------------------------------------------------------------


def _json(data: list) -> str:
    """Indented JSON; C1 controls, bidi controls, zero-width and separator
    characters escaped too (orjson escapes the C0 ones): the same value, but
    no byte of it acts on a terminal nor hides from whoever reads it."""
    return json_escape_invisible(json_text.dumps(data, indent=True)) + "\n"


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


def _markdown(heading: str, sections: list[tuple[int, EntryView]]) -> str:
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
_CSS = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; background: #fff; }
h1 { font-size: 1.2rem; }
section { border-left: 4px solid #d0d7de; margin: 1.2rem 0; padding: 0.2rem 0 0.2rem 1rem; }
section.user { border-color: #0969da; } section.assistant { border-color: #1a7f37; }
section.tool { border-color: #8250df; } section.summary { border-color: #bf8700; background: #fff8c5; }
section.system, section.developer { border-color: #57606a; }
h2 { font-size: 1rem; margin: 0; } .meta { color: #57606a; font-size: 0.85rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4rem 0; }
pre.code { background: #f6f8fa; padding: 0.5rem; border-radius: 4px; font-size: 0.85rem; }
.call { font-weight: 600; margin-top: 0.5rem; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; } .meta { color: #8d96a0; }
  pre.code { background: #161b22; } section.summary { background: #2b2111; }
}
"""


def _h(text: str, *, keep_newlines: bool = True) -> str:
    """Session text made inert, then escaped for HTML (attributes included)."""
    return html.escape(inert(text, keep_newlines=keep_newlines), quote=True)


def _html(heading: str, sections: list[tuple[int, EntryView]]) -> str:
    out = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_h(heading, keep_newlines=False)}</title>\n<style>{_CSS}</style>\n</head>\n<body>",
        f"<h1>{_h(heading, keep_newlines=False)}</h1>",
    ]
    for n, (line, view) in enumerate(sections, 1):
        role_class = view.role if view.role in _ROLE_CLASSES else "other"
        out.append(f'<section class="{role_class}">\n<h2>{html.escape(_title(n, view))}</h2>')
        out.append(f'<div class="meta">{html.escape(_meta(line, view))}</div>')
        if view.text.strip():
            css = ' class="code"' if _is_output(view) else ""
            out.append(f"<pre{css}>{_h(view.text)}</pre>")
        for call in view.tool_calls:
            out.append(
                f'<div class="call">→ {_h(call.name, keep_newlines=False)} '
                f'<span class="meta">call {_h(call.id, keep_newlines=False)}</span></div>'
            )
            out.append(f'<pre class="code">{_h(_arguments(call.arguments)[1])}</pre>')
        out.append("</section>")
    if not sections:
        out.append("<p>(no entries)</p>")
    out.append("</body>\n</html>")
    return "\n".join(out) + "\n"
