"""The detail pane: the selected entry in full (capped), or its raw JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import MountError
from textual.widgets import Static

from ...model.entries.pairing import partner, results_of
from ...model.entries.readable import added_by_client, command_of, first_lines, response_usage, tokens_line
from ...model.entries.view import call_summary
from ...model.reading import json_text
from ...model.reading.records import loads as json_loads
from ...model.sanitize import inert, inert_line, strip_ansi
from ...model.session.usage import entry_tokens, step_seconds
from ...model.words import human_seconds
from ..masking import inert_shown, masked, masked_record, redacting

if TYPE_CHECKING:  # pragma: no cover
    from textual.widgets import TextArea

MAX_LINES = 2000
MAX_CHARS = 200_000
#: a tool's or command's output longer than this shows its first FOLD_LINES lines (o reads all)
FOLD_LINES = 30


def pretty_arguments(arguments: str) -> str:
    """Tool arguments pretty-printed when they are JSON, as recorded otherwise."""
    try:
        return json_text.dumps(json_loads(arguments), indent=True)
    except (orjson.JSONDecodeError, TypeError):
        return arguments


def entry_body(view, tool_name=None, outcomes: dict[str, str] | None = None, ran: str = "") -> str:
    """The readable body of an entry: its text (a command run in the client
    as the command typed, or its output), its calls (each with what became
    of it: ``outcomes``), what it answers (``ran``: what its call ran)."""
    parts = []
    if view.result_for is not None:
        name = tool_name(view.result_for) if tool_name else "tool"
        failed = "✗ failed · " if view.is_error else ""
        parts.append(f"{failed}← result of {name} ({view.result_for})" + (f"\n{ran}" if ran else "") + "\n")
    command = command_of(view)
    if command is not None and command.kind == "command":
        parts.append(f"❯ {command.text}")
        if command.contents:
            parts.append(f"\n{command.contents}")
    elif command is not None and command.kind == "caveat":
        parts.append(f"(caveat: Claude Code's note to the model)\n{command.text}")
    elif command is not None:
        parts.append("\n".join(strip_ansi(part) for part in (command.text, command.error) if part) or "(no output)")
    elif view.text:
        parts.append(view.text)
    for call in view.tool_calls:
        outcome = f"\n   {outcomes[call.id]}" if outcomes and call.id in outcomes else ""
        parts.append(f"\n→ {call.name}  (call {call.id}){outcome}\n{pretty_arguments(call.arguments)}")
    return "\n".join(parts) if parts else "(no content)"


def call_outcomes(session, entry: int, view, running: set[str]) -> dict[str, str]:
    """For each call ``entry`` makes: where its result is (and whether it
    failed), that it is still running, or that it has none."""
    found = results_of(session, entry)
    out = {}
    for call in view.tool_calls:
        answer = found.get(call.id)
        if answer is not None:
            failed = session.format.view(session.record(answer)).is_error
            out[call.id] = f"{'✗ failed: ' if failed else '← '}result on line {session.line_of(answer)}"
        elif call.id in running:
            out[call.id] = "▶ running: no result yet"
        else:
            out[call.id] = "⚠ no result"
    return out


def ran_by(session, entry: int, view, mask: bool = False) -> str:
    """What the call a result answers ran (``$ pytest -q``), or ""; with
    ``mask``, its secrets masked before it is cut to one line (a secret cut
    short is no longer found)."""
    call = partner(session, entry)
    if call is None:
        return ""
    for made in session.format.view(masked_record(session.record(call), mask)).tool_calls:
        if made.id == view.result_for:
            return call_summary(made.name, made.arguments)
    return ""


def cap(text: str) -> tuple[str, int]:
    """``text`` cut to MAX_LINES / MAX_CHARS, and how many lines were cut."""
    lines = text.count("\n") + 1
    if lines <= MAX_LINES and len(text) <= MAX_CHARS:
        return text, 0
    head = text[:MAX_CHARS]
    kept = "\n".join(head.split("\n")[:MAX_LINES])
    return kept, lines - (kept.count("\n") + 1)


class DetailPane(Vertical):
    DEFAULT_CSS = """
    DetailPane { border-left: solid $panel; }
    DetailPane #detail-header { height: auto; max-height: 6; padding: 0 1; background: $panel; }
    DetailPane TextArea { border: none; height: 1fr; }
    """
    _body: TextArea | None = None
    _body_text = ""  # what the body shows (before it is mounted: what it will show)

    def compose(self) -> ComposeResult:
        yield Static(id="detail-header", markup=False)

    def mount_body(self) -> None:
        """The body (a read-only TextArea: select, copy, scroll) is mounted
        after the view's first frame: its modules, styles and first render
        (~10 ms) are not what the first frame waits for. The text shown
        before it came is loaded into it."""
        if self._body is not None:
            return
        from textual.widgets import TextArea

        body = TextArea(read_only=True, soft_wrap=True, show_line_numbers=False, id="detail-body")
        body.load_text(self._body_text)
        try:
            self.mount(body)
        except MountError:  # (the app quit, or the view closed, before it came)
            return
        self._body = body

    def on_mount(self) -> None:
        self.call_after_refresh(self.mount_body)
        self.full_text = ""
        self.raw = False
        self.mask = False  # secrets shown as their marks (always when the app masks everything: --redact)
        self.entry_shown: int | None = None  # the entry the pane shows (-1: the pending line)
        self.running_calls: set[str] = set()  # ids of the calls running now (model.session.live_state)

    def show_text(self, header: Text, body: str, fold: int | None = None) -> None:
        """``body`` under ``header``; with ``fold``, only its first ``fold``
        lines (o reads all)."""
        self.entry_shown = None
        self.full_text = inert(masked(body, self.mask or redacting(self.app)))
        shown, cut = first_lines(self.full_text, fold) if fold else (self.full_text, 0)
        shown, capped = cap(shown)
        if cut or capped:
            shown += f"\n… {cut + capped:,} more lines — press o to read all"
        self.query_one("#detail-header", Static).update(header)
        self._body_text = shown
        if self._body is not None:
            self._body.load_text(shown)
            self._body.scroll_home(animate=False)

    def show_entry(self, session, entry: int, tool_name=None) -> None:
        if entry < 0:
            torn = session.lines.torn
            self.show_text(
                Text("torn last line: it has no newline (a writer cut off, or still writing it)", style="bold"),
                torn.decode("utf-8", "replace"),
            )
            self.entry_shown = -1
            return
        record = session.record(entry)
        view = session.format.view(record)
        command = command_of(view)
        header = Text()
        header.append(f"{inert_line(view.role)} ", style="bold")
        if command is not None:
            header.append("command " if command.kind == "command" else f"command {command.kind} ", style="bold")
        elif added_by_client(record, view):
            header.append("added by the client, not typed ", style="italic")
        header.append(f"· line {session.line_of(entry)}")
        if view.time:
            header.append(f" · {inert(str(view.time), keep_newlines=False)}")
        usage = entry_tokens(session, entry, view) if view.result_for is None else None
        tokens = tokens_line(response_usage([(view.step, usage)])) if usage else ""
        if tokens:
            header.append(f" · {tokens}")
        if view.tokens_before is not None:
            header.append(f" · {view.tokens_before:,} tokens before")
        if view.tokens_after is not None:
            header.append(f" · {view.tokens_after:,} after")
        step = step_seconds(session, entry)
        if step is not None:
            kind, seconds = step
            header.append(f" · {'model took' if kind == 'model' else 'tool ran'} {human_seconds(seconds)}")
        if view.id:
            header.append(f"\nid {inert_shown(self.app, str(view.id), keep_newlines=False)}")
        if view.parent_id:
            header.append(f"\nparent {inert_shown(self.app, str(view.parent_id), keep_newlines=False)}")
        fold = None
        if self.raw:
            header.append("\nraw JSON (r: readable view)", style="italic")
            body = json_text.dumps(record, indent=True)
        else:
            outcomes = call_outcomes(session, entry, view, self.running_calls) if view.tool_calls else None
            names = (lambda call_id: tool_name(entry, call_id)) if tool_name else None
            mask = self.mask or redacting(self.app)
            # masked before any of it is cut to a line: a secret cut short is no longer found
            shown = session.format.view(masked_record(record, mask)) if mask else view
            ran = ran_by(session, entry, view, mask) if view.result_for else ""
            body = entry_body(shown, names, outcomes, ran)
            if view.result_for is not None or (command is not None and command.kind == "output"):
                fold = FOLD_LINES  # a long output: its first lines
        self.show_text(header, body, fold)
        self.entry_shown = entry
