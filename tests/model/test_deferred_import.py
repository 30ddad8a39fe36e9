"""detect-secrets' plugins imported without ``requests`` (model/privacy/deferred_import.py):
the secret detector's start leaves it out, and what asks for it later gets the real module."""

from __future__ import annotations

import subprocess
import sys
import types

from session_tui.model.privacy.deferred_import import deferred
from tests.support import REPO

PROBE = """
import sys
import session_tui.model.privacy.secrets as secrets
print("after the import:", "requests" in sys.modules, "urllib3" in sys.modules)
assert secrets.find_secrets("key sk-ant-api03-" + "a1B2c3D4" * 12)[0].kind == "anthropic-key"
print("after a scan:", "requests" in sys.modules, "urllib3" in sys.modules)
import detect_secrets.plugins.aws as aws
post = aws.requests.post  # (what its verify function calls)
import requests
print("on first use:", post is requests.post, type(sys.modules["requests"]).__name__, hasattr(requests, "__version__"))
"""


def test_the_secret_detector_starts_without_requests_and_gets_it_on_first_use():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "after the import: False False",
        "after a scan: False False",
        "on first use: True module True",
    ]


def test_a_module_already_imported_is_left_as_it_is():
    import json

    with deferred("json"):
        assert sys.modules["json"] is json
    name = "session_tui_tests_not_a_module"
    with deferred(name):
        assert isinstance(sys.modules[name], types.ModuleType)
    assert name not in sys.modules  # (the stand-in is out once the block ends)
