"""A full-screen, read-only text view: the context at a leaf, a whole output."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Input, Static, TextArea
from textual.widgets.text_area import Selection

from ...model.entries.view import content_text
from ...model.reading import json_text
from ...model.sanitize import inert
from ..masking import inert_shown, masked, redacting


class ReadingText(TextArea):
    """Read-only text moved through as in the other views: j/k, g/G,
    Home/End (the first or last line), PgUp/PgDn; n/N go to the next or
    previous match of the view's search."""

    BINDINGS = [
        Binding("g,home", "top", "Top", key_display="g"),
        Binding("G,end", "bottom", "End", key_display="G"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("n", "screen.find(1)", "Next match", key_display="n/N"),
        Binding("N", "screen.find(-1)", "Previous match", show=False),
    ]

    def action_top(self) -> None:
        self.move_cursor((0, 0))
        self.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.move_cursor(self.document.end)
        self.scroll_end(animate=False)


class TextViewScreen(Screen):
    """The text opens at its start, or at its end (``at_end``: the context,
    whose newest message is last, as the tree opens at the leaf)."""

    AUTO_FOCUS = "#text"  # (not in on_mount: a key may pop the screen before it mounts)
    BINDINGS = [
        Binding("escape,q", "back", "Back"),
        Binding("slash", "search", "Search"),
    ]
    DEFAULT_CSS = """
    TextViewScreen #title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    TextViewScreen TextArea { height: 1fr; border: none; }
    TextViewScreen #find { dock: bottom; display: none; }
    TextViewScreen #find.shown { display: block; }
    """

    def __init__(self, title: str, body: str, at_end: bool = False) -> None:
        super().__init__()
        self.title_text = inert_shown(self.app, title, keep_newlines=False)
        self.body = inert(body)
        self.at_end = at_end
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text), id="title", markup=False)
        yield ReadingText(masked(self.body, redacting(self.app)), read_only=True, soft_wrap=True, id="text")
        yield Input(placeholder="find in this text; Enter finds, n/N the next or previous, Esc closes", id="find")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        if self.at_end:
            self.call_after_refresh(self.query_one(ReadingText).action_bottom)

    @property
    def text_area(self) -> ReadingText:
        return self.query_one(ReadingText)

    def action_back(self) -> None:
        find = self.query_one("#find", Input)
        if find.has_class("shown"):  # Esc closes the search first
            find.remove_class("shown")
            self.text_area.focus()
            return
        self.app.pop_screen()

    def action_search(self) -> None:
        find = self.query_one("#find", Input)
        find.add_class("shown")
        find.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_text = event.value
        self.query_one("#find", Input).remove_class("shown")
        self.text_area.focus()
        self.action_find(1)

    def action_find(self, step: int) -> None:
        """Select the next (``step`` 1) or previous (-1) match of the search, wrapping around."""
        if not self.query_text:
            self.notify("/ to search first", timeout=2)
            return
        area = self.text_area
        text, needle = area.text.lower(), self.query_text.lower()
        row, column = area.selection.start
        here = sum(len(line) + 1 for line in area.text.split("\n")[:row]) + column
        if step > 0:
            at = text.find(needle, here + 1)
            at = text.find(needle) if at < 0 else at
        else:
            at = text.rfind(needle, 0, max(here, 0))
            at = text.rfind(needle) if at < 0 else at
        if at < 0:
            self.notify(f"not found: {inert(self.query_text, keep_newlines=False)}", timeout=3, markup=False)
            return
        area.selection = Selection(_location(text, at), _location(text, at + len(needle)))
        area.scroll_cursor_visible(center=True, animate=False)


def _location(text: str, index: int) -> tuple[int, int]:
    """(row, column) of ``index`` in ``text``."""
    return text.count("\n", 0, index), index - (text.rfind("\n", 0, index) + 1)


CONTEXT_MESSAGES = 2000  # the context view shows the last ones (a long session sends hundreds of thousands)


def context_text(session, items) -> str:
    """What the client sends on resume (``Session.resume_items``) as
    readable text: one block per message, the last CONTEXT_MESSAGES of
    them; what the client adds itself is marked on every line."""
    out = []
    skipped = max(len(items) - CONTEXT_MESSAGES, 0)
    if skipped:
        out += [
            f"… {skipped:,} earlier messages not shown here "
            "(`session-tui export FILE --context --to json` writes them all)",
            "",
        ]
    for n, sent in enumerate(items[skipped:], skipped + 1):
        message = sent.message
        role = message.get("role") or message.get("type") or "?"
        if sent.added_by:
            out.append(
                f"++ [{n}] {role} · added by {sent.added_by} on resume (not in the file; after line "
                f"{session.line_of(sent.entry)})"
            )
            out.extend("+  " + line for line in message_lines(message))
        else:
            out.append(f"── [{n}] {role} · line {session.line_of(sent.entry)}")
            out.extend(message_lines(message))
        out.append("")
    return "\n".join(out) if out else "(empty context: the client sends none of this file)"


def message_lines(message: dict) -> list[str]:
    """The readable lines of one context message, in any format's shape:
    texts, thinking, tool calls with their arguments, results."""
    out: list[str] = []
    kind = message.get("type")
    if kind in ("function_call", "custom_tool_call", "local_shell_call", "tool_search_call"):  # Responses items
        arguments = message.get("arguments", message.get("input", message.get("action")))
        out.append(f"→ {message.get('name') or kind}({_args(arguments)})  [call {message.get('call_id')}]")
    if kind in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
        out.append(f"← result for {message.get('call_id')}:")
        output = message.get("output")
        out.append(output if isinstance(output, str) else content_text(output))
    if kind == "reasoning":
        out.append("[reasoning] " + content_text(message.get("summary") or []))
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if isinstance(content, str):
        out.append(content)
    for block in blocks:
        if not isinstance(block, dict):
            out.append(str(block))
            continue
        btype = block.get("type")
        if btype in ("thinking", "redacted_thinking"):
            out.append("[thinking] " + str(block.get("thinking", "")))
        elif btype in ("tool_use", "toolCall"):
            arguments = block.get("input", block.get("arguments"))
            out.append(f"→ {block.get('name', '?')}({_args(arguments)})  [call {block.get('id')}]")
        elif btype == "tool_result":
            error = " (error)" if block.get("is_error") else ""
            out.append(f"← result for {block.get('tool_use_id')}{error}:")
            out.append(content_text(block.get("content")))
        else:
            out.append(content_text([block]))
    for call in message.get("tool_calls") or []:  # OpenAI chat
        function = call.get("function", {}) if isinstance(call, dict) else {}
        out.append(f"→ {function.get('name', '?')}({function.get('arguments', '')})  [call {call.get('id')}]")
    result = message.get("tool_call_id") or message.get("toolCallId")
    if result:
        out.insert(0, f"← result for {result}{' (error)' if message.get('isError') else ''}:")
    if message.get("role") in ("compactionSummary", "branchSummary"):
        out.append(str(message.get("summary", "")))
    return [line for text in out for line in str(text).split("\n")]


def _args(arguments) -> str:
    return arguments if isinstance(arguments, str) else json_text.dumps(arguments)
