"""The session view: the screen (view.py), its state in one object
(state.py), and its actions by concern (edits, problems, resume, search,
tail), mixed into the screen."""

from .view import SessionScreen

__all__ = ["SessionScreen"]
