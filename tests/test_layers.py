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
    costs start-up time (``bench/bench_picker.py``). Of the formats' packages
    only what lists and stats a row loads (``formats.sources``, an opencode
    database's rows, a Codex thread's files), never a reader or a client."""
    code = (
        "import sys, session_tui.cli, session_tui.ui.app; "
        "light = {'session_tui.model.formats', 'session_tui.model.formats.sources', "
        "'session_tui.model.formats.codex', 'session_tui.model.formats.codex.thread', "
        "'session_tui.model.formats.opencode', 'session_tui.model.formats.opencode.database'}; "
        "formats = [m for m in sys.modules if m.startswith('session_tui.model.formats.') and m not in light]; "
        "heavy = ('session_tui.model.session.session', 'session_tui.actions.export', 'watchfiles'); "
        "bad = formats + [m for m in heavy if m in sys.modules]; print(bad); raise SystemExit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_formats_registry_loads_a_reader_on_first_use():
    """``model.formats`` names each reader's module and imports it when a
    format is first asked for: importing the package (or a format's light
    module) loads none, and every name in the registry is its reader's."""
    code = (
        "import sys; from session_tui.model.formats import READERS, get_format; "
        "import session_tui.model.formats.opencode.database, session_tui.model.formats.codex.thread; "
        "before = [m for m in sys.modules if m.endswith(('.reader', '.tree', '.chat', '.astorlm'))]; "
        "fmt = get_format('gemini'); "
        "after = {m for m in sys.modules if m.endswith('.reader')}; "
        "from session_tui.model.formats import FORMATS; "
        "ok = not before and after == {'session_tui.model.formats.gemini.reader'} and list(FORMATS) == list(READERS) "
        "and all(f.name == n for n, f in FORMATS.items()) and fmt is FORMATS['gemini']; "
        "print(before, after); raise SystemExit(0 if ok else 1)"
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
