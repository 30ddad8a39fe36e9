"""`session-tui resume FILE --dry-run`: the user's own client resumes a copy
of the session against a fake model API on 127.0.0.1, in a throwaway home;
what it sends is checked with the APIs' rules and against session-tui's
context at the leaf.

Nothing of the user's is read or written but the session file (read) and
the client's program: HOME, the client's config dir and its sessions folder
are a new temporary directory, removed afterwards; the key is fake; the
switches that turn off telemetry, error reports and update checks are set;
the API answers "ok" as text, so the client runs no tool.

Sealed where the kernel allows: the client runs in a network namespace of
its own with only loopback (``unshare -n``, or ``unshare -rn`` unprivileged),
where a launcher binds the fake API's socket and hands it to this process
before it becomes the client; otherwise only the environment turns off what
the clients reach out for. The verdict says which held. The client runs in a
process group of its own, killed whole at the end (no orphans).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model.errors import Cancelled, SessionError
from ..model.formats.client import Client, DryRunHome
from ..model.resume.api_rules import GEMINI, RESPONSES
from ..model.resume.clients import client_for
from ..model.resume.plan import FORK, SET_LEAF, ResumePlan, ResumeRefused, plan_resume
from ..model.resume.steps import PROMPT, Step, context_steps, differences, request_steps
from ..model.resume.verdicts import remember
from ..model.sanitize import inert_line, json_escape_invisible
from ..model.session.session import Session, open_session
from ..store import Refused, edits
from .export import export
from .fake_api import GEMINI_PATH, Captured, compacting
from .resume import make_ready
from .sealed_run import SEALED, UNSEALED, Box, seal_prefix

TIMEOUT = 90.0  # seconds a client may take (they start slowly)
#: the model a dry run asks for when not told (--model): none, as ``resume``
#: runs the client. Claude Code and pi then resume with the session's own
#: model (what session-tui's context assumes: Claude Code sends the thinking
#: of that model's responses only); Codex with its own default (resuming a
#: session of another model, it has the history compacted first:
#: ``compaction_request``)
DEFAULT_MODEL: dict[str, str] = {}
#: every client's (each adds its own: ``Client.dry_run_env``, ``dry_run_home``)
QUIET_ENV = {"LANG": "C.UTF-8", "NO_COLOR": "1"}


def base_env(client: Client, run: Path) -> dict[str, str]:
    """A dry run's environment before its home: PATH, the throwaway HOME and
    the client's own quiet switches and fake key, none of another client's."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(run), **QUIET_ENV, **client.dry_run_env}


class DryRunFailed(Exception):
    """The dry run could not be made; ``str()`` says why in one line."""


@dataclass
class Report:
    client: Client
    client_version: str
    model: str | None
    accepted: bool
    rejection: dict[str, Any] | None
    wire: str
    request: list[Any]
    agrees: bool
    differences: list[str]
    sealed: str = ""  # which guarantee held: "sealed: …" or "unsealed: …"
    sent: list[Step] = field(default_factory=list)  # the request as steps, the new turn left out
    added: set[int] = field(default_factory=set)  # indexes of ``sent`` not in the file's own context
    notes: list[str] = field(default_factory=list)
    #: the conversation of the request by which the client had the history compacted first (Codex, resumed
    #: with another model than the session's): what is compared; None when it made none
    compaction: list[Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "client": self.client.name,
            "client_version": self.client_version,
            "model": self.model,
            "accepted": self.accepted,
            "rejection": self.rejection,
            "wire": self.wire,
            "request": self.request,
            "agrees": self.agrees,
            "differences": self.differences,
            "sealed": self.sealed,
            "notes": self.notes,
            "compaction_request": self.compaction,
        }

    def text(self) -> str:
        out = [f"{self.client.title} {self.client_version}, model {self.model or '?'}", self.sealed]
        if self.accepted:
            out.append("accepted: the API takes this conversation")
        else:
            rejection = self.rejection or {}
            out.append(f"REJECTED: {rejection.get('status')} {rejection.get('message')}")
        out.append(
            "agrees with session-tui's context at the leaf"
            if self.agrees
            else f"differs from session-tui's context at the leaf ({len(self.differences)}):"
        )
        out.extend(f"  {line}" for line in self.differences)
        out.append(f"what it sends ({len(self.sent)} steps; + the client adds it):")
        for n, step in enumerate(self.sent):
            out.append(f"{'+' if n in self.added else ' '} {n + 1:>4}  {step.show()}")
        out.extend(f"note: {note}" for note in self.notes)
        return "\n".join(inert_line(line) for line in out)


