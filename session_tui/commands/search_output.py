"""How ``search`` prints what it found, in files or in the archive: a line
per hit and a summary, or ``--json`` (``{hits, total, took_ms,
indexed_files}``, ``total_exact`` false when counting stopped)."""

from __future__ import annotations

import json
from typing import Any


def print_found(found: Any, indexed: int, as_json: bool, redact: bool) -> int:
    """The hits as ``search`` prints them (``--json``: the contract of docs/cli.md); its exit status."""
    from ..inert_output import print_rendered
    from ..model.sanitize import inert_line, json_escape_invisible

    if as_json:
        out = {
            "hits": [hit.as_json() for hit in found.hits],
            "total": found.total,
            "took_ms": round(found.took_ms, 3),
            "indexed_files": indexed,
        }
        if not found.exact:  # (counting stopped at its budget: at least that many)
            out["total_exact"] = False
        if redact:  # (the snippets are masked already; a file's name may hold a secret too)
            from ..model.privacy.redact import Redactor

            out = Redactor().value(out)
        print_rendered(json_escape_invisible(json.dumps(out, ensure_ascii=False)))
    else:
        from ..model.entries.view import iso_time

        for hit in found.hits:
            off = "  (off the active branch)" if hit.active_branch is False else ""
            when = (iso_time(hit.time) or "")[:19].replace("T", " ")
            print(f"{when}  {inert_line(hit.file)}:{hit.line}  {hit.role} {hit.kind}{off}")
            print(f"    {inert_line(hit.snippet)}")
        shown = f"{len(found.hits)} of " if len(found.hits) < found.total else ""
        hits = f"{'at least ' if not found.exact else ''}{found.total} hit{'s' if found.total != 1 else ''}"
        print(f"{shown}{hits} in {indexed} indexed files ({found.took_ms:.0f} ms)")
    return 0 if found.total else 1
