"""Scores and scorers for rankings and matches, usable as ``scoring=`` in GridSearchCV."""

__all__ = []
