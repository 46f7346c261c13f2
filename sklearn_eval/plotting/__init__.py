"""Matplotlib displays for the library's estimators (optional extra ``plot``)."""

__all__ = []
