"""Every live agent at once: the state of each session written lately (from
its last entries and its file's time), the alerts it raises, and the fleet
of them kept current as files grow, reading only what was appended."""
