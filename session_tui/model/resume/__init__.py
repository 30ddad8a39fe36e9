"""Back to work: which client continues a session, where it looks for it,
the command, what must be written first for it to continue at a given
leaf; the rules the model APIs apply to a resumed conversation, and the
reduction that compares what a client sends with session-tui's context.
Pure: the store writes, the commands run the clients."""
