"""Claude Code 2.1.328 as session-tui drives it: ``claude --resume <id>``
finds a session by its id in the project folder of the directory it runs
in (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, ``projects/<cwd mangled>/``);
every record carries its ``cwd`` and ``sessionId``; its sub-agents'
transcripts sit in ``<id>/subagents/`` beside the file."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from ...checked_paths import UUID, checked_id, checked_name, inside
from ..client import ANTHROPIC, Client, DryRunHome

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session


def claude_home(env: Mapping[str, str]) -> str:
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".claude")


def claude_project(cwd: str) -> str:
    """The name of Claude Code's project folder for the directory ``cwd``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


class ClaudeCode(Client):
    name = "claude"
    program = "claude"
    title = "Claude Code"
    pinned = "2.1.328"
    provider = "anthropic"
    wire = ANTHROPIC
    process_names = ("claude",)
    packages = ("/claude-code/",)
    resumes_at = "its newest leaf"
    fork_form = "--resume <the new session's id>"
    subagents_folder = True
    dry_run_env = MappingProxyType(
        {
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_BUG_COMMAND": "1",
            "ANTHROPIC_API_KEY": "sk-ant-session-tui-dry-run",
        }
    )

    def refusal(self, session: Session, leaf: int) -> str | None:
        if session.record(leaf).get("isSidechain") is True:
            return "a sub-agent transcript is not a session Claude Code resumes; resume the session that spawned it"
        return None

    def argv(self, session_id: str, path: str) -> list[str]:
        return [self.program, "--resume", checked_id(session_id, "the session id", path)]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        return inside(os.path.join(claude_home(env), "projects"), claude_project(cwd or os.getcwd()))

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
        folder = self.sessions_folder(cwd, env)
        return (
            folder is not None and os.path.dirname(path) == folder and os.path.basename(path) == f"{session_id}.jsonl"
        )

    def session_id_of(self, session: Session) -> str | None:
        stem = os.path.basename(session.path).removesuffix(".jsonl")
        if UUID.fullmatch(stem):
            return stem
        for entry in range(min(session.tree.count, 50)):
            found = session.record(entry).get("sessionId")
            if isinstance(found, str):
                return checked_id(found, "its sessionId", session.path)
        return None

    def new_file_id(self, path: str, data: bytes) -> str:
        return os.path.basename(path).removesuffix(".jsonl")

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        from ..base import cwd_back  # (the readers' base: not loaded with the client's names)

        return cwd_back(session, leaf, 10_000)

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        sid = self.session_id_of(session) or str(uuid.uuid4())  # (a UUID, or refused)
        folder = inside(run, ".claude", "projects", claude_project(work))
        copy = inside(folder, checked_name(f"{sid}.jsonl", session.path))
        home = DryRunHome(copy, {"ANTHROPIC_BASE_URL": url, "CLAUDE_CONFIG_DIR": os.path.join(run, ".claude")})
        home.copies.append((session.path, copy))
        beside = session.path.removesuffix(".jsonl")
        if os.path.isdir(beside) and not os.path.islink(beside):  # its sub-agents' transcripts
            home.trees.append((beside, inside(folder, sid)))
        return home

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        return [program, "-p", *resume, *(["--model", model] if model else []), prompt]


CLIENT = ClaudeCode()
