"""pi: its reader and the client that resumes its files.

Nothing is imported here: its modules are imported by name (``formats.FORMATS``
loads the reader on first use), so a light one (an opencode database's rows, a
Codex thread's files) loads without the reader."""
