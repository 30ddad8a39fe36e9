"""The formats' registry: each reader and its client, found by name."""

from __future__ import annotations

import subprocess
import sys

from session_tui.model.formats import CLIENTS, READERS, client_of, get_format
from tests.support import REPO


def test_a_clients_module_gives_the_client_its_reader_has():
    assert set(CLIENTS) <= set(READERS)
    for name in READERS:  # the same object: one home for a client's process names and rules
        assert client_of(name) is get_format(name).client, name
    assert {name for name in READERS if get_format(name).client is not None} == set(CLIENTS)


def test_a_client_is_found_without_any_reader():
    """The picker's badges ask a client for its process names before the first
    frame: that loads no reader and not their base."""
    code = (
        "import sys; from session_tui.model.formats import READERS, client_of\n"
        "assert all(client_of(n) is not None for n in ('claude', 'codex', 'pi', 'qwen'))\n"
        "loaded = [m for m in sys.modules if m.endswith(('.reader', '.base')) and m.startswith('session_tui')]\n"
        "assert not loaded, loaded"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
