"""The session model: pure Python, never imports Textual.

Rooms, bottom up (each imports only those below it; ``pyproject.toml``
holds the contract): ``errors``, ``sanitize``, ``memo``, ``words``;
``reading`` (bytes, lines, records, the scan); ``entries`` (an entry's view,
the tree in compact arrays, tool pairing, tokens); ``formats`` (one adapter
per on-disk format) and ``privacy`` (secrets, redaction); ``session`` (an
open session and what is worked out from it); ``catalog`` (the picker's)
and ``resume`` (back to work with the session's own client); ``fleet`` (every
live agent at once) over them.

Nothing is imported here: the picker's first frame needs only a few of
these modules, and each costs start-up time.
"""
