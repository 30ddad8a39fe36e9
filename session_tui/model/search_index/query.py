"""The query language: words, ``"exact phrases"`` and filters.

- a word matches wherever it is in a record's strings, ignoring case;
- a quoted phrase matches exactly as typed (case, punctuation, spaces):
  ids, paths, hashes, commands;
- ``role:user|assistant|tool|summary``, ``tool:NAME``, ``error:`` (failed
  tool results only), ``path:SUBSTRING`` (tool calls whose arguments hold
  it), ``model:NAME`` (a substring of the model), ``format:NAME``,
  ``after:DATE``, ``before:DATE`` (``2026-03-14``, or with a time),
  ``in:PATH`` (files under it), ``branch:active`` (entries on the active
  branch of their session), ``secret:`` (records that held a secret: the
  index keeps them masked), ``secret:KIND`` (of that kind: ``aws-access-key``…);
  ``machine:NAME`` (the sessions pushed from that machine: a search of the
  team archive only; several: any of them).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import datetime

from .marks import mark

FILTERS = ("role", "tool", "error", "path", "model", "format", "after", "before", "in", "branch", "secret", "machine")
ROLES = ("user", "assistant", "tool", "summary", "system")
GRAM = 3  # a query needs a string of 3 characters or more (or a filter)
_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')
# a JSON escape of a character that may be one of a plain term's, or lower to one (the Kelvin sign, ``İ``);
# ``\\`` before it may make it no escape: taken as one all the same (the record is then parsed, as before)
ESCAPED = re.compile(rb"\\u(?:00[2-7][0-9A-Fa-f]|212[aA]|0130)")


class QueryError(ValueError):
    """A query that cannot be run; ``str()`` says why, in one line."""


@dataclass
class Query:
    words: list[str] = field(default_factory=list)  # ignoring case
    phrases: list[str] = field(default_factory=list)  # exactly
    role: str | None = None
    tool: str | None = None
    error: bool = False
    paths: list[str] = field(default_factory=list)  # in tool calls' arguments
    model: str | None = None
    format: str | None = None
    after: float | None = None
    before: float | None = None
    under: list[str] = field(default_factory=list)
    active_branch: bool = False
    secret: str | None = None  # "": any kind
    machines: list[str] = field(default_factory=list)  # the archive's machines (any of them)
    _plain_terms: tuple[list[bytes], list[bytes]] | None = field(default=None, repr=False, compare=False)

    def filtered(self) -> bool:
        """Whether a filter narrows the documents (a query may be only filters)."""
        fields = (self.role, self.tool, self.model, self.format, self.after, self.before, self.secret)
        narrowed = self.error or self.active_branch or bool(self.under) or bool(self.machines)
        return narrowed or any(v is not None for v in fields)

    def terms(self) -> list[str]:
        """Every string a hit must hold (the index is asked for their words)."""
        return [*self.words, *self.phrases, *self.paths]

    def may_match(self, raw: bytes, escaped: bool | None = None) -> bool:
        """A quick look at a record's JSON line: False when it cannot match.
        A term of ASCII characters that JSON never escapes (no quote,
        backslash, slash or control character) is in the decoded strings
        only if it is in the line's bytes as they are, unless the line
        writes a character that may be one of the term's as ``\\uXXXX``
        (an ASCII one, or one of the two whose lower case is ASCII:
        ``\\u212a``, the Kelvin sign, ``\\u0130``, ``İ``: ``ESCAPED``; a
        line escaping only other characters, as ``ensure_ascii`` writers
        do, is still looked at as it is); ignoring case, unless it also
        holds one of those two as they are. ``escaped``: whether the line
        writes such an escape (the index keeps it: ``reader``); None: looked
        for here, once needed."""
        exact, folded_words = self._plain()
        for term in exact:
            if term not in raw:
                escaped = ESCAPED.search(raw) is not None if escaped is None else escaped
                if not escaped:
                    return False
        if folded_words and b"\xe2\x84\xaa" not in raw and b"\xc4\xb0" not in raw:
            folded = raw.lower()
            for word in folded_words:
                if word not in folded:
                    escaped = ESCAPED.search(raw) is not None if escaped is None else escaped
                    if not escaped:
                        return False
        return True

    def _plain(self) -> tuple[list[bytes], list[bytes]]:
        """The phrases and paths, and the words (lower case), that may_match
        can look for in the bytes (worked out once per query)."""
        if self._plain_terms is None:
            exact = [t.encode() for t in (*self.phrases, *self.paths) if plain_ascii(t)]
            self._plain_terms = (exact, [w.lower().encode() for w in self.words if plain_ascii(w)])
        return self._plain_terms

    def matches(self, text: str) -> bool:
        """Whether a record's strings hold every word, phrase and path."""
        if any(p not in text for p in [*self.phrases, *self.paths]):
            return False
        folded = text.lower() if self.words else text
        return all(w.lower() in folded for w in self.words)


