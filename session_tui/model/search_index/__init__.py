"""Search every session: an SQLite FTS5 index of words, and of the pieces
inside them through its vocabulary (standard library, no server), over
every string of every record, with each document's file,
line, byte range, entry, role, kind, tool, error flag, time, model and
format. The index keeps no text: a candidate is checked, and its snippet
cut, by reading its record back from the file by offset."""
