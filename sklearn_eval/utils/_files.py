"""Writing files atomically: a reader sees the old file or the whole new one.

Opening the target with mode ``"w"`` empties it at once, so a process killed
while writing (or a full disk) leaves an empty or partial file where a good
one was. :func:`atomic_write` writes to a temporary file in the target's
folder (so that the final rename stays on one file system), flushes it to
disk, and renames it over the target with :func:`os.replace`, which POSIX and
Windows perform atomically. On any error the temporary file is removed and
the target is left as it was. Every file the package writes goes through it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

__all__ = ["atomic_write", "write_text_atomic"]

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)


def _resolve(path):
    """The file to replace: ``path``, or the file a symbolic link points to."""
    name = os.path.abspath(os.fspath(path))
    if os.path.islink(name):
        name = os.path.realpath(name)
    if os.path.isdir(name):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    if os.path.exists(name) and not os.access(name, os.W_OK):
        # a read-only file stays protected, as with open(name, "w")
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), name)
    return name


def _temporary(target):
    """Create a fresh hidden file beside ``target``; return (fd, its path).

    ``os.open`` with mode 0o666 lets the umask decide the permissions, as
    ``open(target, "w")`` would for a new file.
    """
    folder, base = os.path.split(target)
    for _ in range(100):
        name = os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, _CREATE, 0o666), name
        except FileExistsError:
            continue
        except OSError as exc:  # name the target, not the temporary file
            raise type(exc)(exc.errno, exc.strerror, target) from None
    raise FileExistsError(errno.EEXIST, "no free temporary name", target)


def _sync_folder(folder):
    """Flush the rename to disk where the platform allows (best effort)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path, mode="w", *, encoding="utf-8", newline=None):
    """Open a temporary file that replaces ``path`` when the block ends.

    Parameters
    ----------
    path : str or path-like
        The file to write (replaced if it exists; a symbolic link is
        followed, so the file it points to is replaced).
    mode : {"w", "wb"}, default="w"
        Text or binary.
    encoding : str, default="utf-8"
        Encoding of a text file.
    newline : str or None, default=None
        As for :func:`open`.

    Yields
    ------
    file object
        The temporary file. When the block ends normally it is flushed,
        synced to disk, given the permissions of the file it replaces (else
        the umask's) and renamed over ``path``; when the block raises, it is
        removed and ``path`` is untouched.

    Raises
    ------
    IsADirectoryError
        If ``path`` is a directory.
    PermissionError
        If ``path`` exists and is read-only for this user.
    OSError
        If the folder cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.utils._files import atomic_write
    >>> path = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_write(path) as handle:
    ...     _ = handle.write("complete\\n")
    >>> open(path).read()
    'complete\\n'
    >>> try:
    ...     with atomic_write(path) as handle:
    ...         _ = handle.write("half")
    ...         raise RuntimeError("killed")
    ... except RuntimeError:
    ...     pass
    >>> open(path).read(), len(os.listdir(os.path.dirname(path)))
    ('complete\\n', 1)
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'; got {mode!r}.")
    target = _resolve(path)
    fd, temporary = _temporary(target)
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(os.path.dirname(target))


def write_text_atomic(path, text, *, encoding="utf-8", newline=""):
    """Write ``text`` to ``path`` atomically (see :func:`atomic_write`).

    Parameters
    ----------
    path : str or path-like
        The file to write.
    text : str
        Its whole content.
    encoding : str, default="utf-8"
        The encoding.
    newline : str or None, default=""
        As for :func:`open`; the default writes line ends as they are.

    Returns
    -------
    path : str
        The absolute path written.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.utils._files import write_text_atomic
    >>> path = write_text_atomic(os.path.join(tempfile.mkdtemp(), "a.txt"), "x\\n")
    >>> open(path).read()
    'x\\n'
    """
    with atomic_write(path, encoding=encoding, newline=newline) as handle:
        handle.write(text)
    return os.path.abspath(os.fspath(path))
