"""A full-screen, read-only text view: the context at a leaf, a whole output."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Static, TextArea

from ...model.sanitize import inert


class TextViewScreen(Screen):
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
        yield TextArea(self.body, read_only=True, soft_wrap=True, id="text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()


def context_text(session, items) -> str:
    """The context at a leaf as readable text: one block per message."""
    out = []
    fmt = session.format
    for n, (entry, message) in enumerate(items, 1):
        role = message.get("role", "?")
        where = f"line {session.line_of(entry)}"
        out.append(f"── [{n}] {role} · {where}")
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif content is not None:
            from ...model.entry_view import content_text

            out.append(content_text(content))
        for call_id in fmt.tool_call_ids(message):
            call = next((c for c in message.get("tool_calls", []) if c.get("id") == call_id), {})
            function = call.get("function", {}) if isinstance(call, dict) else {}
            out.append(f"→ {function.get('name', '?')}({function.get('arguments', '')})  [call {call_id}]")
        result = fmt.tool_result_id(message)
        if result:
            out.append(f"  [result for {result}]")
        out.append("")
    return "\n".join(out) if out else "(empty context)"
