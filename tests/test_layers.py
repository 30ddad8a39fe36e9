"""The model never imports Textual (docs/architecture.md#layers); the picker starts with little imported."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.support import REPO

MODEL = REPO / "session_tui" / "model"


def test_importing_the_model_store_and_check_loads_no_textual():
    code = (
        "import sys, session_tui.model, session_tui.store, session_tui.commands.check, session_tui.cli; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')]; "
        "print(bad); raise SystemExit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_model_module_names_textual_or_the_ui():
    for path in MODEL.rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
                if node.level and node.module and node.module.startswith("ui"):
                    names.append("ui")
            for name in names:
                assert not name.startswith(("textual", "rich", "session_tui.ui")), f"{path}: imports {name}"


def test_the_picker_starts_without_the_format_readers_or_the_watcher():
    """A picker with a warm cache draws its first rows before the format
    readers, the session model and watchfiles (anyio) are imported: each
    costs start-up time (``bench/bench_picker.py``)."""
    code = (
        "import sys, session_tui.cli, session_tui.ui.app; "
        "heavy = ('session_tui.model.formats', 'session_tui.model.session.session', 'session_tui.actions.export', "
        "'watchfiles'); "
        "bad = [m for m in heavy if m in sys.modules]; print(bad); raise SystemExit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_format_is_named_outside_its_own_package():
    """A format's knowledge lives in ``model/formats/<name>/`` (and its write
    form in ``store/forms/``): no ``== "<format name>"`` (or ``!=``, ``in``)
    test on a format's name anywhere else (docs/formats.md, the new-format checklist)."""
    from session_tui.model.formats import FORMATS

    names = set(FORMATS)
    root = REPO / "session_tui"
    found = []
    for path in sorted(root.rglob("*.py")):
        inside = path.relative_to(root).parts
        if inside[:2] == ("store", "forms") or (inside[:2] == ("model", "formats") and len(inside) > 3):
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Compare):
                continue
            if not any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops):
                continue
            for side in (node.left, *node.comparators):
                items = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                if any(isinstance(i, ast.Constant) and i.value in names for i in items):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == [], found
