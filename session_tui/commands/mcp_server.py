"""`session-tui mcp [PATH ...] [--no-redact]`: a Model Context Protocol
server on stdio, so an agent can search its own history and look into a
session: the search (the query language and the ``search --json``
contract), the context at a leaf (what the client sends on resume), the
branches, the problems (the ``check --json`` report) and the usage.

Read-only: nothing is written but the search index and the caches every
verb keeps. Every answer is one JSON text; each secret in it is masked
(``[REDACTED:<kind>:<hash>]``) unless the server was started with
``--no-redact``: no tool argument turns masking off. The paths a client
gives are hostile: a URL is refused, and a path must resolve (symlinks
too) inside the folders the server reads, then hold a session, as the CLI
checks a PATH (commands/mcp_tools.py answers; this module serves). A
failure is one line in an error result, never a traceback.
"""

# (no ``from __future__ import annotations``: the SDK reads the tools'
# signatures with ``eval_str``, from the module's globals, not build_server's)
import argparse
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from ..model.sanitize import inert_line
from .mcp_tools import MAX_CHARS, MAX_HITS, MAX_ITEMS, Tools, local_path

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult

    from ..model.settings import Settings
    from .options import Commands

NAME = "session-tui"
INSTALL = "session-tui mcp: needs the mcp package: pip install 'session-tui[mcp]'"


def run_mcp(paths: list[str], redact: bool = True) -> int:
    """Serve on stdin/stdout until the client closes them."""
    try:
        from mcp.server.mcpserver import MCPServer  # noqa: F401  (the SDK: only for this verb)
    except ImportError:
        print(INSTALL, file=sys.stderr)
        return 2
    from ..model.reading.source import is_url
    from .paths import say_path_problems

    for path in paths:
        if is_url(path):
            print(f"session-tui mcp: {inert_line(path)}: a URL; the server reads local folders only", file=sys.stderr)
            return 2
    if say_path_problems("mcp", paths):
        return 2
    from ..inert_output import inert_output

    mask: Callable[[str], str] | None = None
    if redact:  # (the lines said on stderr too: a notice may name a file)
        from ..model.privacy.redact import masked_printed

        mask = masked_printed
    with inert_output(mask):
        build_server(Tools([os.path.abspath(local_path(p)) for p in paths], redact)).run("stdio")
    return 0


# -- what the tools answer ------------------------------------------------------------


# -- the MCP server -------------------------------------------------------------------
SEARCH_HELP = (
    "Search every session (Claude Code, Codex, pi, opencode, Gemini, ...) the server reads: messages, thinking, "
    "tool calls and results, through an index brought up to date with the files first. Query language, as "
    '`session-tui search`: words match anywhere ignoring case; a "quoted phrase" matches exactly; filters '
    "role:user|assistant|tool|summary, tool:NAME, error: (failed tool results), path:SUBSTRING (tool calls "
    "touching it), model:NAME, format:NAME, after:DATE, before:DATE (2026-03-14), in:PATH, branch:active, "
    "secret:[KIND]. Returns {hits: [{file, line, entry, role, kind, time, snippet}], total, took_ms, "
    "indexed_files}, newest first; a hit's file and entry go to the other tools."
)
MASKED = " Secrets are masked as [REDACTED:<kind>:<hash>]."


def build_server(tools: Tools) -> "MCPServer":
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent, ToolAnnotations
    from pydantic import Field

    from .. import __version__

    masked = MASKED if tools.redact else ""
    server: MCPServer = MCPServer(
        NAME,
        version=__version__,
        instructions="Read-only access to the agent session logs on this machine: search them, then look at one "
        "session's context, branches, problems and usage by the file a hit names." + masked,
        log_level="WARNING",
    )
    read_only = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )

    def result(work: Callable[[], dict[str, Any]]) -> "CallToolResult":
        text, failed = tools.answer(work)
        return CallToolResult(content=[TextContent(text=text)], is_error=failed)

    File = Annotated[str, Field(description="a session file, as a search hit's `file` gives it")]
    Leaf = Annotated[
        str | None,
        Field(description="an entry id, or L<line> (the entry on that 1-based line); default: the active leaf"),
    ]
    Offset = Annotated[int, Field(description="the first item of the page (0-based)")]

    @server.tool(name="search_sessions", description=SEARCH_HELP + masked, annotations=read_only)
    def search_sessions(
        query: Annotated[str, Field(description='words, "exact phrases" and filters')],
        paths: Annotated[
            list[str] | None,
            Field(description="folders or files to search (inside the server's folders); default: all of them"),
        ] = None,
        limit: Annotated[int, Field(description=f"hits returned (1-{MAX_HITS})")] = 20,
    ) -> CallToolResult:
        return result(lambda: tools.search(query, paths, limit))

    @server.tool(
        name="session_context",
        description="The messages the session's client sends the model when it resumes at a leaf (summaries and "
        "compactions applied), each {line, message, added_by: the client, for what it adds itself}; "
        "a page at a time (`messages` counts them all, `next_offset` goes on)." + masked,
        annotations=read_only,
    )
    def session_context(
        file: File,
        leaf: Leaf = None,
        offset: Offset = 0,
        limit: Annotated[int, Field(description=f"messages returned at most (1-{MAX_ITEMS})")] = 50,
        max_chars: Annotated[
            int, Field(description="fewer messages once their JSON passes this many characters (one at least, whole)")
        ] = MAX_CHARS,
    ) -> CallToolResult:
        return result(lambda: tools.context(file, leaf, offset, limit, max_chars))

    @server.tool(
        name="session_branches",
        description="Every branch of a session (each leaf, where it forks, its first prompt, steps, tokens, cost, "
        "how it ends), the most recently written first; a branch's leaf goes to session_context." + masked,
        annotations=read_only,
    )
    def session_branches(
        file: File,
        offset: Offset = 0,
        limit: Annotated[int, Field(description=f"branches returned (1-{MAX_ITEMS})")] = 100,
    ) -> CallToolResult:
        return result(lambda: tools.branches(file, offset, limit))

    @server.tool(
        name="session_problems",
        description="The `session-tui check --json` report of a session: its problems (dangling tool calls, "
        "orphan results, broken links, torn lines, ... each with line, kind, severity, message), entries, "
        "leaves, active leaf, failed tool results, agent state and usage." + masked,
        annotations=read_only,
    )
    def session_problems(file: File) -> CallToolResult:
        return result(lambda: tools.problems(file))

    @server.tool(
        name="session_usage",
        description="Tokens (uncached input, output, cache read, cache write) and cost of a session, each response "
        "counted once over every branch, its sub-agents rolled up (`usage`) and apart, priced by the genai-prices "
        "table (an unknown model is listed, never guessed)." + masked,
        annotations=read_only,
    )
    def session_usage(file: File) -> CallToolResult:
        return result(lambda: tools.usage(file))

    return server


def add_parser(commands: "Commands") -> None:
    mcp = commands.add_parser(
        "mcp",
        help="a Model Context Protocol server (stdio): agents search their own history",
        description="Serve the search, a session's context, branches, problems and usage to an MCP client "
        "(Claude Code, Codex, pi with an MCP extension) on stdin/stdout, read-only, each secret masked. A path a "
        "client gives must be inside the folders (default: the known session folders). Needs session-tui[mcp].",
    )
    mcp.add_argument("paths", nargs="*", default=[], metavar="PATH", help="the folders it reads")
    mcp.add_argument("--no-redact", action="store_true", help="return secrets as they are (no tool argument can)")


def run(args: argparse.Namespace, settings: "Settings") -> int:
    return run_mcp(args.paths, redact=not args.no_redact)
