"""Gemini CLI 0.61.0 as session-tui drives it: ``gemini --resume <sessionId>``
finds a session by the ``sessionId`` of its header among the files of
``~/.gemini/tmp/<project>/chats/`` (``~/.gemini/projects.json`` names the
project of the directory it runs in; ``<project>/.project_root`` holds that
directory, whose sha256 is the header's ``projectHash``). It appends to the
file it resumes (``$set`` snapshots) and writes a new
``session-<date>-<id8>.jsonl`` with the same id beside it.

0.61 sends every function response of a headless session twice on resume
(once from the ``gemini`` record's ``toolCalls[].result``, once from the
``user`` record after it): the API answers 400, so it cannot resume a file
it wrote itself (gemini-cli #5443, #6379, #16543). ``session-tui fix`` appends
the snapshot it accepts (store/forms/gemini.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ...checked_paths import checked_id, checked_name, inside
from ..client import GEMINI, Client, DryRunHome

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session

MODEL = "gemini-2.5-pro"  # an explicit model: with "auto" it first asks a router model for a JSON score
SETTINGS = {
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "security": {"auth": {"selectedType": "gemini-api-key"}},
}


def gemini_home(env: Mapping[str, str]) -> str:
    return os.path.join(env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~"), ".gemini")


def project_name(cwd: str, env: Mapping[str, str]) -> str:
    """The project folder name ``projects.json`` gives ``cwd`` (else its basename, as Gemini CLI makes one)."""
    try:
        with open(os.path.join(gemini_home(env), "projects.json"), "rb") as f:
            projects = json.loads(f.read()).get("projects")
    except (OSError, ValueError, AttributeError):
        projects = None
    found = projects.get(cwd) if isinstance(projects, dict) else None
    name = found if isinstance(found, str) else os.path.basename(cwd.rstrip("/")) or "root"
    return checked_name(name, "~/.gemini/projects.json")


class GeminiCli(Client):
    name = "gemini"
    program = "gemini"
    title = "Gemini CLI"
    pinned = "0.61.0"
    provider = "google"
    wire = GEMINI
    context_form = GEMINI
    process_names = ("gemini",)
    packages = ("/@google/gemini-cli",)
    resumes_at = "the end of the file"
    fork_form = "--resume <the new session's id>"

    def refusal(self, session: Session, leaf: int) -> str | None:
        return None  # it starts, and the API answers 400: `check` says so (the reader's ``resume_refusals``)

    def argv(self, session_id: str, path: str) -> list[str]:
        return [self.program, "--resume", checked_id(session_id, "the session id", path)]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        cwd = cwd or os.getcwd()
        return inside(os.path.join(gemini_home(env), "tmp"), project_name(cwd, env), "chats")

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
        name = os.path.basename(path)
        return (
            bool(session_id)
            and os.path.dirname(path) == self.sessions_folder(cwd, env)
            and name.startswith("session-")
            and name.endswith(".jsonl")
        )

    def session_id_of(self, session: Session) -> str | None:
        found = (session.header or {}).get("sessionId")
        return checked_id(found, "its sessionId", session.path) if isinstance(found, str) else None

    def new_file_id(self, path: str, data: bytes) -> str:
        try:
            head = json.loads(data.split(b"\n", 1)[0])
        except ValueError:
            head = None
        found = head.get("sessionId") if isinstance(head, dict) else None
        return checked_id(found, "its sessionId", path) if isinstance(found, str) else ""

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        """The directory in ``<project>/.project_root`` beside the chats folder,
        when its sha256 is the header's ``projectHash``."""
        recorded = (session.header or {}).get("projectHash")
        root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(session.path))), ".project_root")
        try:
            with open(root, "rb") as f:
                cwd = f.read(4096).decode("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        import hashlib  # (here: every session view imports this module, and hashlib costs ~4 ms)

        digest = hashlib.sha256(cwd.encode()).hexdigest()
        return cwd if cwd.startswith("/") and isinstance(recorded, str) and digest == recorded else None

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        home = os.path.join(run, ".gemini")
        project = os.path.join(home, "tmp", "project")
        name = checked_name(os.path.basename(session.path), session.path)
        copy = inside(os.path.join(project, "chats"), name if name.startswith("session-") else f"session-{name}")
        env = {
            "GEMINI_API_KEY": "fake-gemini-dry-run-0000",
            "GOOGLE_GEMINI_BASE_URL": url,
            "GEMINI_CLI_NO_RELAUNCH": "1",  # else it re-spawns itself in a child node
            "GEMINI_CLI_TRUST_WORKSPACE": "true",  # else headless refuses an untrusted directory
        }
        out = DryRunHome(copy, env)
        out.files.append((os.path.join(home, "settings.json"), json.dumps(SETTINGS).encode()))
        out.files.append((os.path.join(home, "projects.json"), json.dumps({"projects": {work: "project"}}).encode()))
        out.files.append((os.path.join(project, ".project_root"), work.encode()))
        out.copies.append((session.path, copy))
        return out

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        return [program, "-m", model or MODEL, "--yolo", *resume, "-p", prompt]


CLIENT = GeminiCli()
