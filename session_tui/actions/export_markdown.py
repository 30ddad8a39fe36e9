"""A branch or a context as Markdown: each step a heading with its facts,
its text escaped so nothing in it becomes markup, code and outputs in
fences longer than any backtick run they hold."""

from __future__ import annotations

import re

from ..model.entries.readable import readable_text
from ..model.entries.view import call_summary
from ..model.sanitize import inert, strip_ansi
from .export_render import Section, is_output, meta_line, split_arguments, step_title, step_tokens

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


def markdown(heading: str, sections: list[Section]) -> str:
    out = [f"# {md_text(inert(heading, keep_newlines=False))}"]
    tokens = step_tokens(sections)
    calls: dict[str, str] = {}  # call id -> its tool and what it ran
    for n, section in enumerate(sections, 1):
        view, command = section.view, section.command
        out.append(f"## {step_title(n, view, md_text)}")
        out.append(meta_line(section, md_text, tokens.get(n - 1, ""), calls.get(view.result_for or "", "")))
        text = inert(strip_ansi(readable_text(view)) if command else view.text)
        if command is not None and command.kind == "command":
            out.append(quoted(md_text(f"❯ {text}")))
        elif command is not None and command.kind == "caveat":
            out.append(quoted(md_text(f"(caveat) {text}")))
        elif text.strip():
            out.append(fenced(text) if is_output(view) or command is not None else quoted(md_text(text)))
        for call in view.tool_calls:
            name, call_id = (md_text(inert(s, keep_newlines=False)) for s in (call.name, call.id))
            summary = call_summary(call.name, call.arguments)
            calls[call.id] = f"{call.name} {summary}".strip()
            out.append(f"**→ {name}** · call {call_id}")
            language, arguments = split_arguments(call.arguments)
            out.append(fenced(inert(arguments), language))
    if not sections:
        out.append("(no entries)")
    return "\n\n".join(out) + "\n"
