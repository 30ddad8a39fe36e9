from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support import SAMPLES


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """A private copy of sample_sessions/ in a tmp dir (tests may change it)."""
    dest = tmp_path / "samples"
    shutil.copytree(SAMPLES, dest)
    return dest
