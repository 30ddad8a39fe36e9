"""The picker's folder walk: a subfolder it may not read is passed over and
named (as an unprivileged user, in a real process: root reads anything; on
the screen, one notification), and a file has one canonical path however
its root was named."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from session_tui.model.catalog.cache import Catalog
from tests.support import SAMPLES

SAMPLE = SAMPLES / "tree" / "crash-torn.jsonl"

LIST = """
import sys
from session_tui.model.catalog.cache import Catalog
catalog = Catalog(sys.argv[2])
print([info.path for info in catalog.listing([sys.argv[1]])])
print(catalog.unreadable)
"""


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="needs root and setpriv to list as another user (root itself reads an unreadable folder)",
)
def test_an_unreadable_subfolder_is_passed_over_and_named():
    top = Path(tempfile.mkdtemp(prefix="catalog-unreadable-"))  # (not under pytest's tmp dir: nobody cannot enter it)
    try:
        root, cache = top / "root", top / "cache"
        for name in ("ok", "secret"):
            (root / name).mkdir(parents=True)
            shutil.copy(SAMPLE, root / name / "a.jsonl")
            os.chmod(root / name / "a.jsonl", 0o644)
        cache.mkdir()
        shutil.chown(cache, "nobody")
        for folder in (top, root, root / "ok"):
            os.chmod(folder, 0o755)
        os.chmod(root / "secret", 0o700)
        done = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
            + [sys.executable, "-c", LIST, str(root), str(cache)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert done.stdout.splitlines() == [repr([str(root / "ok" / "a.jsonl")]), repr([str(root / "secret")])]
    finally:
        shutil.rmtree(top)


def test_a_symlinked_or_relative_root_lists_canonical_paths(tmp_path, monkeypatch):
    real = tmp_path / "sessions"
    (real / "p").mkdir(parents=True)
    shutil.copy(SAMPLE, real / "p" / "a.jsonl")
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(real)
    catalog = Catalog(str(tmp_path / "cache"))
    expected = [str(real / "p" / "a.jsonl")]
    for root in (str(tmp_path / "link"), ".", "p/..", str(tmp_path / "link" / "p")):
        assert [info.path for info in catalog.listing([root])] == expected
    assert catalog.read("p/a.jsonl").path == catalog.read(str(tmp_path / "link" / "p" / "a.jsonl")).path == expected[0]
    assert [info.path for info in catalog.remembered([str(tmp_path / "link")])] == expected


async def test_the_picker_passes_over_an_unreadable_folder_with_one_notice(tmp_path, monkeypatch):
    """(Injected: in this process, as root, the folder would be read.)"""
    from session_tui.ui.app import SessionApp
    from tests.ui.pilot_support import picker_read, wait_for

    root = tmp_path / "sessions"
    for name in ("ok", "secret"):
        (root / name).mkdir(parents=True)
        shutil.copy(SAMPLE, root / name / "a.jsonl")
    secret = str(root / "secret")
    scandir = os.scandir

    def refusing(path="."):
        if os.fspath(path) == secret:
            raise PermissionError(13, "Permission denied", secret)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", refusing)
    async with SessionApp([str(root)], watch=False).run_test(size=(140, 30)) as pilot:
        screen = await picker_read(pilot, 1)
        await wait_for(pilot, lambda: pilot.app._notifications, what="the notice")
        assert [n.message for n in pilot.app._notifications] == [f"passing over {secret}: permission denied"]
        assert [info.path for info in screen.table.rows] == [str(root / "ok" / "a.jsonl")]
