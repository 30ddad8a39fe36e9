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

import os
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..model.entries.readable import added_by_client, command_of
from ..model.entries.tokens import tokens_text
from ..model.entries.view import model_named, parse_time, typed_prompt
from ..model.reading import json_text
from ..model.sanitize import inert, json_escape_invisible
from ..model.session.context import context_items, resume_items
from ..model.session.problems import find_problems
from ..model.session.session import Session
from ..model.session.usage import entry_tokens, session_tokens
from ..model.words import human_seconds, plural
from .choices import EXPORT_TARGETS
from .export_markdown import markdown
from .export_render import Section, html_page

if TYPE_CHECKING:  # pragma: no cover
    from ..model.privacy.redact import Redactor

TARGETS = EXPORT_TARGETS
#: the field marking, in a JSON context, a message the client adds on resume (no real message has it)
ADDED_BY = "_added_by"


def export(
    session: Session,
    to: str,
    leaf: int | None = None,
    *,
    context: bool = False,
    redact: Redactor | None = None,
    stuck_after: float | None = None,
) -> str:
    """The path root → ``leaf`` (default: the active leaf), or with
    ``context`` the messages the model would be sent at it, as ``to``
    (one of TARGETS). With ``redact``, each secret in them is replaced by
    its mark (``redact.count`` says how many were). ``stuck_after``: the
    user's setting, for the page's problems (None: the model's default)."""
    record = session.record if redact is None else (lambda entry: redact.value(session.record(entry)))
    leaf = session.active_leaf() if leaf is None else leaf
    items = context_items(session, leaf) if context and leaf >= 0 else []
    path = session.tree.path_to(leaf) if leaf >= 0 and not context else []
    if to == "json":
        if context:  # what the client sends on resume; its own additions carry ADDED_BY
            messages = [
                {**sent.message, ADDED_BY: sent.added_by} if sent.added_by else sent.message
                for sent in resume_items(session, leaf)
            ]
            return _json(messages if redact is None else redact.value(messages))
        return _json([record(entry) for entry in path])
    if leaf < 0:
        what = "empty session"
    elif context:
        what = f"context at line {session.line_of(leaf)}: {plural(len(items), 'message', 'messages')}"
        model = session.format.resume_model(session, items)
        what += f", as sent to {model}" if model else ""
    else:
        which = "active branch" if leaf == session.active_leaf() else "branch"
        what = f"{which} to line {session.line_of(leaf)}: {plural(len(path), 'entry', 'entries')}"
    # one section per entry: context messages rebuilt from one entry (a Codex compaction's history) share it
    entries = [entry for n, (entry, _) in enumerate(items) if not n or items[n - 1][0] != entry] if context else path
    name = os.path.basename(session.path) if redact is None else redact.text(os.path.basename(session.path))
    heading = f"{name} · {session.format.name} · {what}"
    records = [record(entry) for entry in entries]  # read (and redacted) once
    sections = []
    for entry, rec in zip(entries, records, strict=True):
        view = session.format.view(rec)
        usage = entry_tokens(session, entry, view) if view.result_for is None else None
        sections.append(Section(session.line_of(entry), view, usage, command_of(view), added_by_client(rec, view)))
    if to == "md":
        return markdown(heading, sections)
    return html_page(heading, _facts(session, records, sections, redact, stuck_after), sections)


def _facts(
    session: Session, records: list[dict], sections: list[Section], redact: Redactor | None, stuck_after: float | None
) -> list[tuple[str, str]]:
    """The page header's facts: title, time span, models, tokens, problems
    (the title redacted as the records are)."""
    facts: list[tuple[str, str]] = []
    named = session.title()
    typed = (typed_prompt(rec, section.view) for rec, section in zip(records, sections, strict=True))
    title = (named if redact is None or named is None else redact.value(named)) or next(
        (prompt for prompt in typed if prompt),
        None,
    )
    title = title or next(
        (
            line
            for section in sections
            if section.view.role == "user" and not section.view.result_for and section.command is None
            for line in section.view.text.splitlines()
            if line.strip()
        ),
        None,
    )
    if title:
        facts.append(("title", title))
    times = [t for section in sections if (t := parse_time(section.view.time)) is not None]
    if times:
        start = datetime.fromtimestamp(min(times), UTC).strftime("%Y-%m-%d %H:%M UTC")
        facts.append(("time", f"{start}, {human_seconds(max(times) - min(times))}"))
    models = list(dict.fromkeys(m for r in records if (m := model_named(r, ("model",)))))
    if models:
        facts.append(("models", ", ".join(models)))
    tokens = tokens_text(session_tokens(session), exact=True)  # (the one count, as every screen says it)
    if tokens:
        facts.append(("tokens", f"{tokens} (every branch, sub-agents included)"))
    problems = find_problems(session, stuck_after=stuck_after)
    kinds = Counter(p.kind.words for p in problems)
    facts.append(("problems", ", ".join(f"{n} × {kind}" for kind, n in kinds.items()) if problems else "none"))
    failed = sum(1 for section in sections if section.view.is_error)
    if failed:
        facts.append(("failed tool results", f"{failed:,}"))
    return facts


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


def run_export(args, redact: bool = False, stuck_after: float | None = None) -> int:
    from ..inert_output import print_rendered
    from ..model.errors import SessionError
    from ..model.sanitize import inert_line
    from ..model.session.session import open_session
    from ..store import Refused
    from ..store.edits import resolve_entry
    from .export import export, save

    redactor = None
    if redact:
        from ..model.privacy.redact import Redactor

        redactor = Redactor()
    try:
        with open_session(args.file, args.format) as session:
            session.resume_model = args.model
            leaf = resolve_entry(session, args.leaf) if args.leaf else None
            text = export(session, args.to, leaf, context=args.context, redact=redactor, stuck_after=stuck_after)
        if args.output is not None:
            save(args.output, text, force=args.force, source=args.file)
    except FileExistsError as exc:
        print(f"session-tui export: refused: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 1
    except (SessionError, Refused) as exc:
        print(f"session-tui export: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"session-tui export: {inert_line(args.output or args.file)}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if redactor is not None:
        print(f"redacted {redactor.count} secret{'s' if redactor.count != 1 else ''}", file=sys.stderr)
    if args.output is None:
        print_rendered(text, end="")  # (its strings masked before it was rendered: not again)
    else:
        print(f"wrote {inert(args.output, keep_newlines=False)}")
    return 0
