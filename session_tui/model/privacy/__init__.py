"""Secrets in sessions: what they look like, finding them, replacing them by marks."""
