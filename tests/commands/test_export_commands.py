"""Exports of Claude Code sessions read as claude-code-log's do: a command
run in the client as the command typed (not its tags), its output under it,
tokens per response, thinking and long outputs folded, failed results
marked; the model function behind it, ``model.entries.readable``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from session_tui.actions.export import export
from session_tui.model.entries.readable import LocalCommand, local_command, response_usage, tokens_line
from session_tui.model.privacy.secrets import mark
from session_tui.model.session.session import open_session
from session_tui.model.session.usage import entry_tokens
from tests.builders.claude import CAVEAT, command, session_with_commands, stdout
from tests.commands.test_export import HOSTILE, RAW_CONTROLS, assert_only_our_markup
from tests.commands.test_secrets_cli import ANTHROPIC, ANTHROPIC_TEXT
from tests.support import REPO, run_cli

#: written by Claude Code 2.1.328 in its interactive UI: /model opus, a prompt, !ls -1, /model sonnet, /context
COMMANDS = REPO / "tests" / "data" / "commands" / "claude" / "50a4beee-fccb-40ea-8981-cf5c4b706f30.jsonl"
#: the real files as published (tests/data/real has scrubbed copies, whose tags are cut short)
SHARED_REAL = sorted((REPO.parent / "shared" / "real-sessions" / "claude").glob("*.jsonl"))
RAW_TAGS = re.compile(r"&lt;/?(command-name|command-args|command-message|local-command-\w+|bash-\w+)&gt;")


def sections(page: str) -> list[str]:
    return page.split("<section ")[1:]


# -- the model function -------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        (command("/model", "opus"), LocalCommand("command", "/model opus")),
        (command("/mcp"), LocalCommand("command", "/mcp")),
        ("[local_command] " + command("/context"), LocalCommand("command", "/context")),  # a system record's view
        (  # a custom command: its message first, as Claude Code 1.0 wrote it
            "<command-message>orchestrator is running…</command-message>\n<command-name>/orchestrator</command-name>\n"
            "<command-args>create a TODO app</command-args>",
            LocalCommand("command", "/orchestrator create a TODO app"),
        ),
        ("<command-name>init</command-name>", LocalCommand("command", "/init")),  # older clients: no slash
        (stdout("Kept model as \x1b[1mDefault\x1b[22m"), LocalCommand("output", "Kept model as Default")),
        ("<bash-input>ls -1</bash-input>", LocalCommand("command", "! ls -1", shell=True)),
        (
            "<bash-stdout>a\nb</bash-stdout><bash-stderr>oops</bash-stderr>",
            LocalCommand("output", "a\nb", error="oops", shell=True),
        ),
        (CAVEAT, LocalCommand("caveat", CAVEAT[len("<local-command-caveat>") : -len("</local-command-caveat>")])),
    ],
)
def test_command_tags_read_as_the_command_typed(text, expected):
    assert local_command(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "please explain <command-name>/model</command-name>",  # a prompt that quotes a tag
        command("/model", "opus") + " and then this",
        "<command-name>/model</command-name",  # cut short (as the scrubbed copies are)
        "<command-name>~1817d0eb9b",
        "<environment_context>cwd</environment_context>",
        "<command-message>only a message</command-message>",
        "",
    ],
)
def test_anything_else_is_no_command(text):
    assert local_command(text) is None


def test_a_response_written_over_several_entries_is_counted_once():
    # as Claude Code's view keeps them: input_tokens counts the cache too
    first = {"input_tokens": 14_695, "output_tokens": 40, "cache_read_input_tokens": 11_515}
    last = {"input_tokens": 14_695, "output_tokens": 47, "cache_read_input_tokens": 11_515}
    usage = response_usage([("msg_1", first), ("msg_1", last), (None, {"input_tokens": 10, "output_tokens": 2})])
    assert usage == {"input": 3190, "output": 49, "cache_read": 11_515, "cache_write": 0}
    assert tokens_line(usage) == "in 3.2k · out 49 · cache read 11.5k"
    assert tokens_line(response_usage([])) == ""


# -- the HTML page ------------------------------------------------------------------


def test_the_commands_of_a_real_claude_code_session_read_as_typed():
    with open_session(COMMANDS) as session:
        page = export(session, "html")
        path = session.active_path()
        views = [session.format.view(session.record(e)) for e in path]
        usages = {v.step: entry_tokens(session, e, v) for e, v in zip(path, views, strict=True) if v.step}
    parsed = assert_only_our_markup(page)
    text = "".join(parsed.text)
    assert not RAW_TAGS.search(page)
    for typed in ("❯ /model opus", "❯ ! ls -1", "❯ /model sonnet", "❯ /context"):
        assert f'<div class="typed">{typed}</div>' in page, typed
    # the caveat folded away, each command's output under it in the same section
    command_sections = [s for s in sections(page) if s.startswith('class="command"')]
    assert len(command_sections) == 4
    assert all("<summary>caveat</summary>" in s for s in command_sections if "/model" in s)
    model = next(s for s in command_sections if "/model opus" in s)
    assert "Set model to `Opus 5.5` and saved as your default" in model
    context = next(s for s in command_sections if "❯ /context" in s)
    assert "Context usage" in context and "Estimated usage by category" in context  # ANSI colours dropped
    # the table /context adds for the model, folded as the client's own
    assert "added by the client, not typed · ## Context Usage" in page
    assert "<h1>please do the work task</h1>" in page  # the title is the prompt, not the caveat
    # thinking folded: one closed <details> per thinking block
    thinking = sum(1 for v in views if v.text.startswith("[thinking]"))
    assert thinking and page.count('<details class="thinking">') == thinking
    # failed results marked
    failed = sum(1 for v in views if v.is_error)
    assert failed == 4 and page.count('<details class="result failed" open>') == failed
    assert text.count("✗ failed Bash result") == failed
    # tokens per response: the first one's, in short form
    first = next(s for s in sections(page) if s.startswith('class="assistant"'))
    assert '<span class="tokens">in 3.2k · out 47</span>' in first
    responses = [s for s in sections(page) if s.startswith('class="assistant"')]
    assert all('<span class="tokens">in ' in s for s in responses)
    assert len(usages) == len(responses)
    # results under their calls, the command shown
    assert '<span class="summary-line">$ echo S10 &amp;&amp; false</span>' in page


def test_thinking_and_long_outputs_are_folded_and_the_command_shown(tmp_path):
    path = session_with_commands(tmp_path / "s.jsonl")
    with open_session(path) as session:
        page = export(session, "html")
    assert_only_our_markup(page)
    assert not RAW_TAGS.search(page)
    assert '<div class="typed">❯ /model opus</div>' in page and "Set model to Opus" in page
    assert '<div class="typed">❯ ! ls</div>' in page and "calc.py\nnotes.md" in page
    assert '<details class="thinking"><summary>thinking · Count first, then fail on purpose.</summary>' in page
    assert '<span class="summary-line">$ seq 100</span>' in page
    # 100 lines: the first 10 shown, the other 90 folded
    assert "<pre>1\n2\n3\n4\n5\n6\n7\n8\n9\n10</pre>" in page
    assert '<details class="more"><summary>… 90 more lines</summary><pre>11\n' in page
    assert '<details class="result failed" open><summary>✗ failed Bash result · 1 line</summary>' in page
    assert "in 5 · out 12 · cache read 20.0k · cache write 1.5k" in page  # input: the uncached part


def test_hostile_command_text_stays_text(tmp_path):
    evil = " ".join(HOSTILE.values())
    path = session_with_commands(tmp_path / "s.jsonl", args=evil, output=evil)
    done = run_cli("export", str(path), "--to", "html")
    assert done.returncode == 0, done.stderr
    parsed = assert_only_our_markup(done.stdout)
    text = "".join(parsed.text)
    assert HOSTILE["script"] in text and HOSTILE["attribute"] in text  # shown, never markup
    for to in ("md", "json"):
        done = run_cli("export", str(path), "--to", to)
        assert done.returncode == 0 and not any(c in done.stdout for c in RAW_CONTROLS), to


def test_a_secret_in_a_command_is_redacted(tmp_path):
    path = session_with_commands(tmp_path / "s.jsonl", args=ANTHROPIC_TEXT, output=f"logged in with {ANTHROPIC}")
    for to in ("html", "md"):
        done = run_cli("export", str(path), "--to", to, "--redact")
        assert done.returncode == 0, done.stderr
        assert ANTHROPIC not in done.stdout and mark("anthropic-key", ANTHROPIC) in done.stdout.replace("\\", "")
        assert "❯ /model" in done.stdout


def test_markdown_shows_the_command_typed_and_tokens_once_per_response(tmp_path):
    path = session_with_commands(tmp_path / "s.jsonl")
    done = run_cli("export", str(path), "--to", "md")
    assert done.returncode == 0, done.stderr
    md = done.stdout
    assert "> ❯ /model opus" in md and "> ❯ ! ls" in md and "<command-name>" not in md and "&lt;command" not in md
    assert "```\nSet model to Opus\n```" in md
    assert md.count("in 3 · out 47 · cache read 11.5k") == 2  # msg_1 (two lines) once, msg_3 once
    assert "✗ failed result for toolu_false · Bash $ false" in md


@pytest.mark.skipif(not SHARED_REAL, reason="no ../shared/real-sessions beside the repo")
@pytest.mark.parametrize("path", SHARED_REAL, ids=[p.name for p in SHARED_REAL])
def test_real_claude_code_files_show_no_raw_command_tags(path: Path):
    """The published files (Claude Code 1.0.98 to 2.1.152): every record of
    command tags in the exported branch reads as the command typed."""
    with open_session(path) as session:
        page = export(session, "html")
        typed = []
        for entry in session.active_path():
            found = local_command(session.format.view(session.record(entry)).text)
            if found is not None and found.kind == "command":
                typed.append(found.text)
    assert_only_our_markup(page)
    for name in typed:
        assert f"❯ {name}" in "".join(assert_only_our_markup(page).text)
    shown = [s for s in sections(page) if s.startswith('class="command"') or s.startswith('class="user"')]
    assert not any(RAW_TAGS.search(s.split("</h2>", 1)[1][:200]) for s in shown)  # no section opens with a raw tag


def test_an_output_of_few_but_long_lines_is_folded_too():
    from session_tui.actions.export_render import FOLDED_CHARS, _output_html

    links = "Links: " + "x" * 5000
    page = _output_html(f"Web search results\n\n{links}\nend")
    head, folded = page.split('<details class="more">')
    assert len(head) < FOLDED_CHARS + 50 and "<summary>… 2 more lines</summary>" in folded
    assert "end" in folded and head.count("x") + folded.count("x") == 5000  # nothing lost
    assert _output_html("short\nreply") == "<pre>short\nreply</pre>"