def plain_ascii(term: str) -> bool:
    """Whether a JSON line writes ``term`` as it is (printable ASCII that JSON does not escape)."""
    return term.isascii() and all(" " <= ch <= "~" and ch not in '"\\/' for ch in term)


def _date(value: str, key: str) -> float:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise QueryError(f"{key}:{value}: not a date (2026-03-14, or 2026-03-14T09:30)") from None


def parse(text: str) -> Query:
    query = Query()
    for match in _TOKEN.finditer(text):
        quoted, bare = match.group(1), match.group(2)
        if quoted is not None:
            phrase = quoted.replace('\\"', '"').replace("\\\\", "\\")
            if phrase:
                query.phrases.append(phrase)
            continue
        key, colon, value = bare.partition(":")
        if colon and key in FILTERS:
            if value.startswith('"') and value.endswith('"') and len(value) > 1:
                value = value[1:-1]
            _filter(query, key, value)
        else:
            query.words.append(bare)
    if not query.terms() and not query.filtered():
        raise QueryError('give a word, a "phrase" or a filter (role:, tool:, error:, …)')
    short = [t for t in query.terms() if len(t) < GRAM]
    if short and len(short) == len(query.terms()) and not query.filtered():
        raise QueryError(f"{short[0]!r}: give a word or phrase of {GRAM} characters or more")
    return query


def _filter(query: Query, key: str, value: str) -> None:
    if key == "role":
        if value not in ROLES:
            raise QueryError(f"role:{value}: one of {', '.join(ROLES)}")
        query.role = value
    elif key == "tool":
        query.tool = value or None
    elif key == "error":
        query.error = True
    elif key == "path":
        if value:
            query.paths.append(value)
    elif key == "model":
        query.model = value or None
    elif key == "format":
        query.format = value or None
    elif key == "after":
        query.after = _date(value, key)
    elif key == "before":
        query.before = _date(value, key)
    elif key == "in":
        query.under.append(os.path.abspath(os.path.expanduser(value)) if "://" not in value else value)
    elif key == "secret":
        if value:
            from ..privacy.secrets import KINDS

            if value not in KINDS:
                raise QueryError(f"secret:{value}: not a kind of secret (one of {', '.join(KINDS)})")
        query.secret = value
    elif key == "machine":
        if not value:
            raise QueryError("machine:NAME: give the machine's name")
        query.machines.append(value)
    elif key == "branch":
        if value != "active":
            raise QueryError(f"branch:{value}: only branch:active")
        query.active_branch = True


def index_marks(query: Query) -> list[str]:
    """The marks of the fields filtered on that the index is asked for (a
    term's words are looked up in the vocabulary: ``candidates``)."""
    found: list[str] = []
    for name, value in (("role", query.role), ("tool", query.tool), ("format", query.format)):
        if value:
            found.append(mark(name, value))
    if query.error:
        found += [mark("error", "1"), mark("kind", "result")]
    if query.secret is not None:
        found.append(mark("secret", query.secret))
    if query.paths:
        found.append(mark("kind", "call"))
    return list(dict.fromkeys(found))
