"""Write docs/cli.md, the command-line reference, and the README's table
of verbs from the parser itself: they and ``--help`` cannot disagree
(tests/test_docs.py checks that the committed text is what this writes).

    python scripts/cli_reference.py          # write docs/cli.md and the README's table
    python scripts/cli_reference.py --check  # exit 1 if either is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from session_tui.cli import VERBS, build_open_parser, build_parser

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "cli.md"
README = REPO / "README.md"
TABLE_START, TABLE_END = "<!-- verbs: scripts/cli_reference.py -->", "<!-- /verbs -->"
WIDTH = 100


def _help(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    return parser.format_help().rstrip()


def _sub(verb: str) -> argparse.ArgumentParser:
    root = build_parser(verb)
    return next(a for a in root._actions if isinstance(a, argparse._SubParsersAction)).choices[verb]


def _summary(verb: str) -> str:
    root = build_parser(verb)
    action = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    return str(action._choices_actions[0].help)


def table() -> str:
    rows = [
        "| command | what it does |",
        "|---|---|",
        "| `session-tui [PATH ...]` | open a session, or the picker over folders |",
    ]
    for verb in VERBS:
        said = _summary(verb).replace("|", "\\|")
        rows.append(f"| [`{verb}`](docs/cli.md#session-tui-{verb}) | {said} |")
    return "\n".join([TABLE_START, *rows, TABLE_END])


def readme(text: str) -> str:
    start, end = text.index(TABLE_START), text.index(TABLE_END) + len(TABLE_END)
    return text[:start] + table() + text[end:]


def render() -> str:
    parts = [
        "# Command-line reference",
        "",
        "Generated from the parser by `scripts/cli_reference.py`: what each `--help` prints.",
        "Every command also takes `--config FILE` (settings: see [the terminal UI](guide/terminal-ui.md#settings))",
        "and `--storage-option KEY=VALUE` (see [remote sessions](guide/remote.md)).",
        "",
        "## session-tui PATH",
        "",
        "```text",
        _help(build_open_parser()),
        "```",
    ]
    for verb in VERBS:
        parser = _sub(verb)
        parts += ["", f"## session-tui {verb}", "", "```text", _help(parser), "```"]
        for inner in (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)):
            for name, sub in inner.choices.items():  # (a verb of its own verbs: archive init, archive push)
                parts += ["", f"### session-tui {verb} {name}", "", "```text", _help(sub), "```"]
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    wanted = {PAGE: render(), README: readme(README.read_text())}
    if "--check" in argv:
        stale = [path.name for path, text in wanted.items() if not path.exists() or path.read_text() != text]
        if stale:
            print(f"{', '.join(stale)} stale: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    for path, text in wanted.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
