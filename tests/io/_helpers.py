"""Shared checks of the reader tests."""

import warnings

import pytest


def assert_refused_naming(read, folder, path, kind):
    """``read(folder)`` raises a ValueError naming ``path``, before any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError) as info:
            read(folder)
    assert str(path) in str(info.value), kind
