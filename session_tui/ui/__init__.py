"""The Textual UI over the session model. Only this package imports Textual.

It repaints at Textual's own rate (60 frames a second, or ``$TEXTUAL_FPS``,
which Textual reads when it is imported): session-tui writes no environment
variable. What 120 would gain for the live tail is in docs/performance.md
("Frame rate")."""
