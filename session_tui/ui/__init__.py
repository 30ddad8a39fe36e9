"""The Textual UI over the session model. Only this package imports Textual."""
