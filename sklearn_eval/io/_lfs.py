"""Git LFS pointers where a results file was expected."""

__all__ = ["check_not_lfs_pointer"]

_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def check_not_lfs_pointer(path):
    """Refuse a Git LFS pointer file, naming it, where its content was expected.

    A repository of results cloned without its Git LFS files holds, in place
    of each large file, a small text pointer (``version https://git-lfs...``,
    ``oid``, ``size``). Readers call this when a file does not parse, so the
    error says what happened instead of "not valid JSON" or "not parquet".

    Parameters
    ----------
    path : path-like
        The file that did not parse.

    Raises
    ------
    ValueError
        If the file is a Git LFS pointer.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(_LFS_POINTER))
    except OSError:
        return
    if head == _LFS_POINTER:
        raise ValueError(
            f"{path}: a Git LFS pointer, not the file's content (the "
            "repository was cloned or downloaded without its LFS files); run "
            "`git lfs pull` in it and read again"
        )
