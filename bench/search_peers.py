"""The peers bench_search.py runs side by side with session-tui, when installed
(``pip install -e '.[bench]'``): agentsview and claude-code-log, each on the
archive's Claude Code part (a ``~/.claude/projects`` layout), each in a
temporary HOME of its own, offline.

Each peer gives: its cold build (wall and the CPU of its processes), the time
of each query with its own search, the sessions each query found (for recall)
and how long an appended record takes to be found.
"""

from __future__ import annotations

import json
import resource
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from anchors import ENV  # (bench/ is on the path: bench_search puts it there)

BIN = Path(sys.executable).parent


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: list[str], env: dict[str, str], timeout: float = 3600) -> tuple[float, float, int]:
    """(wall, CPU of the process and its waited-for children, exit status)."""
    cpu, began = children_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, timeout=timeout, check=False)
    return time.perf_counter() - began, children_cpu() - cpu, done.returncode


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Peer:
    name = ""
    search_mode = ""
    note = ""  # what the build spent its time on, where the peer tells

    def __init__(self, projects: Path, work: Path) -> None:
        self.projects, self.work = projects, work
        self.home = work / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.env = dict(ENV)
        self.env["HOME"] = str(self.home)

    @classmethod
    def installed(cls) -> bool:
        raise NotImplementedError

    def build(self) -> tuple[float, float]:
        raise NotImplementedError

    def start(self) -> None:
        """Whatever must run for queries (a server)."""

    def stop(self) -> None:
        """Ends what start started."""

    def query(self, text: str, limit: int = 500) -> tuple[float, set[str]]:
        """(milliseconds, session ids found)."""
        raise NotImplementedError

    def index_bytes(self) -> int:
        raise NotImplementedError

    def target(self, rel: str) -> Path:
        """The file (relative to the projects folder) as this peer reads it."""
        return self.projects / rel

    def refresh(self) -> None:
        """What the peer does to take an appended record in (nothing where it watches the files)."""


class AgentsView(Peer):
    """agentsview 0.46.1 (a Go binary in its wheel): ``sync`` builds its SQLite archive; queries go to its HTTP
    API, ``/api/v1/search/content`` (its default mode, substring over messages, tool input and results, sub-agents
    included), through a ``serve`` that watches the files."""

    name = "agentsview"
    search_mode = "substring"

    def __init__(self, projects: Path, work: Path) -> None:
        super().__init__(projects, work)
        self.env |= {"CLAUDE_PROJECTS_DIR": str(projects), "AGENTSVIEW_DATA_DIR": str(work / "data")}
        self.env |= {"CODEX_SESSIONS_DIR": str(work / "none"), "AGENTSVIEW_NO_DAEMON": "1"}
        self.server: subprocess.Popen[bytes] | None = None
        self.port = 0

    @classmethod
    def installed(cls) -> bool:
        return (BIN / "agentsview").exists()

    def build(self) -> tuple[float, float]:
        wall, cpu, status = run_timed([str(BIN / "agentsview"), "sync"], self.env)
        if status:
            raise RuntimeError(f"agentsview sync exited {status}")
        return wall, cpu

    def start(self) -> None:
        self.port = _free_port()
        env = {k: v for k, v in self.env.items() if k != "AGENTSVIEW_NO_DAEMON"}
        argv = [str(BIN / "agentsview"), "serve", "--no-browser", "--no-update-check", "--port", str(self.port)]
        self.server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                self.query("zzzqqq-nothing")
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("agentsview serve did not answer")

    def stop(self) -> None:
        if self.server:
            self.server.terminate()
            self.server.wait(timeout=30)

    def query(self, text: str, limit: int = 500) -> tuple[float, set[str]]:
        params = {"pattern": text.replace('"', ""), "include_children": "true", "limit": str(limit)}
        if self.search_mode != "substring":
            params["mode"] = self.search_mode
        url = f"http://127.0.0.1:{self.port}/api/v1/search/content?" + urllib.parse.urlencode(params)
        began = time.perf_counter()
        with urllib.request.urlopen(url, timeout=120) as answer:
            body = json.loads(answer.read())
        ms = (time.perf_counter() - began) * 1000
        return ms, {m.get("session_id", "") for m in body.get("matches") or []}

    def index_bytes(self) -> int:
        return sum(p.stat().st_size for p in (self.work / "data").glob("sessions.db*"))


