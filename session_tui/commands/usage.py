"""`session-tui usage [PATH ...] [--by session|day|model|project] [--json]`:
tokens and cost over many sessions, each response counted once, every
branch, a sub-agent's responses counted with its session (a sub-agent
transcript whose session is not among the files is a row of its own)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import datetime

from ..model.catalog.cache import list_session_files
from ..model.catalog.known import default_paths
from ..model.catalog.session_info import is_subagent
from ..model.entries.tokens import Response
from ..model.entries.view import parse_time
from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.resume.clients import client_for, recorded_cwd
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.session.session import Session, open_session
from ..model.usage.prices import priced_by
from ..model.usage.totals import Usage, subagent_files, usage_of
from ..model.words import human_tokens


def run_usage(paths: list[str], by: str, as_json: bool) -> int:
    roots = paths or default_paths()
    if not roots:
        print("session-tui usage: no session folders found; give a PATH", file=sys.stderr)
        return 2
    try:
        listed = [path for path, _, _ in list_session_files(roots)]
    except (SessionError, OSError) as exc:
        print(f"session-tui usage: {inert_line(exc)}", file=sys.stderr)
        return 2
    present = set(listed)
    rows: dict[str, Usage] = {}
    skipped = 0
    for path in listed:
        owner = _owner(path)
        if owner in present and owner != path:
            continue  # (counted with its session)
        try:
            with open_session(path) as session:
                for key, fmt, responses in _groups(session, by, path):
                    rows.setdefault(key, Usage()).add(usage_of(responses, fmt))
                    for sub in subagent_files(session):
                        if sub not in present:
                            continue
                        with open_session(sub) as child:
                            for key2, fmt2, more in _groups(child, by, path):
                                rows.setdefault(key2, Usage()).add(usage_of(more, fmt2))
        except (SessionError, OSError, ValueError):
            skipped += 1
    ordered = sorted(((k, u) for k, u in rows.items() if u.responses), key=lambda kv: (-(kv[1].cost_usd or 0), kv[0]))
    total = Usage()
    for _, usage in ordered:
        total.add(usage)
    if as_json:
        out = {
            "by": by,
            "rows": [{"key": key, **usage.as_json(), "responses": usage.responses} for key, usage in ordered],
            "total": {**total.as_json(), "responses": total.responses},
            "files": len(listed),
            "unreadable": skipped,
        }
        print(json_escape_invisible(json_text.dumps(out)))
        return 0
    width = min(60, max([len(by)] + [len(k) for k, _ in ordered]))
    print(f"{by:<{width}}  {'cost':>10}  {'input':>7}  {'cache rd':>8}  {'cache wr':>8}  {'output':>7}  responses")
    for key, usage in [*ordered, ("total", total)]:
        cost = "?" if usage.cost_usd is None else f"${usage.cost_usd:,.2f}"
        shown = inert_line(key)
        shown = shown if len(shown) <= width else "…" + shown[-(width - 1) :]
        print(
            f"{shown:<{width}}  {cost:>10}  {human_tokens(usage.input):>7}  {human_tokens(usage.cache_read):>8}  "
            f"{human_tokens(usage.cache_write):>8}  {human_tokens(usage.output):>7}  {usage.responses}"
        )
    if total.unpriced_models:
        print(f"not priced (unknown to the table): {', '.join(total.unpriced_models)}")
    silent = len(rows) - len(ordered)
    tail = (f" · {silent} record no usage" if silent and by == "session" else "") + (
        f" · {skipped} unreadable" if skipped else ""
    )
    print(f"{len(listed)} files · priced by {priced_by()}{tail}")
    return 0


def _owner(path: str) -> str:
    """The session file a sub-agent transcript belongs to (itself otherwise)."""
    if not is_subagent(path):
        return path
    folder = os.path.dirname(os.path.dirname(path))
    return folder + ".jsonl"


def _groups(session: Session, by: str, path: str) -> list[tuple[str, str, list[Response]]]:
    """The session's responses by the key of ``by``: (key, format, responses)."""
    fmt = session.format.name
    responses = session.format.responses(session)
    key: Callable[[Response], str]
    if by == "session":
        return [(path, fmt, responses)]
    if by == "project":
        return [(_project(session, path), fmt, responses)]
    if by == "model":
        key = lambda r: r.model or "(no model recorded)"  # noqa: E731
    else:
        key = _day
    grouped: dict[str, list[Response]] = {}
    for response in responses:
        grouped.setdefault(key(response), []).append(response)
    return [(k, fmt, rs) for k, rs in grouped.items()]


def _day(response: Response) -> str:
    when = parse_time(response.time)
    return datetime.fromtimestamp(when).astimezone().strftime("%Y-%m-%d") if when is not None else "(no time)"


def _project(session: Session, path: str) -> str:
    client = client_for(session.format.name)
    leaf = session.active_leaf()
    cwd = recorded_cwd(client, session, leaf) if client is not None and leaf >= 0 else None
    return cwd or os.path.dirname(path)
