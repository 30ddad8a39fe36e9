"""`session-tui usage [PATH ...] [--by session|day|model|project] [--json]`:
tokens and cost over many sessions, each response counted once, every
branch, a sub-agent's responses counted with its session (a sub-agent
transcript whose session is not among the files is a row of its own)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from ..inert_output import print_rendered
from ..model.catalog.known import default_paths
from ..model.catalog.session_info import is_subagent, parent_of
from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.reading.source import is_url
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.session.session import Session, open_session
from ..model.usage.ledger import FileUsage, Ledger, file_usage
from ..model.usage.prices import priced_by
from ..model.usage.totals import Usage
from ..model.words import human_tokens
from .options import json_option, redact_option
from .paths import listed_sessions, say_path_problems

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def run_usage(paths: list[str], by: str, as_json: bool, redact: bool = False) -> int:
    roots = paths or default_paths()
    if not roots:
        print("session-tui usage: no session folders found; give a PATH", file=sys.stderr)
        return 2
    if say_path_problems("usage", paths):
        return 2
    try:
        listed = listed_sessions(roots)
    except (SessionError, OSError) as exc:
        print(f"session-tui usage: {inert_line(exc)}", file=sys.stderr)
        return 2
    present = {path: (size, mtime_ns) for path, size, mtime_ns in listed}
    ledger = Ledger()
    rows: dict[str, Usage] = {}
    skipped = 0
    for path, size, mtime_ns in listed:
        owner = parent_of(path)
        if owner is not None and owner in present:
            continue  # (counted with its session)
        try:
            found = ledger.usage(path, size, mtime_ns, partial(_work_out, path, None))
            parts = [found]
            if not is_subagent(path):
                for sub, stamp in _subagents(path, present).items():
                    parts.append(ledger.usage(sub, *stamp, partial(_work_out, sub, found.project)))
        except (SessionError, OSError, ValueError):
            skipped += 1
            continue
        for part in parts:
            for day, model, usage in part.groups:
                key = {"session": path, "day": day, "model": model, "project": found.project}[by]
                rows.setdefault(key, Usage()).add(usage)
    ledger.save()
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
        if redact:  # (a path or a model's name may hold one)
            from ..model.privacy.redact import Redactor

            out = Redactor().value(out)
        print_rendered(json_escape_invisible(json_text.dumps(out)))
        return 0
    mask = _mask(redact)
    width = min(60, max([len(by)] + [len(k) for k, _ in ordered]))
    print(f"{by:<{width}}  {'cost':>10}  {'input':>7}  {'cache rd':>8}  {'cache wr':>8}  {'output':>7}  responses")
    for key, usage in [*ordered, ("total", total)]:
        cost = "?" if usage.cost_usd is None else f"${usage.cost_usd:,.2f}"
        shown = inert_line(key if mask is None else mask(key))  # (masked whole, then cut)
        shown = shown if len(shown) <= width else "…" + shown[-(width - 1) :]
        print(
            f"{shown:<{width}}  {cost:>10}  {human_tokens(usage.input):>7}  {human_tokens(usage.cache_read):>8}  "
            f"{human_tokens(usage.cache_write):>8}  {human_tokens(usage.output):>7}  {usage.responses}"
        )
    if total.unpriced_models:
        print(f"not priced (unknown to the table): {', '.join(map(inert_line, total.unpriced_models))}")
    silent = len(rows) - len(ordered)
    tail = (f" · {silent} record no usage" if silent and by == "session" else "") + (
        f" · {skipped} unreadable" if skipped else ""
    )
    print(f"{len(listed)} files · priced by {priced_by()}{tail}")
    return 0


def _work_out(path: str, project: str | None) -> FileUsage:
    with open_session(path) as session:
        return file_usage(session, project or _project(session, path))


def _subagents(path: str, present: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """(size, mtime) of each sub-agent transcript beside the session at
    ``path``: listed, or on disk when the session file itself was given (its
    figure is the session's with them, as every screen says it)."""
    import glob

    folder = os.path.join(path.removesuffix(".jsonl"), "subagents", "")
    found = {p: present[p] for p in sorted(present) if p.startswith(folder)}
    if not is_url(path):
        for sub in sorted(glob.glob(glob.escape(folder) + "*.jsonl")):
            if sub not in found:
                try:
                    st = os.stat(sub)
                except OSError:
                    continue
                found[sub] = (st.st_size, st.st_mtime_ns)
    return found


def _project(session: Session, path: str) -> str:
    client = session.format.client
    leaf = session.active_leaf()
    cwd = client.recorded_cwd(session, leaf) if client is not None and leaf >= 0 else None
    return cwd or os.path.dirname(path)


def _mask(redact: bool) -> Callable[[str], str] | None:
    if not redact:
        return None
    from ..model.privacy.redact import masked_text

    return masked_text


def add_parser(commands: Commands) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens and cost of many sessions, by session, day, model or project",
        description="Tokens (uncached input, cache read, cache write, output) and cost of every session under "
        "the paths (default: the known session folders), each response counted once, every branch, sub-agents "
        "rolled up, priced per response by the genai-prices table (an unknown model is listed, never guessed).",
    )
    usage.add_argument("paths", nargs="*", default=[], metavar="PATH", help="session files or folders")
    usage.add_argument("--by", choices=("session", "day", "model", "project"), default="session")
    json_option(usage, "{rows: [{key, input, output, …, cost_usd}], total}")
    redact_option(usage)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_usage(args.paths, args.by, args.json, redact=settings.redact)
