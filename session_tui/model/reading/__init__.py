"""Reading a session's bytes: where they come from (a local file, a remote one,
several files joined), lines and records, the scan into compact columns."""
