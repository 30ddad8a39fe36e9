"""`session-tui mcp`: the real server, a subprocess, driven by the mcp SDK's
own stdio client: its tools listed, a search, a context, branches,
problems and usage of the samples, a planted secret masked, and every path
a client gives checked (outside the folders, missing, a symlink out, a
URL), each failure one line in an error result."""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from tests.model.fleet.builders import Writer
from tests.secret_samples import planted
from tests.support import REPO

if TYPE_CHECKING:
    from mcp import ClientSession

TOOLS = {"search_sessions", "session_context", "session_branches", "session_problems", "session_usage"}
DAMAGED = "tree/damaged-links.jsonl"
BRANCHED = "tree/branched-summary.jsonl"
HUGE = "tree/huge-output.jsonl"  # a tool result of 840 KB
WITH_SUBAGENT = "claude/5b0c7e21-9d3a-4f6e-8a2b-3c4d5e6f7a80.jsonl"
#: an upper bound for a whole exchange, never waited out: a hung server fails the test, not the run
DEADLINE = 120


class Server:
    """A connected client of one server process, and the stderr it wrote."""

    def __init__(self, session: ClientSession, errlog: Path) -> None:
        self.session, self.errlog = session, errlog

    async def call(self, tool: str, **arguments) -> tuple[bool, str]:
        """(is_error, the one text the tool answered)."""
        result = await self.session.call_tool(tool, arguments)
        assert len(result.content) == 1 and result.content[0].type == "text"
        return result.is_error, result.content[0].text

    async def answer(self, tool: str, **arguments) -> dict:
        failed, text = await self.call(tool, **arguments)
        assert not failed, text
        return json.loads(text)

    async def refusal(self, tool: str, **arguments) -> str:
        failed, text = await self.call(tool, **arguments)
        assert failed, text
        assert "\n" not in text and "Traceback" not in text
        return text


@asynccontextmanager
async def server(tmp_path: Path, *args: str):
    # imported here, not at the module's top: the SDK takes ~1.2 s to import, which every worker of the
    # suite paid when it collected this module
    mcp = pytest.importorskip("mcp")  # (the `mcp` extra; the test extra pulls it in)
    errlog = tmp_path / f"server-stderr-{time.monotonic_ns()}.txt"
    params = mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "session_tui", "mcp", *args],
        # the index and caches in the test's private cache dir (tests/conftest.py), never the user's
        env={"SESSION_TUI_CACHE_DIR": os.environ["SESSION_TUI_CACHE_DIR"], "SESSION_TUI_STUCK_AFTER": "0"},
        cwd=str(REPO),
    )
    with anyio.fail_after(DEADLINE), open(errlog, "w") as err:
        async with mcp.stdio_client(params, errlog=err) as (read, write), mcp.ClientSession(read, write) as session:
            await session.initialize()
            yield Server(session, errlog)
    assert "Traceback" not in errlog.read_text()


async def test_tools_are_listed_read_only_with_no_argument_that_turns_masking_off(tmp_path, samples):
    async with server(tmp_path, str(samples)) as s:
        listed = (await s.session.list_tools()).tools
        assert {tool.name for tool in listed} == TOOLS
        for tool in listed:
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
            assert not any("redact" in name for name in tool.input_schema.get("properties", {}))
            assert "[REDACTED:" in (tool.description or "")


async def test_a_search_finds_a_word_of_the_samples_as_search_json_says_it(tmp_path, samples):
    async with server(tmp_path, str(samples)) as s:
        found = await s.answer("search_sessions", query="rounding", limit=5)
        assert set(found) >= {"hits", "total", "took_ms", "indexed_files"}
        assert found["total"] >= 2 and len(found["hits"]) == 5 and found["indexed_files"] > 10
        hit = found["hits"][0]
        assert set(hit) == {"file", "line", "entry", "role", "kind", "time", "snippet"}
        assert "«rounding»" in hit["snippet"].lower() and Path(hit["file"]).is_relative_to(samples)
        # a filter, and a folder of the samples only
        narrowed = await s.answer("search_sessions", query="rounding role:user", paths=[str(samples / "tree")])
        assert narrowed["hits"] and all(h["role"] == "user" and "/tree/" in h["file"] for h in narrowed["hits"])
        # a hit's file goes straight to the other tools
        usage = await s.answer("session_usage", file=hit["file"])
        assert usage["file"] == hit["file"]
        nothing = await s.answer("search_sessions", query='"no such phrase anywhere 0x5f3759df"')
        assert nothing["total"] == 0 and nothing["hits"] == []
        assert "role:bogus" in await s.refusal("search_sessions", query="role:bogus rounding")


