"""`session-tui check`: a headless linter over the session model.

One report per session file, as text for people or as one JSON object per
line (the contract in docs/guide/repairs.md, "session-tui check"). Exit status: 0 no problems, 1 problems
found, 2 a path unreadable or not a session.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from ..inert_output import print_rendered
from ..model.errors import SessionError
from ..model.formats.opencode.database import DB_NAME, session_ids
from ..model.reading import json_text
from ..model.reading.source import is_url
from ..model.resume.verdicts import Verdict, verdict_on
from ..model.sanitize import inert, json_escape_invisible, mark_undecodable
from ..model.session.context import failed_results, resume_items, tool_issues
from ..model.session.live_state import live_state
from ..model.session.problems import ERROR, ProblemKind, find_notes, find_problems
from ..model.session.session import Session, open_session
from ..model.usage.totals import Usage, session_usage, spending, spent_text, usage_text
from ..model.words import plural
from .options import format_option, json_option, redact_option, stuck_after_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2
SESSION_SUFFIX = ".jsonl"


def session_files(path: str) -> Iterator[str]:
    """``path`` itself, or every ``*.jsonl`` under a directory (sorted, not
    following symlinked directories)."""
    if is_url(path):
        from ..model.reading import remote

        try:
            listed = remote.list_sessions(path, SESSION_SUFFIX) if remote.is_folder(path) else None
        except SessionError:
            listed = None  # opening it says what is wrong, in one line
        yield from (item.url for item in listed) if listed is not None else [path]
        return
    if not os.path.isdir(path):
        yield from _database_sessions(path) if os.path.basename(path) == DB_NAME else [path]
        return
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SESSION_SUFFIX):
                yield os.path.join(root, name)
            elif name == DB_NAME:
                yield from _database_sessions(os.path.join(root, name))


def _database_sessions(db: str) -> list[str]:
    """Each session of an opencode database (``db#ID``); the database itself
    when it cannot be read as one (opening it says why, in one line)."""
    try:
        return [f"{db}#{sid}" for sid in session_ids(db)] or [db]
    except SessionError:
        return [db]


@dataclass
class Report:
    path: str
    format: str
    entries: int
    leaves: int
    branch_points: int
    summaries: int
    active_leaf: str | None
    active_leaf_line: int | None
    dangling_tool_calls: list[dict]
    problems: list[dict]
    tool_errors: int = 0  # failed tool results on the active path, as the client marks them
    # for people only (not in the JSON contract)
    context_messages: int = 0
    state_words: str = ""  # what the agent is doing (model.session.live_state): running bash 0:12, idle 25 min, …
    #: the same for the JSON: {"state", "since", "tool", "inferred"} (model.session.live_state.LiveState.as_json)
    agent: dict | None = None
    #: the last dry run's verdict, while the file is unchanged since (in the JSON only when there is one)
    dry_run: Verdict | None = None
    notes: list[tuple[int, str]] = field(default_factory=list)
    sidecar: tuple[str, list[str]] | None = None
    usage: str = ""
    title: str | None = None
    origin: str | None = None
    secrets: list[dict] | None = None  # with --secrets: [{line, entry, kind, preview}] (then in the JSON too)
    spent: Usage | None = None  # tokens and cost, sub-agents rolled up (the JSON's "usage")
    subagents_spent: Usage | None = None  # for people: the sub-agents' part of it

    CONTRACT = (
        "path",
        "format",
        "entries",
        "leaves",
        "branch_points",
        "summaries",
        "active_leaf",
        "active_leaf_line",
        "dangling_tool_calls",
        "problems",
        "tool_errors",
    )

    def as_json(self) -> dict:
        data = {key: getattr(self, key) for key in self.CONTRACT}
        if self.agent is not None:
            data["agent"] = self.agent
        if self.spent is not None:
            data["usage"] = self.spent.as_json()
        if self.secrets is not None:
            data["secrets"] = self.secrets
        if self.dry_run is not None:
            verdict = self.dry_run
            data["dry_run"] = {
                "client": verdict.client,
                "client_version": verdict.version,
                "accepted": verdict.accepted,
                "message": verdict.message,
            }
        return data


def report(session: Session, path: str, for_people: bool = True, stuck_after: float | None = None) -> Report:
    """The check of ``session``; ``for_people``: with what only the text
    output shows (the context's size: it reads the whole context, which the
    JSON contract does not need)."""
    leaf = session.shown_leaf()
    active_id = None
    if leaf >= 0:
        active_id = session.format.entry_id(session.record(leaf))
    dangling, _ = tool_issues(session, light=True)  # a one-shot look: only the tool records are read
    live = live_state(session, dangling=dangling, stuck_after=stuck_after)
    running = live.running()  # calls still running are not dangling (yet)
    return Report(
        path=path,
        format=session.format.name,
        entries=session.entries,
        leaves=session.tree.leaves,
        branch_points=session.tree.branch_points,
        summaries=session.tree.summaries,
        active_leaf=active_id,
        active_leaf_line=session.line_of(leaf) if leaf >= 0 else None,
        dangling_tool_calls=[
            {"call_id": d.call_id, "line": session.line_of(d.entry)} for d in dangling if d.entry not in running
        ],
        problems=[p.as_json() for p in find_problems(session, light=True, live=live)],
        state_words=live.words(),
        agent=live.as_json(),
        dry_run=None if session.remote else verdict_on(session.path),
        tool_errors=len(failed_results(session, leaf)),
        context_messages=len(resume_items(session)) if for_people else 0,  # as the TUI and export count it
        notes=find_notes(session),
        sidecar=_sidecar_summary(session),
        usage=_span_and_tokens(session, (spent := spending(session)).total),
        spent=spent.total,
        subagents_spent=spent.subagents_total,
        title=session.title(),
        origin=session.origin(),
    )


def _span_and_tokens(session: Session, spent: Usage) -> str:
    """The span of the session's times, and its tokens where no response
    records them in the form the cost line shows (that line says them then)."""
    return usage_text(session_usage(session), tokens=not spent.responses)


def _sidecar_summary(session: Session) -> tuple[str, list[str]] | None:
    found = session.sidecar()
    return (os.path.basename(found[0]), list(found[1])) if found else None


def to_json_line(rep: Report, redact: bool = False) -> str:
    """One JSON line; C1 controls, bidi controls and invisible characters
    escaped too, so no byte of it acts on a terminal or hides. A path's
    bytes that are not UTF-8 are written as their placeholders (``<9B>``,
    as in the text output): JSON text holds only UTF-8. ``redact``: each
    secret in its strings (a path, a model's name, a problem's text) masked."""
    data = rep.as_json()
    data["path"] = mark_undecodable(rep.path)
    if redact:
        from ..model.privacy.redact import Redactor

        data = Redactor().value(data)
    return json_escape_invisible(json_text.dumps(data))


def to_text(rep: Report) -> str:
    out = [inert(rep.path, keep_newlines=False)]
    if rep.title:
        out.append(f"  title: {inert(rep.title, keep_newlines=False)}")
    if rep.origin:
        out.append(f"  forked from {inert(rep.origin, keep_newlines=False)}")
    out.append(
        "  "
        + " · ".join(
            [
                f"format {rep.format}",
                plural(rep.entries, "entry", "entries"),
                plural(rep.leaves, "leaf", "leaves"),
                plural(rep.branch_points, "branch point"),
                plural(rep.summaries, "summary", "summaries"),
            ]
        )
    )
    if rep.active_leaf_line is None:
        out.append("  empty session")
    else:
        leaf = inert(rep.active_leaf, keep_newlines=False) if rep.active_leaf else "(no ids in this format)"
        out.append(
            f"  active leaf {leaf} (line {rep.active_leaf_line}); "
            f"context at leaf: {plural(rep.context_messages, 'message')}"
            + (f"; {plural(rep.tool_errors, 'failed tool result')}" if rep.tool_errors else "")
        )
    if rep.usage:
        out.append(f"  {rep.usage}")
    if rep.spent is not None and rep.spent.responses:
        out.append(f"  {spent_text(rep.spent)}")
    if rep.subagents_spent is not None:
        out.append(f"    of which sub-agents: {spent_text(rep.subagents_spent)}")
    if rep.state_words:
        out.append(f"  agent: {inert(rep.state_words, keep_newlines=False)}")
    if rep.dry_run is not None:
        out.append(f"  resume: {inert(rep.dry_run.words(), keep_newlines=False)}")
    if rep.sidecar:
        name, keys = rep.sidecar
        out.append(
            f"  sidecar {inert(name, keep_newlines=False)}: "
            + inert(", ".join(keys[:12]) or "(empty)", keep_newlines=False)
        )
    if rep.problems:
        out.append(f"  {plural(len(rep.problems), 'problem')}:")
        for p in rep.problems:
            message = inert(p["message"], keep_newlines=False)
            out.append(f"    line {p['line']}: {p['severity']}: {ProblemKind(p['kind']).words}: {message}")
    else:
        out.append("  no problems")
    for line, text in rep.notes:
        out.append(f"    note, line {line}: {inert(text, keep_newlines=False)}")
    if rep.secrets:
        out.append(f"  {plural(len(rep.secrets), 'secret')}:")
        for found in rep.secrets:
            entry = "not an entry" if found["entry"] is None else f"entry {found['entry']}"
            out.append(f"    line {found['line']}: {entry}: {found['kind']}: {inert(found['preview'])}")
    elif rep.secrets is not None:
        out.append("  no secrets")
    return "\n".join(out)


def run_check(
    paths: list[str],
    *,
    as_json: bool = False,
    format: str | None = None,
    secrets: bool = False,
    redact: bool = False,
    stuck_after: float | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    status = EXIT_OK
    first = True
    for given in paths:
        found = False
        for path in session_files(given):
            found = True
            try:
                with open_session(path, format) as session:
                    rep = report(session, path, for_people=not as_json, stuck_after=stuck_after)
                    if secrets:
                        from ..model.privacy.secret_scan import session_secrets

                        rep.secrets = [item.as_json() for item in session_secrets(session)]
            except SessionError as exc:
                print(f"session-tui check: {inert(str(exc), keep_newlines=False)}", file=err)
                status = EXIT_ERROR
                continue
            if as_json:
                print_rendered(to_json_line(rep, redact), out)
            else:
                if not first:
                    print(file=out)
                print(to_text(rep), file=out)
            first = False
            if (any(p["severity"] == ERROR for p in rep.problems) or rep.secrets) and status == EXIT_OK:
                status = EXIT_PROBLEMS
        if not found:
            print(f"session-tui check: {inert(given, keep_newlines=False)}: no session files (*.jsonl) in it", file=err)
            status = EXIT_ERROR
    return status


def add_parser(commands: Commands) -> None:
    check = commands.add_parser(
        "check",
        help="lint session files: structure, branches, problems",
        description="Report format, entries, leaves, branch points, summaries, the active leaf and "
        "every problem of each session file. Exit status: 0 no problems, 1 problems found, "
        "2 a path unreadable or not a session.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="session files or directories (searched for *.jsonl)")
    json_option(check, "one JSON object per file, one per line")
    format_option(check)
    redact_option(check)
    check.add_argument(
        "--secrets",
        action="store_true",
        help="also list the secrets in each file (API keys, tokens, private keys, passwords): line, entry, kind "
        "and a masked preview; any makes the exit status 1",
    )
    stuck_after_option(check)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_check(
        args.paths,
        as_json=args.json,
        format=args.format,
        secrets=args.secrets,
        redact=settings.redact,
        stuck_after=settings.stuck_after,
    )
