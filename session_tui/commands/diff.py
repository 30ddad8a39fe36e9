"""`session-tui diff FILE [LEAF_A [LEAF_B]] [--json]`: two branches of a
session side by side from their fork point (``model.session.branches``)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..inert_output import print_rendered
from ..model.entries.view import role_label
from ..model.errors import SessionError
from ..model.reading import json_text
from ..model.sanitize import inert, inert_line
from ..model.session.branches import (
    Comparison,
    Side,
    Step,
    branch_of_leaf,
    branch_path,
    compare,
    default_pair,
    summary,
)
from ..model.session.session import Session, open_session
from ..model.usage.totals import Usage, entries_usage
from .options import format_option, json_option, redact_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands

WIDTH = 100  # the text output fits a terminal this wide
MAX_STEPS = 5_000  # of each side: the alignment costs the product of the two lengths
COLUMN = (WIDTH - 3) // 2


def run_diff(path: str, refs: list[str], as_json: bool, format: str | None = None, *, redact: bool = False) -> int:
    """Print the comparison; 0 done, 1 nothing to compare (one branch), 2
    error. ``redact``: each secret in it replaced by its mark."""
    from ..store import Refused
    from ..store.edits import resolve_entry

    try:
        with open_session(path, format) as session:
            if refs:
                a = branch_of_leaf(session, resolve_entry(session, refs[0]))
                if len(refs) > 1:
                    b = branch_of_leaf(session, resolve_entry(session, refs[1]))
                else:
                    pair = default_pair(session)
                    others = [x for x in (pair or ()) if x.leaf != a.leaf]
                    if not others:
                        return _nothing(path)
                    b = others[0]
            else:
                pair = default_pair(session)
                if pair is None:
                    return _nothing(path)
                a, b = pair
            if a.leaf == b.leaf:
                print(f"session-tui diff: {inert(path, keep_newlines=False)}: the same branch twice", file=sys.stderr)
                return 2
            result = compare(session, a, b, MAX_STEPS)
            if redact:
                result = _redacted(result)
            text = as_json_text(session, result) if as_json else as_text(session, result)
    except (SessionError, Refused) as exc:
        print(f"session-tui diff: {inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 2
    if as_json:
        print_rendered(text, end="")  # (its strings masked before it was rendered)
    else:
        sys.stdout.write(text)
    return 0


def _redacted(result: Comparison) -> Comparison:
    """``result`` with the secrets in its steps' previews and ids masked
    (previews are cut at a secret's start, never through one)."""
    from dataclasses import replace

    from ..model.privacy.redact import Redactor

    redactor = Redactor()

    def side(one: Side) -> Side:
        steps = [
            replace(step, preview=redactor.text(step.preview), id=step.id and redactor.text(step.id))
            for step in one.steps
        ]
        return replace(one, steps=steps)

    return replace(result, a=side(result.a), b=side(result.b))


def _nothing(path: str) -> int:
    print(f"session-tui diff: {inert(path, keep_newlines=False)}: one branch only: nothing to compare", file=sys.stderr)
    return 1


def _ref(session: Session, entry: int) -> str | int:
    """An entry as the user names it: its id, or (formats without ids) its line."""
    record_id = session.format.entry_id(session.record(entry)) if entry >= 0 else None
    return record_id if isinstance(record_id, str) and not session.format.linear else session.line_of(entry)


# -- JSON ---------------------------------------------------------------------------
def as_json_text(session: Session, result: Comparison) -> str:
    fork = result.fork
    data = {
        "fork_point": {
            "id": _ref(session, fork) if fork >= 0 else None,
            "line": session.line_of(fork) if fork >= 0 else None,
        },
        "branches": [_side_json(session, side, fork) for side in (result.a, result.b)],
        "truncated": result.truncated,  # each side cut to its first MAX_STEPS entries
    }
    return json_text.dumps(data) + "\n"


def _spent(session: Session, side: Side, fork: int) -> Usage:
    """The usage of the side's responses after the fork point (every one, not
    only the steps shown)."""
    path = branch_path(session, side.branch)
    after = path.index(fork) + 1 if fork in path else 0
    return entries_usage(session, path[after:])


def _cost_words(spent: Usage) -> str:
    cost = "cost unknown" if spent.cost_usd is None else f"cost ${spent.cost_usd:,.2f}"
    unpriced = f" · not priced: {', '.join(map(inert_line, spent.unpriced_models))}" if spent.unpriced_models else ""
    return f"{cost} · {spent.responses} responses after the fork{unpriced}"


def _side_json(session: Session, side: Side, fork: int) -> dict:
    return {
        "leaf": _ref(session, side.branch.leaf),
        "active": side.branch.active,
        "entries": [
            {"id": s.id, "line": s.line, "role": s.role, "kind": s.kind, "preview": s.preview} for s in side.steps
        ],
        "tokens": {  # (its steps' responses: the session's one count)
            "in": side.tokens.input,
            "out": side.tokens.output,
            "cache_read": side.tokens.cache_read,
            "cache_write": side.tokens.cache_write,
        },
        "usage": _spent(session, side, fork).as_json(),
        "tool_calls": side.tool_calls,
        "errors": side.errors,
        "span_s": side.span_s,
        "ends": side.ends,
    }


# -- text -----------------------------------------------------------------------------
def as_text(session: Session, result: Comparison) -> str:
    out = []
    if result.fork >= 0:
        out.append(f"fork point: line {session.line_of(result.fork)} ({_short(_ref(session, result.fork))})")
    else:
        out.append("fork point: none (the branches share no entry)")
    for name, side in (("A", result.a), ("B", result.b)):
        first, second = summary(session, side)
        out += [f"{name}  {first}", f"   {second}", f"   {_cost_words(_spent(session, side, result.fork))}"]
    out.append("─" * WIDTH)
    out.append(_cells("A", "B"))
    divergence = result.first_divergence
    for k, (i, j, same) in enumerate(result.rows):
        mark = "=" if same else ">" if k == divergence else " "
        left = _cell(result.a.steps[i]) if i is not None else ""
        right = _cell(result.b.steps[j]) if j is not None else ""
        out.append(_cells(left, right, mark))
    out.append("(= the same step on both sides; > the first divergence)")
    if result.truncated:
        out.append(f"(the first {MAX_STEPS:,} steps of each side)")
    return "\n".join(inert(line, keep_newlines=False) for line in out) + "\n"


def _short(ref: str | int) -> str:
    text = str(ref)
    return text if len(text) <= 12 else text[:8] + "…"


def _cell(step: Step) -> str:
    return f"{role_label(step.role):<4} {step.preview}"


def _cells(left: str, right: str, mark: str = " ") -> str:
    def fit(text: str) -> str:
        text = inert(text, keep_newlines=False)
        return text if len(text) <= COLUMN - 1 else text[: COLUMN - 2] + "…"

    return f"{mark}{fit(left):<{COLUMN - 1}} │ {fit(right)}"[:WIDTH]


def add_parser(commands: Commands) -> None:
    diff = commands.add_parser(
        "diff",
        help="two branches side by side from their fork point",
        description="Compare two branches of a session from the entry where they part: steps aligned, the same "
        "ones marked, a summary per side. Without LEAF_A/LEAF_B: the active leaf against the most "
        "recently written other leaf; with LEAF_A only: that one against the active (or the newest "
        "other) leaf. A leaf is an entry id, or a line number for formats without ids.",
        epilog="Exit status: 0 compared, 1 one branch only, 2 error.",
    )
    diff.add_argument("file", metavar="FILE")
    diff.add_argument("leaves", nargs="*", default=[], metavar="LEAF", help="LEAF_A [LEAF_B]")
    json_option(diff, "fork point and both branches' entries as JSON")
    format_option(diff)
    redact_option(diff)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if len(args.leaves) > 2:
        print("session-tui diff: give at most two leaves", file=sys.stderr)
        return 2
    return run_diff(args.file, args.leaves, args.json, args.format, redact=settings.redact)
