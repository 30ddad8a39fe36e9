"""`session-tui export`: Markdown, HTML and JSON of a branch or of the context at a leaf."""

from __future__ import annotations

import json
import os
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest
from markdown_it import MarkdownIt

from session_tui.actions.export import TARGETS, export
from session_tui.model.sanitize import inert
from session_tui.model.session.context import context_at, context_items
from session_tui.model.session.session import open_session
from session_tui.ui.app import SessionApp
from tests.builders.tree import header, message, result, summary
from tests.support import REPO, SAMPLES, run_cli
from tests.ui.pilot_support import session_screen, wait_for

BRANCHED = SAMPLES / "tree" / "branched-summary.jsonl"
ABANDONED_LEAF = "9df23958-e553-464f-b762-0b083037af6e"  # line 12, left by the pointer on line 13
SAMPLE_FILES = sorted(p.relative_to(SAMPLES) for p in SAMPLES.rglob("*.jsonl"))

# What a hostile session may hold, and where: text, ids, roles, tool names and
# arguments, times; each must reach the page as text only.
HOSTILE = {
    "script": "<script>alert(1)</script>",
    "attribute": '"><img src=x onerror=alert(1)>',
    "markup": "[bold]loud[/bold]",
    "csi": "\x1b[31mred\x1b[0m",
    "osc52": "\x1b]52;c;ZXZpbA==\x07",
    "c1": "\x9b2J",
    "entity": "&amp; &lt;b&gt;",
}
RAW_CONTROLS = ("\x1b", "\x07", "\x9b")
PAGE_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "header",
    "h1",
    "h2",
    "dl",
    "dt",
    "dd",
    "section",
    "div",
    "span",
    "pre",
    "p",
    "details",
    "summary",
}
PAGE_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "open"}


def hostile_session(path: Path) -> Path:
    evil = " ".join(HOSTILE.values())
    call = {
        "id": HOSTILE["attribute"],
        "type": "function",
        "function": {"name": HOSTILE["script"], "arguments": json.dumps({"q": evil})},
    }
    path.write_bytes(
        header()
        + message("u1", None, "user", evil)
        + message(HOSTILE["attribute"], "u1", HOSTILE["attribute"], evil)  # id and role too
        + message("a1", HOSTILE["attribute"], "assistant", None, tool_calls=[call])
        + result("t1", "a1", HOSTILE["attribute"], evil)
        + summary("s1", "t1", evil, tokensBefore=1200)
        + orjson.dumps(
            {
                "type": "message",
                "id": "a2",
                "parentId": "s1",
                "createdAt": evil,
                "message": {"role": "assistant", "content": evil},
            }
        )
        + b"\n"
    )
    return path


