"""Builders of session records, one module per format, shared by every test."""
