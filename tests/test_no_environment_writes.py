"""Settings travel in ``Settings``, not through the environment (issue 40):
no module of session_tui/ writes ``os.environ``, not even a default for a
library (Textual's ``TEXTUAL_FPS`` is the user's to set)."""

from __future__ import annotations

import ast

from tests.support import REPO

WRITERS = {"setdefault", "update", "pop", "popitem", "clear", "putenv", "unsetenv"}


def _is_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        or isinstance(node, ast.Name)
        and node.id == "environ"
    )


def writes(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else []
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        if any(isinstance(t, ast.Subscript) and _is_environ(t.value) for t in targets):
            lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITERS:
            owner = node.func.value
            if _is_environ(owner) or node.func.attr in {"putenv", "unsetenv"}:
                lines.append(node.lineno)
    return sorted(lines)


def test_no_module_writes_the_environment():
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for path in sorted((REPO / "session_tui").rglob("*.py"))
        for line in writes(ast.parse(path.read_text(), str(path)))
    ]
    assert not found, found


def test_the_scan_sees_each_kind_of_write():
    source = (
        "import os\nos.environ['A'] = '1'\nos.environ.setdefault('B', '2')\ndel os.environ['A']\nos.putenv('C', '3')\n"
    )
    assert writes(ast.parse(source)) == [2, 3, 4, 5]
