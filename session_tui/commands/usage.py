"""`session-tui usage [PATH|DB_URL ...] [--by session|machine|user|project|day|model] [--json]`:
tokens and cost over many sessions, each response counted once, every
branch, a sub-agent's responses counted with its session (a sub-agent
transcript whose session is not among the files is a row of its own).

A team archive (``DB_URL``) is counted from the usage each pushing machine
worked out for its files with the same code (``model/archive/usage.py``):
the figures of a machine's files are those ``usage`` gives on that machine."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from ..inert_output import print_rendered
from ..model.catalog.known import default_paths
from ..model.catalog.session_info import is_subagent, parent_of
from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.reading.source import is_url
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.usage.by import BY, Counted, file_user, ordered, report, tally, this_machine, work_out
from ..model.usage.ledger import Ledger
from ..model.usage.prices import priced_by
from ..model.words import human_tokens
from .options import json_option, redact_option
from .paths import listed_sessions, say_path_problems

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def run_usage(paths: list[str], by: str, as_json: bool, redact: bool = False) -> int:
    from ..model.reading.archived import is_archive_url

    archives = [p for p in paths if is_archive_url(p)]
    local = [p for p in paths if not is_archive_url(p)]
    roots = local or ([] if archives else default_paths())
    if not roots and not archives:
        print("session-tui usage: no session folders found; give a PATH", file=sys.stderr)
        return 2
    if say_path_problems("usage", local):
        return 2
    try:
        listed = listed_sessions(roots) if roots else []
        counted, skipped = _local(listed, by)
        files, extra = len(listed), Extra()
        for url in archives:
            files += _archived(url, counted, extra)
    except (SessionError, OSError) as exc:
        print(f"session-tui usage: {inert_line(exc)}", file=sys.stderr)
        return 2
    skipped += extra.unreadable
    rows = tally(counted, by)
    shown, total = ordered(rows)
    if as_json:
        out = report(by, shown, total, files, skipped)
        if extra.unsummarised:
            out["unsummarised"] = extra.unsummarised
        if extra.other_prices:
            out["priced_by_pushers"] = sorted(extra.other_prices)
        if redact:  # (a path or a model's name may hold one)
            from ..model.privacy.redact import Redactor

            out = Redactor().value(out)
        print_rendered(json_escape_invisible(json_text.dumps(out)))
        return 0
    mask = _mask(redact)
    width = min(60, max([len(by)] + [len(k) for k, _ in shown]))
    print(f"{by:<{width}}  {'cost':>10}  {'input':>7}  {'cache rd':>8}  {'cache wr':>8}  {'output':>7}  responses")
    for key, usage in [*shown, ("total", total)]:
        cost = "?" if usage.cost_usd is None else f"${usage.cost_usd:,.2f}"
        said = inert_line(key if mask is None else mask(key))  # (masked whole, then cut)
        said = said if len(said) <= width else "…" + said[-(width - 1) :]
        print(
            f"{said:<{width}}  {cost:>10}  {human_tokens(usage.input):>7}  {human_tokens(usage.cache_read):>8}  "
            f"{human_tokens(usage.cache_write):>8}  {human_tokens(usage.output):>7}  {usage.responses}"
        )
    if total.unpriced_models:
        print(f"not priced (unknown to the table): {', '.join(map(inert_line, total.unpriced_models))}")
    silent = len(rows) - len(shown)
    tail = (f" · {silent} record no usage" if silent and by == "session" else "") + (
        f" · {skipped} unreadable" if skipped else ""
    )
    if extra.unsummarised:
        tail += f" · {extra.unsummarised} archived without usage (pushed by an older session-tui: push again)"
    if extra.other_prices:
        tail += f" · some archived files priced by {', '.join(map(inert_line, sorted(extra.other_prices)))}"
    print(f"{files} files · priced by {priced_by()}{tail}")
    return 0


@dataclass
class Extra:
    """What the archive adds to say: files without a usage summary, and other price tables."""

    unreadable: int = 0
    unsummarised: int = 0
    other_prices: set[str] = field(default_factory=set)


def _local(listed: list[tuple[str, int, int]], by: str) -> tuple[list[Counted], int]:
    """Each session under the listed files, its sub-agents rolled up; and how many could not be read."""
    present = {path: (size, mtime_ns) for path, size, mtime_ns in listed}
    ledger = Ledger()
    counted: list[Counted] = []
    skipped = 0
    machine = this_machine()
    for path, size, mtime_ns in listed:
        owner = parent_of(path)
        if owner is not None and owner in present:
            continue  # (counted with its session)
        try:
            found = ledger.usage(path, size, mtime_ns, partial(work_out, path, None))
            parts = [found]
            if not is_subagent(path):
                for sub, stamp in _subagents(path, present).items():
                    parts.append(ledger.usage(sub, *stamp, partial(work_out, sub, found.project)))
        except (SessionError, OSError, ValueError):
            skipped += 1
            continue
        user = file_user(path) if by == "user" else ""
        counted.append(Counted(path, machine, user, found.project, parts))
    ledger.save()
    return counted, skipped


def _archived(url: str, counted: list[Counted], extra: Extra) -> int:
    """Add the sessions of the archive at ``url`` (or its one session ``DB_URL#MACHINE/PATH``); its files."""
    from ..model.archive.usage import archive_usage

    found = archive_usage(url)
    counted.extend(found.counted)
    extra.unreadable += found.unreadable
    extra.unsummarised += found.unsummarised
    extra.other_prices |= {p for p in found.priced_by if p != priced_by()}
    return found.files


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


def _mask(redact: bool) -> Callable[[str], str] | None:
    if not redact:
        return None
    from ..model.privacy.redact import masked_text

    return masked_text


def add_parser(commands: Commands) -> None:
    usage = commands.add_parser(
        "usage",
        help="tokens and cost of many sessions, by session, machine, user, project, day or model",
        description="Tokens (uncached input, cache read, cache write, output) and cost of every session under "
        "the paths (default: the known session folders), each response counted once, every branch, sub-agents "
        "rolled up, priced per response by the genai-prices table (an unknown model is listed, never guessed). "
        "A team archive (DB_URL) is counted from the usage each machine worked out for its files when it pushed "
        "them: --by machine over the whole archive reads one small row per file.",
    )
    usage.add_argument(
        "paths", nargs="*", default=[], metavar="PATH", help="session files or folders, or a team archive (DB_URL)"
    )
    usage.add_argument(
        "--by",
        choices=BY,
        default="session",
        help="group by session, machine (here: this host's name), user (the OS user owning the file), project "
        "(the recorded working directory), day (the pushing machine's local day) or model",
    )
    json_option(usage, "{rows: [{key, input, output, …, cost_usd}], total}")
    redact_option(usage)


def run(args: argparse.Namespace, settings: Settings) -> int:
    return run_usage(args.paths, args.by, args.json, redact=settings.redact)
