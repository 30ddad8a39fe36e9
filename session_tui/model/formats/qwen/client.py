"""Qwen Code 0.24.4 as session-tui drives it: ``qwen --resume <sessionId>``
finds a session by its id in the project folder of the directory it runs
in (``~/.qwen/projects/<cwd, non-alphanumerics as ->/chats/<id>.jsonl``),
and only when the file's first record's ``cwd`` is that directory; it
speaks OpenAI Chat Completions to its model (``OPENAI_BASE_URL``)."""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from ...checked_paths import UUID, checked_id, checked_name, inside
from ..client import CHAT, Client, DryRunHome

if TYPE_CHECKING:  # pragma: no cover
    from ..base import Session

MODEL = "qwen3-coder-plus"  # a dry run's model when none is given (any name: the fake API answers)
#: what a dry run's home holds: no update check, no telemetry, the OpenAI-compatible auth
SETTINGS = {
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "security": {"auth": {"selectedType": "openai"}},
}


def qwen_home(env: Mapping[str, str]) -> str:
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".qwen")


def qwen_project(cwd: str) -> str:
    """The name of Qwen Code's project folder for the directory ``cwd``."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


class QwenCode(Client):
    name = "qwen"
    program = "qwen"
    title = "Qwen Code"
    pinned = "0.24.4"
    provider = None  # the price table has no Alibaba (DashScope) provider: priced by its model where it can
    wire = CHAT
    context_form = CHAT
    process_names = ("qwen",)
    packages = ("/@qwen-code/qwen-code",)
    resumes_at = "the end of the file"
    fork_form = "--resume <the new session's id>"

    def argv(self, session_id: str, path: str) -> list[str]:
        return [self.program, "--resume", checked_id(session_id, "the session id", path)]

    def sessions_folder(self, cwd: str | None, env: Mapping[str, str], now: datetime | None = None) -> str | None:
        return inside(os.path.join(qwen_home(env), "projects"), qwen_project(cwd or os.getcwd()), "chats")

    def found_in_place(self, path: str, session_id: str | None, cwd: str | None, env: Mapping[str, str]) -> bool:
        path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
        folder = self.sessions_folder(cwd, env)
        return (
            folder is not None and os.path.dirname(path) == folder and os.path.basename(path) == f"{session_id}.jsonl"
        )

    def session_id_of(self, session: Session) -> str | None:
        for entry in range(min(session.tree.count, 50)):
            found = session.record(entry).get("sessionId")
            if isinstance(found, str):
                return checked_id(found, "its sessionId", session.path)
        stem = os.path.basename(session.path).removesuffix(".jsonl")
        return stem if UUID.fullmatch(stem) else None

    def new_file_id(self, path: str, data: bytes) -> str:
        try:
            head = json.loads(data.split(b"\n", 1)[0])
        except ValueError:
            head = None
        found = head.get("sessionId") if isinstance(head, dict) else None
        if isinstance(found, str):
            return checked_id(found, "its sessionId", path)
        return os.path.basename(path).removesuffix(".jsonl")

    def recorded_cwd(self, session: Session, leaf: int) -> str | None:
        from ..base import cwd_back  # (the readers' base: not loaded with the client's names)

        return cwd_back(session, leaf, 10_000)

    def dry_run_home(self, session: Session, run: str, work: str, url: str, model: str | None) -> DryRunHome:
        sid = self.session_id_of(session) or str(uuid.uuid4())  # (checked, or refused)
        home = os.path.join(run, ".qwen")
        copy = inside(home, "projects", qwen_project(work), "chats", checked_name(f"{sid}.jsonl", session.path))
        env = {
            "OPENAI_BASE_URL": url.rstrip("/") + "/v1",
            "OPENAI_API_KEY": "sk-fake-dry-run-0000",
            "OPENAI_MODEL": model or MODEL,
            "QWEN_CODE_NO_RELAUNCH": "1",
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }
        out = DryRunHome(copy, env)
        out.files.append((os.path.join(home, "settings.json"), json.dumps(SETTINGS).encode()))
        with open(session.path, "rb") as f:
            data = f.read()
        first, newline, rest = data.partition(b"\n")
        try:
            head = json.loads(first)
        except ValueError:
            head = None
        if isinstance(head, dict) and isinstance(head.get("cwd"), str) and head["cwd"] != work:
            # Qwen Code resumes only a session whose first record's cwd is the project's
            head["cwd"] = work
            first = json.dumps(head, ensure_ascii=False, separators=(",", ":")).encode()
            out.notes.append("the first record's cwd is the run's directory in the copy")
        out.files.append((copy, first + newline + rest))
        return out

    def dry_run_argv(self, program: str, resume: list[str], model: str | None, prompt: str) -> list[str]:
        return [program, "-m", model or MODEL, "--yolo", *resume, "-p", prompt]


CLIENT = QwenCode()