class PageParser(HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes.extend(attrs)

    def handle_data(self, data):
        self.text.append(data)


def parse_page(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


def assert_only_our_markup(page: str) -> PageParser:
    """The page's tags and attributes are the exporter's own: nothing from
    the session became markup, and nothing is loaded from anywhere."""
    parsed = parse_page(page)
    assert parsed.tags <= PAGE_TAGS, parsed.tags - PAGE_TAGS
    assert {name for name, _ in parsed.attributes} <= PAGE_ATTRIBUTES
    for name, value in parsed.attributes:
        if name == "class":
            assert value in {
                "system",
                "developer",
                "user",
                "assistant",
                "tool",
                "summary",
                "other",
                "meta",
                "call",
                "prose",
                "thinking",
                "aside",
                "tool-name",
                "summary-line",
                "result",
                "result failed",
                "result missing",
                "more",
                "command",
                "typed",
                "tokens",
            }, value
    assert not any(c in page for c in RAW_CONTROLS)
    assert "url(" not in page and "@import" not in page
    return parsed


def test_the_markdown_holds_every_message_of_the_active_branch_and_nothing_else():
    result_ = run_cli("export", str(BRANCHED), "--to", "md")
    assert result_.returncode == 0, result_.stderr
    md = result_.stdout
    with open_session(BRANCHED) as session:
        path = session.active_path()
        json_blocks = [json.loads(body) for _, body in re.findall(r"^(`{3,})json\n(.*?)\n\1$", md, re.S | re.M)]
        text = "".join(parse_page(rendered(md)).text).replace("\xa0", " ")
        for n, entry in enumerate(path, 1):
            view = session.format.view(session.record(entry))
            assert f"## {n}. {view.role}" in md
            for line in filter(None, view.text.splitlines()):
                assert line.strip() in text  # as it reads once rendered: escapes gone
            for call in view.tool_calls:
                assert call.name in text and call.id in text
                assert json.loads(call.arguments) in json_blocks
        assert f"## {len(path) + 1}. " not in md
        abandoned = session.format.view(session.record(session.find(ABANDONED_LEAF))).text
        assert abandoned and abandoned not in md


def test_a_fence_is_longer_than_any_backtick_run_of_its_content(tmp_path):
    output = "```python\nprint('a `quote`')\n````\nstill output"
    path = tmp_path / "fences.jsonl"
    path.write_bytes(
        header()
        + message(
            "a1",
            None,
            "assistant",
            None,
            tool_calls=[{"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}],
        )
        + result("t1", "a1", "c1", output)
    )
    with open_session(path) as session:
        md = export(session, "md")
    assert f"`````\n{output}\n`````" in md


def test_the_html_page_turns_no_session_content_into_markup(tmp_path):
    path = hostile_session(tmp_path / "evil<script>.jsonl")
    out = tmp_path / "page.html"
    done = run_cli("export", str(path), "--to", "html", "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    parsed = assert_only_our_markup(page)
    assert "<script" not in page and "<img" not in page and "[bold]" in page  # shown, never interpreted
    text = "".join(parsed.text)
    for name in ("script", "attribute", "markup", "entity"):
        assert HOSTILE[name] in text, name  # every piece is there as text
    assert inert(HOSTILE["osc52"]) in text and inert(HOSTILE["c1"]) in text
    assert "red" in text and inert(HOSTILE["csi"]) not in text  # ANSI colours stripped: no ␛ boxes in a page
    assert "evil<script>.jsonl" in text


def test_markdown_and_json_carry_no_raw_escape_sequences(tmp_path):
    path = hostile_session(tmp_path / "evil.jsonl")
    for to in ("md", "json"):
        for extra in ([], ["--context"]):
            done = run_cli("export", str(path), "--to", to, *extra)
            assert done.returncode == 0, done.stderr
            assert not any(c in done.stdout for c in RAW_CONTROLS), (to, extra)
    md = run_cli("export", str(path), "--to", "md").stdout
    assert inert(HOSTILE["osc52"]) in "".join(parse_page(rendered(md)).text)


def test_context_json_equals_the_context_at_the_leaf(tmp_path):
    with open_session(BRANCHED) as session:
        active = context_at(session)
        other = session.find(ABANDONED_LEAF)
        other_context = context_at(session, other)
        other_records = [session.record(e) for e in session.tree.path_to(other)]
    done = run_cli("export", str(BRANCHED), "--context", "--to", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == active
    done = run_cli("export", str(BRANCHED), "--context", "--leaf", ABANDONED_LEAF, "--to", "json")
    assert json.loads(done.stdout) == other_context != active
    done = run_cli("export", str(BRANCHED), "--leaf", ABANDONED_LEAF, "--to", "json")
    assert json.loads(done.stdout) == other_records


def test_context_markdown_shows_the_summary_in_place_of_its_range():
    with open_session(BRANCHED) as session:
        md = export(session, "md", context=True)
        items = context_items(session)
        assert f"context at line {session.line_of(session.active_leaf())}: {len(items)} messages" in md
    assert "## 2. summary" in md and "18,420 tokens before" in md
    assert "## 8. " not in md  # 7 messages, 7 sections


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=str)
def test_every_sample_exports(sample):
    done = run_cli("export", str(SAMPLES / sample), "--to", "md")
    assert done.returncode == 0, done.stderr
    with open_session(SAMPLES / sample) as session:
        path = session.active_path()
        for n, entry in enumerate(path, 1):
            assert f"## {n}. {session.format.view(session.record(entry)).role}" in done.stdout
        assert_only_our_markup(export(session, "html"))
        assert json.loads(export(session, "json")) == [session.record(e) for e in path]


def test_output_file_is_never_overwritten_without_force(tmp_path):
    out = tmp_path / "branch.md"
    done = run_cli("export", str(BRANCHED), "--to", "md", "-o", str(out))
    assert done.returncode == 0 and done.stdout == f"wrote {out}\n"
    first = out.read_text()
    out.write_text("mine")
    refused = run_cli("export", str(BRANCHED), "--to", "md", "-o", str(out))
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "already exists" in refused.stderr
    assert out.read_text() == "mine"
    assert run_cli("export", str(BRANCHED), "--to", "md", "-o", str(out), "--force").returncode == 0
    assert out.read_text() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["branch.md"]  # no temp file left


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.jsonl", "--to", "md"], "no such file"),
        ([str(BRANCHED), "--to", "md", "--leaf", "no-such-entry"], "no entry"),
        ([str(BRANCHED), "--to", "md", "-o", "/nonexistent-dir/out.md"], "No such file or directory"),
    ],
)
def test_errors_are_one_line(args, message):
    done = run_cli("export", *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def _palette_offers(screen, title: str) -> bool:
    """Whether the command palette's first option is ``title`` (a loaded machine
    matches what was typed after the keys: Enter before that picks nothing)."""
    from textual.command import CommandList

    found = screen.query(CommandList)
    return bool(found) and found.first().option_count > 0 and title in str(found.first().get_option_at_index(0).prompt)


async def test_the_palette_command_writes_the_branch_beside_the_file(tmp_path):
    path = tmp_path / "run.jsonl"
    shutil.copy(BRANCHED, path)
    async with SessionApp(str(path), watch=False).run_test(size=(160, 40), notifications=True) as pilot:
        screen = await session_screen(pilot)
        for name in ("run.export.md", "run.export-2.md"):  # (the second beside the first, never over it)
            await pilot.press("ctrl+p", *"export branch as markdown")
            await wait_for(pilot, lambda: _palette_offers(pilot.app.screen, "Export branch as Markdown"), what="it")
            await pilot.press("enter")
            # (its notice names the file; a notice goes after a few seconds: under load the first may be gone)
            await wait_for(pilot, lambda name=name: _noticed(pilot.app.screen, str(tmp_path / name)), what=name)
        expected = export(screen.state.session, "md")
    assert (tmp_path / "run.export.md").read_text() == expected
    assert (tmp_path / "run.export-2.md").read_text() == expected


def _noticed(screen, text: str) -> bool:
    return any(text in str(toast.render()) for toast in screen.query("Toast"))


# Markdown that a renderer would turn into live HTML or links, in every place
# the Markdown export puts session text outside a fence.
MD_HOSTILE = {
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(1)>",
    "anchor": '<a href="javascript:alert(1)">click</a>',
    "link": "[x](javascript:alert(1))",
    "image": "![i](javascript:alert(1))",
    "reference": "[r]\n\n[r]: javascript:alert(1)",
    "autolink": "<javascript:alert(1)>",
    "attributes": "{: onclick=alert(1) }",
    "entity": "&lt;script&gt; &amp;",
    "structure": "# heading\n- item\n1. first\n---\n    indented_code()\n| a | b |\n*em* __strong__ `code` ~~gone~~",
}
MD_TAGS = {"h1", "h2", "p", "blockquote", "pre", "code", "strong"}


def md_hostile_session(path: Path) -> Path:
    evil = "\n\n".join(MD_HOSTILE.values())
    one_line = " ".join(v for v in MD_HOSTILE.values() if "\n" not in v)
    call = {"id": one_line, "type": "function", "function": {"name": one_line, "arguments": "{}"}}
    path.write_bytes(
        header()
        + message("u1", None, "user", evil)
        + message(one_line, "u1", one_line, evil)  # id and role too
        + message("a1", one_line, "assistant", evil, tool_calls=[call])
        + orjson.dumps(
            {
                "type": "message",
                "id": "a2",
                "parentId": "a1",
                "createdAt": one_line,
                "message": {"role": "assistant", "content": evil},
            }
        )
        + b"\n"
    )
    return path


def outside_fences(md: str) -> str:
    return re.sub(r"^(`{3,})[^\n]*\n.*?\n\1$", "", md, flags=re.S | re.M)


def rendered(md: str) -> str:
    """``md`` as CommonMark (raw HTML allowed, as most renderers do) plus GFM tables and strikethrough."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)


def test_markdown_renders_session_text_as_literal_text(tmp_path):
    path = md_hostile_session(tmp_path / "evil<img src=x onerror=alert(1)>[x](javascript:alert(1)).jsonl")
    with open_session(path) as session:
        md = export(session, "md")
    raw = outside_fences(md)
    for needle in ("<script", "<img", "<a ", "<javascript:"):
        assert needle not in raw, needle
    assert not re.search(r"(?<!\\)\]\(javascript:|^> (?<!\\)\[r\]:", raw, re.M)
    page = rendered(md)
    parsed = parse_page(page)
    assert parsed.tags <= MD_TAGS, parsed.tags - MD_TAGS  # no link, image, script, list, heading from the session
    assert set(parsed.attributes) <= {("class", "language-json")}
    text = "".join(parsed.text)
    for name, value in MD_HOSTILE.items():
        for line in filter(None, value.split("\n")):
            assert line.strip() in text.replace("\xa0", " "), (name, line)  # every piece is there as text
    assert path.name in text


def test_a_file_whose_name_is_not_utf8_exports_to_every_target(tmp_path):
    name = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"run\x9b\x9d.jsonl"))
    shutil.copy(BRANCHED, name)
    for to in TARGETS:
        done = run_cli("export", name, "--to", to)  # decoded strictly: a raw 0x9B byte would fail
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert "\x9b" not in done.stdout and "\x9d" not in done.stdout
        if to != "json":
            assert "run&lt;9B&gt;&lt;9D&gt;.jsonl" in done.stdout or "run<9B><9D>.jsonl" in done.stdout
        out = name.removesuffix(".jsonl") + f".{to}"
        done = run_cli("export", name, "--to", to, "-o", out)
        assert done.returncode == 0 and done.stdout == f"wrote {tmp_path}/run<9B><9D>.{to}\n", done.stderr
        assert os.path.exists(out)


def test_json_nested_deeper_than_orjson_writes_still_exports(tmp_path):
    deep = message("u1", None, "user", "hi", deep="DEEP").replace(b'"DEEP"', b"[" * 1000 + b"1" + b"]" * 1000)
    call = {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "[" * 1000 + "]" * 1000}}
    calling = message("a1", "u1", "assistant", None, tool_calls=[call])
    path = tmp_path / "deep.jsonl"
    path.write_bytes(header() + deep + calling)
    done = run_cli("export", str(path), "--to", "json")
    assert done.returncode == 0, done.stderr
    orjson.loads(done.stdout)  # valid JSON, holding the records as they are (they have no spaces):
    assert "".join(done.stdout.split()) == f"[{deep.decode().strip()},{calling.decode().strip()}]"
    assert done.stdout.startswith('[\n  {\n    "type": "message",\n')  # indented as orjson does it
    for to in ("md", "html"):
        done = run_cli("export", str(path), "--to", to)
        assert done.returncode == 0 and "\n" + "  " * 999 + "[]\n" in done.stdout, done.stderr


def test_json_escapes_bidi_and_invisible_characters_and_keeps_the_value(tmp_path):
    hidden = "ok\u202eexe.txt\u2066x\u2069 a\u200bb\u200dc\ufeff\u00ad\u2028\u2029\u061c"
    path = tmp_path / "hidden.jsonl"
    path.write_bytes(header() + message("u1", None, "user", hidden) + message("a1", "u1", "assistant", hidden))
    with open_session(path) as session:
        records = [session.record(0), session.record(1)]
    for extra in ([], ["--context"]):
        done = run_cli("export", str(path), "--to", "json", *extra)
        assert done.returncode == 0, done.stderr
        assert done.stdout.isascii() and "\\u202e" in done.stdout
        if not extra:
            assert json.loads(done.stdout) == orjson.loads(done.stdout) == records
        else:
            assert [m["content"] for m in json.loads(done.stdout)] == [hidden, hidden]


def test_a_tool_input_nested_deeper_than_orjson_writes_is_checked_exported_and_forked(tmp_path):
    def record(uuid, parent, role, content):
        return orjson.dumps(
            {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": "s",
                "cwd": "/w",
                "timestamp": "2026-03-14T11:05:00.000Z",
                "message": {"role": role, "content": content},
            }
        )

    call = record("a1", "u1", "assistant", [{"type": "tool_use", "id": "t1", "name": "run", "input": "DEEP"}])
    path = tmp_path / "claude.jsonl"
    path.write_bytes(
        record("u1", None, "user", "hi") + b"\n" + call.replace(b'"DEEP"', b"[" * 600 + b"]" * 600) + b"\n"
    )
    assert run_cli("check", str(path)).returncode == 0
    for to in TARGETS:
        done = run_cli("export", str(path), "--to", to)
        assert done.returncode == 0 and "  " * 599 + "[]" in done.stdout, done.stderr
    fork = tmp_path / "fork.jsonl"
    done = run_cli("fork", str(path), "a1", "-o", str(fork))
    assert done.returncode == 0, done.stderr
    assert b"[" * 600 + b"]" * 600 in fork.read_bytes() and run_cli("check", str(fork)).returncode == 0


def test_the_session_file_itself_is_never_overwritten_by_its_export(tmp_path):
    session = tmp_path / "s.jsonl"
    shutil.copy(BRANCHED, session)
    original = session.read_bytes()
    refused = run_cli("export", str(session), "--to", "json", "-o", str(session), "--force")
    assert refused.returncode == 1 and "is the session file itself" in refused.stderr
    assert session.read_bytes() == original


def test_the_html_page_reads_as_a_conversation():
    """A Claude Code run: each response one section, each result under its
    call with the tool's name and what it ran, failed results marked,
    thinking folded, a header with title, time, models, tokens, problems."""
    live = REPO / "tests" / "data" / "live-runs" / "claude" / "f754b62a-7bdd-4e42-bceb-db6fb1e1377f.jsonl"
    with open_session(live) as session:
        page = export(session, "html")
        responses = len({session.format.view(session.record(e)).step for e in session.active_path()} - {None})
    parsed = assert_only_our_markup(page)
    text = "".join(parsed.text)
    assert "<h1>work on the invoice tests</h1>" in page
    for fact in ("time", "models", "claude-sonnet-4-5", "tokens", "problems", "failed tool results"):
        assert fact in text, fact
    assert page.count('<section class="assistant">') == responses  # one per model response, none empty
    assert '<span class="summary-line">$ echo S00 &amp;&amp; ls -la</span>' in page
    assert page.count('class="result failed"') == 2 and "✗ failed Bash result" in text
    assert "result for toolu_" not in text


async def test_the_palette_exports_html_markdown_and_json(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(BRANCHED.read_bytes())
    app = SessionApp(str(path), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await session_screen(pilot)
        titles = {command.title for command in app.get_system_commands(screen)}
        assert {"Export branch as HTML", "Export branch as Markdown", "Export branch as JSON"} <= titles
        for to in ("html", "md", "json"):
            app.export_branch(screen, to)
    assert "<header>" in (tmp_path / "s.export.html").read_text()
    assert (tmp_path / "s.export.md").read_text().startswith("# ")
    assert isinstance(json.loads((tmp_path / "s.export.json").read_text()), list)
