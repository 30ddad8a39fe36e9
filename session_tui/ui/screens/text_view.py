"""A full-screen, read-only text view: the context at a leaf, a whole output."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

from ...model import json_text
from ...model.entry_view import content_text
from ...model.sanitize import inert
from ..masking import masked, redacting


class TextViewScreen(Screen):
    AUTO_FOCUS = "#text"  # (not in on_mount: a key may pop the screen before it mounts)
    BINDINGS = [Binding("escape,q", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    TextViewScreen #title { height: 1; background: $panel; padding: 0 1; text-style: bold; }
    TextViewScreen TextArea { height: 1fr; border: none; }
    """

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = inert(title, keep_newlines=False)
        self.body = inert(body)

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title_text), id="title", markup=False)
        yield TextArea(masked(self.body, redacting(self.app)), read_only=True, soft_wrap=True, id="text")
        yield Footer()


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