async def test_context_branches_problems_and_usage_of_the_samples(tmp_path, samples):
    async with server(tmp_path, str(samples)) as s:
        branched = str(samples / BRANCHED)
        context = await s.answer("session_context", file=branched)
        assert context["active"] is True and context["leaf_line"] and context["messages"] == len(context["items"])
        assert context["items"][0]["message"]["role"] == "system"
        assert all({"line", "message"} <= set(item) for item in context["items"])

        branches = await s.answer("session_branches", file=branched)
        assert branches["branches"] == 2 and sum(b["active"] for b in branches["items"]) == 1
        other = next(b for b in branches["items"] if not b["active"])
        assert other["fork_line"] and other["label"] and other["ends"]
        # the context at the other branch's leaf, by its id and by its line
        by_id = await s.answer("session_context", file=branched, leaf=other["leaf"])
        by_line = await s.answer("session_context", file=branched, leaf=f"L{other['leaf_line']}")
        assert by_id == by_line and by_id["active"] is False and by_id["leaf_line"] == other["leaf_line"]
        assert by_id["items"] != context["items"]
        page = await s.answer("session_context", file=branched, offset=1, limit=2)
        assert page["items"] == context["items"][1:3] and page["messages"] == context["messages"]
        assert "no entry" in await s.refusal("session_context", file=branched, leaf="not-an-entry")
        # a page stops before the message that would pass max_chars, and one too big comes alone, whole
        huge, pages, offset = str(samples / HUGE), [], 0
        while offset is not None:
            pages.append(await s.answer("session_context", file=huge, offset=offset, max_chars=10_000))
            offset = pages[-1].get("next_offset")
        assert [len(p["items"]) for p in pages] == [3, 1, 1]
        assert len(json.dumps(pages[1]["items"][0])) > 800_000
        whole = await s.answer("session_context", file=huge, max_chars=10_000_000)
        assert [item for p in pages for item in p["items"]] == whole["items"] and "next_offset" not in whole

        damaged = await s.answer("session_problems", file=str(samples / DAMAGED))
        kinds = {p["kind"] for p in damaged["problems"]}
        assert {"duplicate_id", "missing_parent", "cycle", "orphan_tool_result"} <= kinds
        assert all(p["severity"] and p["line"] and p["message"] for p in damaged["problems"])
        assert (await s.answer("session_problems", file=branched))["problems"] == []

        usage = await s.answer("session_usage", file=str(samples / WITH_SUBAGENT))
        subagents = sum(agent["responses"] for agent in usage["subagents"])
        assert usage["usage"]["responses"] == usage["own"]["responses"] + subagents
        assert usage["subagents"] and usage["usage"]["cost_usd"] > usage["own"]["cost_usd"] > 0


#: what a hostile file writes for a terminal: an OSC 52 (set the clipboard) and a bidi override
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07 \u202ereversed"


def _plant(folder: Path) -> tuple[str, Path]:
    """A Claude Code session whose prompt and answer hold an Anthropic key."""
    _, secret, text = next(p for p in planted(39) if p[0] == "anthropic-key")
    folder.mkdir()
    path = folder / "planted.jsonl"
    writer = Writer(path, "claude", time.time()).prompt(f"deploy with {text} please{HOSTILE}", ago=60)
    writer.answer(f"Deployed; the key {secret} is in the environment.", ago=30)
    return secret, path


async def test_a_planted_secret_comes_back_masked_in_every_answer(tmp_path):
    secret, path = _plant(tmp_path / "sessions")
    async with server(tmp_path, str(tmp_path / "sessions")) as s:
        found = await s.answer("search_sessions", query="deployed")
        assert found["total"] == 1 and "[REDACTED:anthropic-key:" in found["hits"][0]["snippet"]
        texts = [
            json.dumps(found),
            (await s.call("session_context", file=str(path)))[1],
            (await s.call("session_branches", file=str(path)))[1],
            (await s.call("session_problems", file=str(path)))[1],
            (await s.call("search_sessions", query=secret[:24]))[1],
        ]
        for text in texts:
            assert secret not in text and secret[:24] not in text
        assert "[REDACTED:anthropic-key:" in texts[1]
        # an escape sequence and a bidi override come back as JSON escapes (the context, a branch's label)
        for text in texts[1:3]:
            assert "\x1b" not in text and "\u202e" not in text and "\\u001b]52" in text and "\\u202e" in text
    async with server(tmp_path, "--no-redact", str(tmp_path / "sessions")) as s:  # only the one who starts it
        assert secret in (await s.call("session_context", file=str(path)))[1]


async def test_every_path_a_client_gives_is_checked_and_refused_in_one_line(tmp_path, samples):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.jsonl").write_text((samples / BRANCHED).read_text())
    (samples / "escape.jsonl").symlink_to(outside / "x.jsonl")
    (samples / "notes.jsonl").write_text("these are not session records\n")
    async with server(tmp_path, str(samples)) as s:
        said = await s.refusal("session_context", file=str(outside / "x.jsonl"))
        assert "outside the folders this server reads" in said and str(samples) in said
        assert "outside" in await s.refusal("session_problems", file=str(samples / "escape.jsonl"))  # a symlink out
        assert "outside" in await s.refusal("session_usage", file=str(samples / ".." / "outside" / "x.jsonl"))
        assert "outside" in await s.refusal("search_sessions", query="rounding", paths=[str(outside)])
        assert "no such file" in await s.refusal("session_branches", file=str(samples / "missing.jsonl"))
        assert "a folder" in await s.refusal("session_context", file=str(samples / "tree"))
        assert "URL" in await s.refusal("session_context", file="ssh://host/x.jsonl")
        said = await s.refusal("session_problems", file=str(samples / "notes.jsonl"))
        assert said.startswith(str(samples / "notes.jsonl") + ":")
        # the server goes on answering after each refusal
        assert (await s.answer("session_problems", file=str(samples / BRANCHED)))["problems"] == []


def test_the_verb_refuses_a_folder_without_sessions_before_it_serves(tmp_path):
    from tests.support import run_cli

    result = run_cli("mcp", str(tmp_path / "missing"))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().endswith("missing: no such file or directory")


def test_without_the_mcp_package_the_verb_says_how_to_install_it(samples):
    import subprocess

    code = "import sys; sys.modules['mcp'] = None; from session_tui.cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run([sys.executable, "-c", code, "mcp", str(samples)], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "session-tui mcp: needs the mcp package: pip install 'session-tui[mcp]'\n"
