"""Problems found in a session file, as reported by `check` and the UI."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ProblemKind(StrEnum):
    TORN_TAIL = "torn_tail"
    BAD_LINE = "bad_line"
    MISSING_PARENT = "missing_parent"
    CYCLE = "cycle"
    DUPLICATE_ID = "duplicate_id"
    DANGLING_TOOL_CALL = "dangling_tool_call"
    ORPHAN_TOOL_RESULT = "orphan_tool_result"

    @property
    def words(self) -> str:
        """The kind as a user says it (the value is the ``check --json`` contract's)."""
        return _WORDS[self]


_WORDS = {
    ProblemKind.TORN_TAIL: "torn last line",
    ProblemKind.BAD_LINE: "bad line",
    ProblemKind.MISSING_PARENT: "missing parent",
    ProblemKind.CYCLE: "cycle",
    ProblemKind.DUPLICATE_ID: "duplicate id",
    ProblemKind.DANGLING_TOOL_CALL: "call without result",
    ProblemKind.ORPHAN_TOOL_RESULT: "result without call",
}


ERROR = "error"  # breaks a resume with the file's own client, or loses data
WARNING = "warning"  # the client copes with it on resume, in its own way (the message says how)


@dataclass(frozen=True, order=True)
class Problem:
    line: int  # 1-based physical line
    kind: ProblemKind
    message: str
    severity: str = ERROR

    def as_json(self) -> dict[str, str | int]:
        return {"kind": self.kind.value, "line": self.line, "message": self.message, "severity": self.severity}
