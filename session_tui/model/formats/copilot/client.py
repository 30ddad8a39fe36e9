"""GitHub Copilot CLI 1.0.102 as session-tui drives it: ``copilot
--resume=<id>`` finds a session by its id in
``~/.copilot/session-state/<id>/events.jsonl`` (``$COPILOT_HOME`` instead of
``~/.copilot`` where set); in BYOK mode (``COPILOT_PROVIDER_BASE_URL``,
``COPILOT_OFFLINE=true``: no GitHub sign-in) it speaks OpenAI Chat
Completions to its model."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ...checked_paths import UUID, ResumeRefused, checked_id, inside
from ..client import CHAT, Client, DryRunHome

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session

MODEL = "gpt-5.4"  # a dry run's model when none is given (any name: the fake API answers)
EVENTS = "events.jsonl"


def copilot_home(env: Mapping[str, str]) -> str:
    found = env.get("COPILOT_HOME")
    if found and os.path.isabs(found):
        return found
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".copilot")


def folder_id(path: str) -> str | None:
    """The session id a ``<id>/events.jsonl`` path names (None: no such path)."""
    folder, name = os.path.split(os.path.abspath(path))
    stem = os.path.basename(folder)
    return stem if name == EVENTS and UUID.fullmatch(stem) else None


class CopilotCli(Client):
    name = "copilot"
    program = "copilot"
    title = "GitHub Copilot CLI"
    pinned = "1.0.102"
    provider = None  # its models are GitHub's, or the BYOK provider's: priced by the model where it can
    wire = CHAT
    context_form = CHAT
    process_names = ("copilot",)
    packages = ("/@github/copilot",)
    resumes_at = "the end of the file"
    fork_form = "--resume=<the session's id>"

    def argv(self, session_id: str, path: str) -> list[str]:
        return [self.program, f"--resume={checked_id(session_id, 'the session id', path)}"]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        return inside(copilot_home(env), "session-state")

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        if session_id is None or folder_id(path) != session_id:
            return False
        folder = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(path))))
        return folder == self.sessions_folder(cwd, env)

    def session_id_of(self, session: Session) -> str | None:
        for entry in range(min(session.tree.count, 50)):
            record = session.record(entry)
            data = record.get("data")
            if record.get("type") == "session.start" and isinstance(data, dict):
                found = data.get("sessionId")
                if isinstance(found, str):
                    return checked_id(found, "its sessionId", session.path)
        return folder_id(session.path)

    def new_file_id(self, path: str, data: bytes) -> str:
        found = folder_id(path)
        if found is None:
            checked_id(os.path.basename(os.path.dirname(os.path.abspath(path))), "its folder's name", path)
        return found or ""

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        """The cwd of the last ``session.start`` / ``session.resume`` at or before ``leaf``."""
        tree = session.tree
        entry = leaf
        for _ in range(100_000):
            if entry < 0:
                break
            record = session.record(entry)
            data = record.get("data")
            if record.get("type") in ("session.start", "session.resume") and isinstance(data, dict):
                context = data.get("context")
                cwd = context.get("cwd") if isinstance(context, dict) else None
                if isinstance(cwd, str) and cwd:
                    return cwd
            entry = tree.parent[entry]
        return None

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        sid = self.session_id_of(session)
        if sid is None:
            raise ResumeRefused(f"{session.path}: no session id (session.start or an <id>/ folder): refused")
        home = os.path.join(run, ".copilot")
        folder = inside(home, "session-state", sid)
        copy = inside(folder, EVENTS)
        env = {
            "COPILOT_HOME": home,
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": url.rstrip("/") + "/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_WIRE_API": "completions",
            "COPILOT_PROVIDER_API_KEY": "sk-fake-dry-run-0000",
            "COPILOT_MODEL": model or MODEL,
        }
        out = DryRunHome(copy, env)
        source = os.path.dirname(os.path.abspath(session.path))
        if folder_id(session.path) == sid:  # the whole folder: workspace.yaml, checkpoints, snapshots
            out.trees.append((source, folder))
        else:  # a loose events file: alone, where Copilot looks for it by its id
            out.copies.append((session.path, copy))
        return out

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        return [program, "--allow-all-tools", "--disable-client-telemetry", *resume, "-p", prompt]


CLIENT = CopilotCli()
