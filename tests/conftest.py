from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.support import SAMPLES

# The suite keeps the bytecode it compiles, whatever the environment says: with PYTHONDONTWRITEBYTECODE set
# (as in some sandboxes and CI images), each of the four workers took 8.5 s instead of 3.5 s to collect,
# and every CLI subprocess compiled the package again. (Set here, the workers and the subprocesses inherit it.)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


def pytest_configure(config) -> None:
    """In the process that starts the workers, before it starts them: the package's bytecode, compiled
    once. On a clean clone, six workers and their warm CLI servers (tests/warm_cli.py) each compiled it
    on its first import (it was not written yet): the first run took 269-282 s, the next 241 s."""
    if hasattr(config, "workerinput"):  # (a worker: the controller did it)
        return
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "session_tui"), quiet=1)
    # the tests' own helpers too (tests/support.py, tests/terminal.py...); the test modules pytest rewrites:
    compileall.compile_dir(str(Path(__file__).parent), quiet=1, rx=re.compile(r"(/test_[^/]*|/conftest)\.py$"))
    _rewrite_test_modules(config)


def _rewrite_test_modules(config) -> None:
    """The test modules' bytecode with pytest's assertions rewritten, written where pytest's import hook
    looks for it, for each module whose copy is missing or older than its source: on a clean clone, each
    of six workers rewrote all ~130 modules itself, at once (a worker's collection 4.9 s -> 9.2 s). Uses
    pytest's own rewrite (private names: without them, the workers do it as before)."""
    try:
        from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc_fp, get_cache_dir
    except ImportError:  # pragma: no cover - another pytest
        return
    import importlib.util
    import struct

    for source in Path(__file__).parent.rglob("*.py"):
        if not (source.name.startswith("test_") or source.name == "conftest.py"):
            continue
        pyc = get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)
        stat = source.stat()
        stamp = struct.pack("<LL", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)  # (as pytest writes it)
        header = importlib.util.MAGIC_NUMBER + bytes(4) + stamp
        try:
            with open(pyc, "rb") as f:
                if f.read(16) == header:
                    continue
        except OSError:
            pass
        written, code = _rewrite_test(source, config)
        pyc.parent.mkdir(exist_ok=True)
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(partial, "wb") as f:
            _write_pyc_fp(f, written, code)
        os.replace(partial, pyc)


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """A private copy of sample_sessions/ in a tmp dir (tests may change it)."""
    dest = tmp_path / "samples"
    shutil.copytree(SAMPLES, dest)
    return dest


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch) -> None:
    """The picker's metadata cache in a tmp dir, never the user's (CLI
    subprocesses inherit it through the environment)."""
    monkeypatch.setenv("SESSION_TUI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch) -> None:
    """No config file of the user's is read (an empty config folder; a test names its own with --config)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    monkeypatch.delenv("SESSION_TUI_CONFIG", raising=False)


@pytest.fixture(autouse=True)
def calls_stuck_at_once(monkeypatch) -> None:
    """A call without a result is a problem at once, however recent the file
    (tests write their files a moment before checking them): for what reads
    the settings as the command line does (a CLI run, an app given no
    Settings). The model itself reads no environment: an in-process test
    passes ``stuck_after`` as the command line would."""
    monkeypatch.setenv("SESSION_TUI_STUCK_AFTER", "0")


#: the markers a test gets from where it is (see pyproject's markers): tests/remote is the remote servers'
REMOTE = Path(__file__).parent / "remote"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``remote`` for the tests under tests/remote, ``terminal`` for those of a module that runs the app in a
    pseudo-terminal (it or its module imports tests/terminal.py's Terminal)."""
    from tests.terminal import Terminal

    for item in items:
        path = Path(str(item.path))
        if REMOTE in path.parents:
            item.add_marker(pytest.mark.remote)
        module = getattr(item, "module", None)
        code = getattr(getattr(item, "function", None), "__code__", None)
        imported = module is not None and any(value is Terminal for value in vars(module).values())
        if imported or (code is not None and "Terminal" in code.co_varnames):  # imported where it is used
            item.add_marker(pytest.mark.terminal)
    # the slow tests first (pyproject's ``--dist worksteal`` spreads them over the workers, and a worker left
    # idle takes half of another's queue): handed out last, in collection order (tests/ui and tests/store come
    # late in it), they ran alone at the end while the other workers had finished
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: three workers a core. Much of the suite waits on other
    processes (apps in a pseudo-terminal, real clients, servers), so one a
    core leaves the cores idle: on 2 cores, 351 s with 2 workers, 249 s with 4
    (459 s of CPU); on 2026-12-07's machine 236 s with 4 and 195 s with 6
    (~330 s of CPU, the cores 145 % busy with 4)."""
    import os

    return 3 * (os.cpu_count() or 1)
