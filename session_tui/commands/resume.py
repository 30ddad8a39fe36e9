"""`session-tui resume FILE`: continue a session with its own client, or prove it first (``--dry-run``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .options import format_option, json_option, stuck_after_option

if TYPE_CHECKING:  # pragma: no cover
    from ..model.settings import Settings
    from .options import Commands


def add_parser(commands: Commands) -> None:
    resume = commands.add_parser(
        "resume",
        help="continue a session with its own client (Claude Code, Codex, pi, Gemini CLI, opencode, Qwen Code, "
        "GitHub Copilot CLI) at a leaf; --dry-run proves it first",
        description="Say how to continue FILE at its client's own leaf, or at --leaf: the client, the directory, the "
        "session id and the command. Where the client would not continue at that leaf by itself, or would not "
        "find the file by its id, it says what the client needs written first (a fork with a new id in the "
        "client's sessions folder; pi: its leaf moved), and writes it, through the store, only with --write or "
        "--exec. --dry-run instead runs your "
        "installed client on a copy, against a fake model API on 127.0.0.1 in a throwaway home, and reports "
        "what it sends, whether the API would accept it and whether it agrees with session-tui's context.",
        epilog="Exit status: 0 ready (dry run: accepted), 1 refused (dry run: rejected), 2 error.",
    )
    resume.add_argument("file", metavar="FILE")
    resume.add_argument("--leaf", metavar="ID", help="an entry id the tree shows, or a line number L123")
    json_option(resume, "one JSON object")
    resume.add_argument("--write", action="store_true", help="write what the client needs first; else only said")
    resume.add_argument("--exec", action="store_true", help="write that, then run the client in the session's dir")
    resume.add_argument("--fix", action="store_true", help="first close dangling calls and drop a torn last line")
    resume.add_argument("--dry-run", action="store_true", help="run your client on a copy against a fake API")
    resume.add_argument("--client-bin", metavar="PATH", help="the client's program (default: found on PATH)")
    resume.add_argument("--model", metavar="MODEL", help="dry run: resume with this model")
    resume.add_argument("--timeout", type=float, default=90.0, metavar="SECONDS", help="dry run: the client's limit")
    format_option(resume)
    resume.add_argument("--force", action="store_true", help="write even if an agent may be writing the file")
    stuck_after_option(resume)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.dry_run:
        from ..actions.dry_run import run_dry_run

        return run_dry_run(args)
    from ..actions.resume import run_resume

    return run_resume(args, stuck_after=settings.stuck_after)