def find_program(client: Client, given: str | None) -> str:
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise DryRunFailed(f"--client-bin {given}: not an executable file")
        return given
    found = shutil.which(client.program)
    if found is None:
        raise DryRunFailed(f"{client.program} is not on PATH ({client.title} not installed?): give --client-bin PATH")
    return found


def client_version(program: str, env: dict[str, str], client: Client, seal: list[str] | None = None) -> str:
    try:
        done = subprocess.run(
            [*(seal or []), program, "--version"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DryRunFailed(f"{program} --version did not answer: {exc}") from None
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", done.stdout + done.stderr)
    if match is None:
        raise DryRunFailed(f"{program} --version gave no version: is it {client.title}?")
    if match.group(1) != client.pinned.split(".")[0]:
        raise DryRunFailed(
            f"{client.title} {match.group(0)} is not supported: its resume was checked against {client.pinned}"
        )
    return match.group(0)


def _setup(client: Client, session: Session, run: Path, work: Path, url: str, model: str | None) -> DryRunHome:
    """The client's throwaway home under ``run``, made: every file it names
    copied or written there (its paths checked by the client to stay inside)."""
    home = client.dry_run_home(session, str(run), str(work), url, model)
    root = os.path.realpath(run)
    for target in [dst for _, dst in home.copies] + [dst for _, dst in home.trees] + [dst for dst, _ in home.files]:
        if os.path.commonpath([root, os.path.realpath(target)]) != root:
            raise DryRunFailed(f"{target}: outside the dry run's folder: refused")
        os.makedirs(os.path.dirname(target), exist_ok=True)
    _copy(home)
    for folder, target in home.trees:  # (no links followed)
        shutil.copytree(folder, target, ignore=_links)
    for target, data in home.files:
        Path(target).write_bytes(data)
    copied = {os.path.realpath(dst) for _, dst in home.copies}
    for database, statement, values in home.updates:
        if os.path.realpath(database) not in copied:
            raise DryRunFailed(f"{database}: not a copy made for the dry run: refused")
        _update_copy(database, statement, values)
    return home


COPY_TRIES = 5  # copies of a database and its WAL, again while its writer changed them


def _copy(home: DryRunHome) -> None:
    """The copies made; a set that must be copied as one (``home.consistent``:
    a database and its WAL, which a live writer changes together) copied
    again until none of them changed while copied. A file of such a set that
    is gone (a WAL checkpointed away) is left out, and so is its copy."""
    for _ in range(COPY_TRIES):
        before = [_stamp(path) for path in home.consistent]
        for source, target in home.copies:
            try:
                shutil.copyfile(source, target)
            except FileNotFoundError:
                if not home.consistent:
                    raise
                Path(target).unlink(missing_ok=True)
        if [_stamp(path) for path in home.consistent] == before:
            return
    raise DryRunFailed(f"{home.consistent[0]}: written during each of {COPY_TRIES} copies: try again")


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _update_copy(database: str, statement: str, values: tuple[str, ...]) -> None:
    """One UPDATE of one row in the dry run's copy of a database (opencode's
    session row). Only ever the copy: the original is never opened by SQLite."""
    import sqlite3

    if not statement.lstrip().lower().startswith("update "):
        raise DryRunFailed(f"{database}: only an update of the copy is made: refused")
    try:
        conn = sqlite3.connect(database)
        try:
            with conn:
                changed = conn.execute(statement, values).rowcount
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise DryRunFailed(f"{database}: the copy could not be updated ({exc})") from None
    if changed != 1:
        raise DryRunFailed(f"{database}: the copy has no row to update ({changed} changed)")


def _links(folder: str, names: list[str]) -> set[str]:
    """``copytree``'s ignore: the symbolic links (a hostile folder's way out)."""
    return {name for name in names if os.path.islink(os.path.join(folder, name))}


def _argv(client: Client, program: str, session_id: str, path: str, model: str | None) -> list[str]:
    """The client's command; the id a UUID (``Client.argv`` refuses any other),
    Codex's positionals after ``--``, pi's path absolute: no value reads as a flag."""
    if model is not None and model.startswith("-"):
        raise DryRunFailed(f"--model {model}: not a model name")
    return client.dry_run_argv(program, client.argv(session_id, path)[1:], model, PROMPT)


def _last_user_text(wire: str, messages: list[Any]) -> str:
    for message in reversed(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        if wire == RESPONSES and message.get("type", "message") != "message":
            continue
        content = message.get("parts" if wire == GEMINI else "content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b)
        return ""
    return ""


def _path_model(path: str) -> str | None:
    """The model a Gemini request names in its path (``/models/M:method``)."""
    found = GEMINI_PATH.search(path.split("?")[0])
    return found.group(1) if found else None


def main_request(requests: list[Captured]) -> Captured | None:
    """The request that carries the resumed conversation: the first model
    request whose last user turn ends with the prompt (side requests, such
    as a title's, do not); else the longest."""
    model = [r for r in requests if r.wire is not None and isinstance(r.body, dict)]
    for request in model:
        if _last_user_text(request.wire or "", _conversation(request)).strip().endswith(PROMPT):
            return request
    return max(model, key=lambda r: len(_conversation(r)), default=None)


def compaction_request(requests: list[Captured], main: Captured | None) -> Captured | None:
    """The request by which Codex had the history compacted before the turn
    (its input ends with a ``compaction_trigger`` item), if it made one."""
    return next(
        (
            r
            for r in requests
            if r.wire == RESPONSES
            and isinstance(r.body, dict)
            and compacting(r.body)
            and (main is None or r.at <= main.at)
        ),
        None,
    )


def _conversation(request: Captured) -> list[Any]:
    body = request.body if isinstance(request.body, dict) else {}
    found = body.get("input" if request.wire == RESPONSES else "contents" if request.wire == GEMINI else "messages")
    return found if isinstance(found, list) else []


def dry_run(
    path: str,
    leaf_ref: str | None,
    format: str | None,
    program: str | None,
    model: str | None,
    timeout: float = TIMEOUT,
    should_stop: Callable[[], bool] | None = None,
) -> Report:
    """Run the dry run; raises DryRunFailed, ResumeRefused, SessionError, Refused."""
    with open_session(path, format) as session:
        client = client_for(session.format.name)
        if client is None:
            plan_resume(session, None, {})  # raises with the reason
            raise AssertionError
        leaf = None if leaf_ref is None else edits.resolve_entry(session, leaf_ref)
        plan_resume(session, leaf, {})  # the same refusals as a resume (sub-agent, empty)
        program = find_program(client, program)
        model = model or DEFAULT_MODEL.get(client.name)
        run = Path(tempfile.mkdtemp(prefix="session-tui-dry-run-"))
        output = tempfile.TemporaryFile()
        seal = seal_prefix()
        box = Box.open(seal, output)
        try:
            work = run / "work"
            work.mkdir()
            base = base_env(client, run)
            version = client_version(program, base, client, seal if box.sealed else None)
            home = _setup(client, session, run, work, box.server.url, model)
            copy, notes = Path(home.copy), home.notes
            env = {**base, **home.env}
            resumed, session_id = _at_leaf(client, copy, session, leaf)
            # what the client must send: session-tui's context at the leaf of the file asked about
            # (at a leaf the client would not continue at, the fork or leaf move must lead it there)
            session.resume_model = model  # (the context as sent to the model asked for; None: the session's)
            ours = json.loads(export(session, "json", leaf, context=True))
            own = [s.message for s in _plain_context(session, leaf)]
            argv = _argv(client, program, session_id, str(resumed), model)
            returncode = _wait(box.start(argv, work, env), timeout, client, should_stop)
            output.seek(0)
            said = output.read()[-8192:].decode("utf-8", "replace")
            requests = box.server.requests()
            request = main_request(requests)
            compaction = compaction_request(requests, request)
            if request is None:
                tail = said.strip().splitlines()[-1:] or ["no output"]
                raise DryRunFailed(f"{client.title} sent no model request (exit {returncode}: {tail[0][:200]})")
        finally:
            box.close()
            output.close()
            shutil.rmtree(run, ignore_errors=True)
    wire = request.wire or ""
    conversation = _conversation(request)
    if compaction is not None:  # the history went in the compaction request; the turn with its summary
        notes.append(
            f"{client.title} had the history compacted before the turn (it resumes with {model or 'its own model'},"
            " not the session's): the history it sent to be compacted is what is compared"
        )
    sent = request_steps(wire, _conversation(compaction) if compaction is not None else conversation)
    mine = context_steps(client.name, ours)
    found = differences(mine, sent)
    plain = context_steps(client.name, own)
    body = request.body if isinstance(request.body, dict) else {}
    return Report(
        client,
        version,
        body.get("model") if isinstance(body.get("model"), str) else _path_model(request.path),
        request.status == 200,
        None if request.status == 200 else {"status": request.status, "message": request.rejection or ""},
        wire,
        conversation,
        not found,
        found,
        SEALED if box.sealed else UNSEALED,
        sent,
        _added(plain, sent),
        notes,
        _conversation(compaction) if compaction is not None else None,
    )


def _plain_context(session: Session, leaf: int | None = None) -> list[Any]:
    from ..model.session.context import resume_items

    return [s for s in resume_items(session, leaf) if not s.added_by]


def _added(plain: list[Step], sent: list[Step]) -> set[int]:
    import difflib

    a, b = [s.key() for s in plain], [s.key() for s in sent]
    out: set[int] = set()
    for op, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            out.update(range(j1, j2))
    return out


def _at_leaf(client: Client, copy: Path, session: Session, leaf: int | None) -> tuple[Path, str]:
    """The copy made to continue at ``leaf`` as a resume would (a fork in
    the client's folder, pi's leaf moved): (the file resumed, its id)."""
    with open_session(copy, session.format.name) as opened:
        if leaf is None or leaf == opened.active_leaf():
            return copy, client.session_id_of(opened) or str(copy)
        write = SET_LEAF if client.moves_leaf else FORK
        plan = ResumePlan(client, leaf, None, client.session_id_of(opened), write, str(copy.parent))
        try:
            ready = make_ready(opened, plan, force=True)  # (a copy in a new folder: no agent writes it)
        except (Refused, ResumeRefused) as exc:  # (said of the user's session, not of its throwaway copy)
            raise type(exc)(str(exc).replace(str(copy), session.path)) from None
        return Path(ready.file), ready.session_id


def run_dry_run(args: Any) -> int:
    try:
        report = dry_run(args.file, args.leaf, args.format, args.client_bin, args.model, args.timeout)
    except (DryRunFailed, ResumeRefused, SessionError, Refused, OSError) as exc:
        print(f"session-tui resume --dry-run: {inert_line(exc)}", file=sys.stderr)
        return 2
    remember_verdict(args.file, report)
    print(json_escape_invisible(json.dumps(report.as_json(), ensure_ascii=False)) if args.json else report.text())
    return 0 if report.accepted else 1


def remember_verdict(path: str, report: Report) -> None:
    """Keep whether the client accepts the file as it is (``check`` and the problems list say it)."""
    rejection = report.rejection or {}
    remember(path, report.client.title, report.client_version, report.accepted, str(rejection.get("message", "")))


def _wait(
    child: subprocess.Popen[bytes],
    timeout: float,
    client: Client,
    should_stop: Callable[[], bool] | None,
) -> int:
    """Wait for the client's end: its exit status. Stopped at the time limit
    (DryRunFailed) or when ``should_stop`` says so (Cancelled); its process
    group is killed whole either way (``Box.close``)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return child.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            if should_stop is not None and should_stop():
                raise Cancelled() from None
            if time.monotonic() > deadline:
                raise DryRunFailed(f"{client.title} did not finish within {timeout:.0f} s") from None
