"""Writing files atomically: a reader sees the old file or the whole new one.

Opening the target with mode ``"w"`` empties it at once, so a process killed
while writing (or a full disk) leaves an empty or partial file where a good
one was. :func:`atomic_write` writes to a temporary file in the target's
folder (so that the final rename stays on one file system), flushes it to
disk, and renames it over the target with :func:`os.replace`, which POSIX and
Windows perform atomically. On any error the temporary file is removed and
the target is left as it was. Every file the package writes goes through it.

:func:`atomic_write_all` does the same for a set of files that belong
together (the tables of one ``--csv``): every file is written to its
temporary first, and only then are they renamed over their targets, the
files they replace kept aside until all renames succeeded; if a rename
fails, the targets already replaced get their previous content back. A set
is thus written whole or not at all (only a process killed between the
renames can leave some files old and some new).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import stat

__all__ = ["atomic_write", "atomic_write_all", "write_text_atomic"]

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


def _hidden_names(target):
    """Fresh hidden names beside ``target`` (100 at most, then an error)."""
    folder, base = os.path.split(target)
    for _ in range(100):
        yield os.path.join(folder, f".{base}.{secrets.token_hex(6)}.tmp")
    raise FileExistsError(errno.EEXIST, "no free temporary name", target)


def _temporary(target):
    """Create a fresh hidden file beside ``target``; return (fd, its path).

    ``os.open`` with mode 0o666 lets the umask decide the permissions, as
    ``open(target, "w")`` would for a new file.
    """
    for name in _hidden_names(target):
        try:
            return os.open(name, _CREATE, 0o666), name
        except FileExistsError:
            continue
        except OSError as exc:  # name the target, not the temporary file
            raise type(exc)(exc.errno, exc.strerror, target) from None


def _open_temporary(fd, mode, encoding, newline):
    if mode == "wb":
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding=encoding, newline=newline)


def _copy_mode(temporary, target):
    """Give ``temporary`` the permissions of the file it replaces (if any)."""
    with contextlib.suppress(FileNotFoundError):
        os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))


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
        with _open_temporary(fd, mode, encoding, newline) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _copy_mode(temporary, target)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(os.path.dirname(target))


def _keep_aside(target):
    """A hidden hard link (else copy) of ``target``'s current content, or None."""
    if not os.path.exists(target):
        return None
    for name in _hidden_names(target):
        if os.path.exists(name):
            continue
        try:
            os.link(target, name)
        except FileExistsError:
            continue
        except OSError:  # no hard links here: a copy keeps the content
            shutil.copy2(target, name)
        return name


def _put_back(replaced):
    """Give each replaced target its previous content (or remove a new file)."""
    for target, aside in reversed(replaced):
        with contextlib.suppress(OSError):
            if aside is None:
                os.unlink(target)
            else:
                os.replace(aside, target)


@contextlib.contextmanager
def atomic_write_all(paths, mode="w", *, encoding="utf-8", newline=None):
    """Open temporary files that replace all of ``paths``, or none of them.

    Parameters
    ----------
    paths : sequence of str or path-like
        The files to write (each as in :func:`atomic_write`), distinct.
    mode : {"w", "wb"}, default="w"
        Text or binary.
    encoding : str, default="utf-8"
        Encoding of text files.
    newline : str or None, default=None
        As for :func:`open`.

    Yields
    ------
    list of file objects
        One temporary file per path, in order. When the block ends normally
        they are flushed and synced to disk, then renamed over their paths
        one after the other; if a rename fails, the paths already replaced
        are given back their previous content (a file that did not exist is
        removed) and the error is raised. When the block raises, the
        temporary files are removed and no path is touched.

    Raises
    ------
    IsADirectoryError
        If a path is a directory (before any file is written).
    PermissionError
        If a path exists and is read-only for this user (before any file is
        written).
    OSError
        If a folder cannot be written, or a rename fails.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_eval.utils._files import atomic_write_all
    >>> folder = tempfile.mkdtemp()
    >>> first = os.path.join(folder, "a.csv")
    >>> with atomic_write_all([first, os.path.join(folder, "b.csv")]) as (a, b):
    ...     _ = a.write("old a\\n"), b.write("old b\\n")
    >>> os.mkdir(os.path.join(folder, "c.csv"))  # cannot be written
    >>> try:
    ...     with atomic_write_all([first, os.path.join(folder, "c.csv")]) as (a, c):
    ...         _ = a.write("new a\\n"), c.write("new c\\n")
    ... except IsADirectoryError:
    ...     pass
    >>> open(first).read(), sorted(os.listdir(folder))
    ('old a\\n', ['a.csv', 'b.csv', 'c.csv'])
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'; got {mode!r}.")
    targets = [_resolve(path) for path in paths]
    if len(set(targets)) != len(targets):
        raise ValueError("atomic_write_all needs distinct files.")
    temporaries, handles = [], []
    replaced = []
    try:
        for target in targets:
            fd, temporary = _temporary(target)
            temporaries.append(temporary)
            handles.append(_open_temporary(fd, mode, encoding, newline))
        yield handles
        for handle in handles:
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
        for target, temporary in zip(targets, temporaries, strict=True):
            _copy_mode(temporary, target)
            aside = _keep_aside(target)
            try:
                os.replace(temporary, target)
            except BaseException:
                if aside is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(aside)
                raise
            replaced.append((target, aside))
    except BaseException:
        _put_back(replaced)
        for handle in handles:
            with contextlib.suppress(OSError):
                handle.close()
        for temporary in temporaries:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    for _, aside in replaced:
        if aside is not None:
            with contextlib.suppress(OSError):
                os.unlink(aside)
    for folder in {os.path.dirname(target) for target in targets}:
        _sync_folder(folder)


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
