"""session-tui: a terminal browser and debugger for AI-agent session logs."""

__version__ = "0.1.0"