CCL_BUILD = """
import json, sys, time
from pathlib import Path
from claude_code_log.converter import process_projects_hierarchy
from claude_code_log.cli import _build_search_index
from claude_code_log.cache import get_cache_db_path
from claude_code_log.search import DEFAULT_INDEX_FIELDS
projects = Path(sys.argv[1])
began = time.perf_counter()
process_projects_hierarchy(projects, silent=True)
converted = time.perf_counter()
_build_search_index(get_cache_db_path(projects), DEFAULT_INDEX_FIELDS, rebuild=False)
phases = {"conversion": converted - began, "index": time.perf_counter() - converted}
(projects.parent / "phases.json").write_text(json.dumps(phases))
"""

CCL_QUERY = """
import json, sqlite3, sys, time
from claude_code_log.search import SEARCH_FIELDS, search
conn = sqlite3.connect(sys.argv[1])
for line in sys.stdin:
    ask = json.loads(line)
    began = time.perf_counter()
    try:
        hits = search(conn, ask["q"], fields=SEARCH_FIELDS, limit=ask["limit"])
        sessions = sorted({h.session_id or "" for h in hits})
    except Exception as e:
        sessions = ["error: " + type(e).__name__]
    print(json.dumps({"ms": (time.perf_counter() - began) * 1000, "sessions": sessions}), flush=True)
"""


class ClaudeCodeLog(Peer):
    """claude-code-log 1.7.0: what its ``serve`` does before it serves (the conversion, which fills its cache
    database, then ``ensure_index``, its FTS5 table), on a copy of the projects (it writes HTML beside them);
    queries through its ``search.search`` in one process, every field group (its default leaves tool results
    out)."""

    name = "claude-code-log"

    def __init__(self, projects: Path, work: Path) -> None:
        copy = work / "projects"
        shutil.copytree(projects, copy)
        super().__init__(copy, work)
        self.worker: subprocess.Popen[str] | None = None

    @classmethod
    def installed(cls) -> bool:
        return (BIN / "claude-code-log").exists()

    def build(self) -> tuple[float, float]:
        wall, cpu, status = run_timed([sys.executable, "-c", CCL_BUILD, str(self.projects)], self.env)
        if status:
            raise RuntimeError(f"claude-code-log build exited {status}")
        phases = json.loads((self.work / "phases.json").read_text())
        self.note = f"its conversion (HTML pages, cache database) {phases['conversion']:.1f} s,"
        self.note += f" its FTS5 index {phases['index']:.1f} s"
        return wall, cpu

    def refresh(self) -> None:
        self.build()

    def start(self) -> None:
        argv = [sys.executable, "-c", CCL_QUERY, str(self.projects / "claude-code-log-cache.db")]
        self.worker = subprocess.Popen(argv, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def stop(self) -> None:
        if self.worker:
            assert self.worker.stdin
            self.worker.stdin.close()
            self.worker.wait(timeout=30)

    def query(self, text: str, limit: int = 500) -> tuple[float, set[str]]:
        assert self.worker and self.worker.stdin and self.worker.stdout
        self.worker.stdin.write(json.dumps({"q": text, "limit": limit}) + "\n")
        self.worker.stdin.flush()
        answer = json.loads(self.worker.stdout.readline())
        return answer["ms"], set(answer["sessions"])

    def index_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.projects.glob("claude-code-log-cache.db*"))


PEERS: tuple[type[Peer], ...] = (AgentsView, ClaudeCodeLog)
