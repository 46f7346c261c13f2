"""What the readers share: finding the files of runs, reading JSON, scores."""

import json
import math
import os
import re
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd

from ._lfs import check_not_lfs_pointer
from ._long import checked_long_table

__all__ = [
    "all_finite_or_nan",
    "arrow_column",
    "arrow_joined_text",
    "arrow_inferred",
    "arrow_json",
    "arrow_json_lines",
    "claim_run",
    "constant_column",
    "finite_score",
    "input_files",
    "long_table",
    "ordered_map",
    "read_json",
    "score_of",
]

# bytes of JSON lines handed to pyarrow at a time (more when one line is
# longer), parsed by its threads in blocks of BLOCK_BYTES
CHUNK_BYTES = 1 << 25
BLOCK_BYTES = 1 << 23
# a JSON document larger than this is parsed in pieces, in parallel threads
SPLIT_BYTES = 1 << 22
# the threads that parse it, and the blocks of JSON lines parsed at a time
# (None: the machine's cores, at most 8)
N_THREADS = None
# set to False to read with the standard library only (the tested fallback)
USE_ARROW = True


def _pyarrow_json():
    """``(pyarrow, pyarrow.json)``, or None without pyarrow (or switched off)."""
    if not USE_ARROW:
        return None
    try:
        import pyarrow
        import pyarrow.json as pa_json
    except ImportError:
        return None
    return pyarrow, pa_json


def _chunks(handle, size):
    """``(block, end)``: ``block[:end]`` is whole lines of ``handle``.

    About ``size`` bytes each, more where one line is longer; the file's
    last line may lack its newline. The bytes after ``end`` are read again
    with the next block.
    """
    while True:
        start = handle.tell()
        block = handle.read(size)
        if not block:
            return
        end = block.rfind(b"\n") + 1
        while end == 0:  # a line longer than size, or the file's last line
            more = handle.read(size)
            if not more:
                end = len(block)
                break
            end = more.rfind(b"\n") + 1
            end = end and len(block) + end
            block += more
        handle.seek(start + end)
        yield block, end


_BOM = "\ufeff".encode()
_BOM_PATTERN = re.compile(re.escape(_BOM))


def _is_utf8(pa, data):
    """Whether the bytes ``data`` are UTF-8, as Python's strict decoder says.

    Checked by Arrow's validation of text (no Python string is built):
    surrogates, overlong forms, code points above U+10FFFF and cut
    sequences are refused, as by ``bytes.decode("utf-8")``.
    """
    buffer = pa.py_buffer(data)
    offsets = pa.py_buffer(np.array([0, buffer.size], dtype=np.int64))
    try:
        pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, buffer]) \
            .cast(pa.large_string())
    except pa.ArrowInvalid:
        return False
    return True


def _parse_block(pa, pa_json, block, end, options):
    """``block[:end]`` of JSON lines as a Table; None where pyarrow refuses it."""
    view = memoryview(block)[:end]
    if not block.isascii():
        if not _is_utf8(pa, view):
            return None
        if _BOM in block:  # pyarrow skips a byte order mark, json.loads refuses it
            return None
    buffer = pa.py_buffer(view)
    try:
        read = pa_json.ReadOptions(block_size=BLOCK_BYTES)
        return pa_json.read_json(buffer, read_options=read, parse_options=options)
    except pa.ArrowException:
        pass
    try:  # a line longer than pyarrow's own blocks: the block whole, once more
        read = pa_json.ReadOptions(block_size=end + 1, use_threads=False)
        return pa_json.read_json(buffer, read_options=read, parse_options=options)
    except pa.ArrowException:
        return None


def arrow_json_lines(file, fields):
    """Columns ``fields`` of a JSON-lines file parsed by pyarrow, or None.

    ``fields`` maps a top-level key to its Arrow type; other keys are skipped
    without building Python objects, and the file is read in blocks of
    :data:`CHUNK_BYTES` (memory bounded by the block and the kept columns).
    The blocks are parsed in parallel threads (:data:`N_THREADS`), as many
    at a time as there are threads, while the next one is read.
    Returns None (read the file with the standard library instead, which
    gives the same table or names the line at fault) without pyarrow, when
    pyarrow refuses a block (a value of another type, a duplicated key, bad
    JSON), when a block is not valid UTF-8, or when the rows are not exactly
    one per line (a blank line, two objects on one line).
    """
    modules = _pyarrow_json()
    if modules is None:
        return None
    pa, pa_json = modules
    schema = pa.schema(list(fields.items()))
    options = pa_json.ParseOptions(
        explicit_schema=schema, unexpected_field_behavior="ignore"
    )

    def parse(block, end):
        table = _parse_block(pa, pa_json, block, end, options)
        lines = block.count(b"\n", 0, end) + (block[end - 1:end] != b"\n")
        return table if table is not None and table.num_rows == lines else None

    with open(file, "rb") as handle:
        if os.fstat(handle.fileno()).st_size <= CHUNK_BYTES:  # one block
            tables = [parse(block, end) for block, end in _chunks(handle, CHUNK_BYTES)]
        else:
            tables = _parse_blocks(handle, parse)
    if not tables or any(table is None for table in tables):
        return None
    return pa.concat_tables(tables).combine_chunks()


def _parse_blocks(handle, parse):
    """``parse(block, end)`` of the blocks of ``handle``, in parallel threads.

    Stops at the first block ``parse`` refuses (None, the last table).
    """
    tables = []
    results = ordered_map(lambda piece: parse(*piece),
                          _chunks(handle, CHUNK_BYTES), workers=n_threads())
    with closing(results):  # leaving early shuts the pool down
        for table in results:
            tables.append(table)
            if table is None:
                break
    return tables


def ordered_map(function, items, workers=None):
    """``function(item)`` of every item, in order, computed by parallel threads.

    The files of a folder are read this way: :func:`n_threads` at a time
    (memory bounded by the items in flight), the results yielded in the
    items' order. An exception is raised where the loop over the items
    would raise it (the first failing item's), the work on later items
    dropped; ``function`` must leave shared state alone (the caller merges
    what each item gives, in order) and warn nothing. ``workers``: the
    threads, for an iterator of items read as they are needed (the blocks
    of a file); None: :func:`n_threads`, at most one per item of a list.
    """
    if workers is None:
        items = list(items)
        workers = min(n_threads(), len(items))
    if workers <= 1:
        yield from map(function, items)
        return
    pool = ThreadPoolExecutor(workers)
    try:
        pending = deque()
        for item in items:
            pending.append(pool.submit(function, item))
            if len(pending) >= workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(cancel_futures=True)


def n_threads():
    """The threads that parse: :data:`N_THREADS`, or the machine's cores (<= 8)."""
    return N_THREADS or min(os.cpu_count() or 1, 8)


def _array_pieces(data, n_pieces):
    """Cuts of a JSON array of objects into ``n_pieces`` runs of whole elements.

    ``[(start, end), ...]``: ``data[start:end]`` holds elements separated by
    commas. A cut is put before an occurrence of the first element's opening
    (its brace and first key, as written) that follows a comma; a wrong cut
    (the same text nested deeper) makes a piece that is not valid JSON, and
    the document is parsed whole instead. None when ``data`` is not a list
    whose first element is an object with a key.
    """
    first = _FIRST_ELEMENT.match(data)
    last = len(data.rstrip(_WHITE)) - 1
    if first is None or last < 0 or data[last] != ord("]"):
        return None
    head, start = first.group(1), first.start(1)
    cuts = [start]
    for k in range(1, n_pieces):
        pos = data.find(head, max(cuts[-1] + 1, len(data) * k // n_pieces), last)
        while pos >= 0 and (comma := _comma_before(data, pos)) < 0:
            pos = data.find(head, pos + 1, last)
        if pos < 0:
            break
        cuts.append(comma)
        cuts.append(pos)
    cuts.append(last)
    return list(zip(cuts[::2], cuts[1::2], strict=True))


_WHITE = b" \t\n\r"  # JSON's whitespace


def _comma_before(data, pos):
    """The index of the comma before ``data[pos]`` past JSON whitespace, or -1."""
    comma = pos - 1
    while comma >= 0 and data[comma] in _WHITE:
        comma -= 1
    return comma if comma >= 0 and data[comma] == ord(",") else -1
_LIST_END_THEN_KEY = re.compile(rb'\][ \t\n\r]*,[ \t\n\r]*"')


def _closes_list_then_key(data, start, end):
    """Whether ``data[start:end]`` holds ``}], "``, JSON whitespace allowed between.

    A list of objects closed, then a key. ``data``: any buffer of bytes.
    Searched with numpy from each list's end (``]``, the rarest of these
    bytes, absent from many documents), the other bytes looked for past the
    whitespace around it: no Python loop over the matches, and the threads
    that check pieces run in parallel. Whitespace runs longer than
    :data:`_WHITE_RUN` are left to the regular expression.
    """
    if hasattr(data, "find") and data.find(b"]", start, end) < 0:
        return False
    arr = np.frombuffer(data, np.uint8)[start:end]
    found = _closes_list_then_key_np(arr)
    if found is not None:
        return found
    view = memoryview(data).cast("B")
    for match in _LIST_END_THEN_KEY.finditer(view, start, end):
        k = match.start() - 1
        while k >= start and view[k] in _WHITE:
            k -= 1
        if k >= start and view[k] == ord("}"):
            return True
    return False


# whitespace runs skipped by numpy (longer: the regular expression's job)
_WHITE_RUN = 64
_IS_WHITE = np.zeros(256, dtype=bool)
_IS_WHITE[list(_WHITE)] = True


def _closes_list_then_key_np(arr):
    """:func:`_closes_list_then_key` of the bytes ``arr``; None on long whitespace."""
    ends = np.flatnonzero(arr == ord("]"))
    commas = _next_is(arr, ends, 1, ",")
    if commas is None:
        return None
    ends, commas = ends[commas >= 0], commas[commas >= 0]
    quotes = _next_is(arr, commas, 1, '"')
    if quotes is None:
        return None
    braces = _next_is(arr, ends[quotes >= 0], -1, "}")
    return None if braces is None else bool((braces >= 0).any())


def _next_is(arr, at, step, byte):
    """Where the first non-whitespace byte past ``at`` (by ``step``) is ``byte``.

    Its index, -1 where it is another byte or there is none; None where a
    whitespace run is longer than :data:`_WHITE_RUN`.
    """
    found = _past_white(arr, at + step, step)
    if found is None:
        return None
    inside = (found >= 0) & (found < len(arr))
    inside[inside] = arr[found[inside]] == ord(byte)
    return np.where(inside, found, -1)


def _past_white(arr, at, step):
    """The indices ``at`` moved by ``step`` past JSON whitespace in ``arr``.

    Each stops at a byte that is not whitespace or just outside ``arr``;
    None where a run is longer than :data:`_WHITE_RUN`.
    """
    at = at.copy()
    moving = np.arange(len(at))
    for _ in range(_WHITE_RUN):
        where = at[moving]
        moving = moving[(where >= 0) & (where < len(arr))]
        moving = moving[_IS_WHITE[arr[at[moving]]]]
        if not moving.size:
            return at
        at[moving] += step
    return None


_FIRST_ELEMENT = re.compile(rb'[ \t\n\r]*\[[ \t\n\r]*(\{[ \t\n\r]*"(?:[^"\\]|\\.)*")')


def _parse_document(pa, pa_json, wrapped, field_type):
    """``{"v": ...}`` bytes parsed by pyarrow as ``field_type``: the array, or None.

    ``field_type`` None: the type pyarrow infers from the values.
    """
    if field_type is None:
        options = pa_json.ParseOptions(newlines_in_values=True)
    else:
        options = pa_json.ParseOptions(
            explicit_schema=pa.schema([("v", field_type)]),
            unexpected_field_behavior="ignore", newlines_in_values=True,
        )
    read = pa_json.ReadOptions(block_size=len(wrapped) + 1, use_threads=False)
    try:
        table = pa_json.read_json(pa.py_buffer(wrapped), read_options=read,
                                  parse_options=options)
    except pa.ArrowException:
        return None
    if table.num_rows != 1:
        return None
    return table.column("v").combine_chunks()


def arrow_records(data, record):
    """The fields of a JSON list of ``record`` structs as pyarrow arrays, or None.

    None (read the document with the standard library instead) where
    :func:`arrow_json` gives None, when the list is empty, or when the list or
    one of its elements is null.
    """
    import pyarrow as pa

    parsed = arrow_json(data, pa.list_(record))
    if parsed is None or parsed.null_count:
        return None
    records = parsed.flatten()
    if len(records) == 0 or records.null_count:
        return None
    return records.flatten()


def arrow_json(data, field_type):
    """A JSON list of objects (bytes) parsed by pyarrow as ``field_type``, or None.

    ``field_type`` is an Arrow list of structs holding only the fields the
    caller needs (the others are skipped without building Python objects).
    The list's elements are wrapped as the one value of an object, which
    pyarrow reads; a list larger than :data:`SPLIT_BYTES` is cut into runs
    of whole elements parsed in parallel threads (see :func:`_array_pieces`).
    None, to parse with the standard library instead, as in
    :func:`arrow_json_lines`.
    """
    parts = _arrow_parts(data, field_type)
    if parts is None:
        return None
    import pyarrow as pa

    values = pa.concat_arrays([part.flatten() for part in parts])
    return pa.ListArray.from_arrays(pa.array([0, len(values)], pa.int32()), values)


def arrow_inferred(data):
    """A JSON list of objects (bytes) parsed by pyarrow, its types inferred.

    A list of struct arrays, the elements of each run of whole elements (as
    in :func:`arrow_json`, in parallel threads), each with the fields and
    types pyarrow infers from the run's elements (a field of two runs may
    differ in type, or be absent from one): every key of every element is
    parsed, so none is missed. None, to parse with the standard library
    instead, as in :func:`arrow_json`, and when an element is null or not an
    object, or a field's values are of types pyarrow does not unify (text
    and numbers, say).
    """
    parts = _arrow_parts(data, None)
    if parts is None:
        return None
    import pyarrow as pa

    runs = []
    for part in parts:
        if not pa.types.is_struct(part.type.value_type):
            return None
        values = part.flatten()
        if values.null_count:
            return None
        runs.append(values)
    return runs


def _arrow_parts(data, field_type):
    """The list's runs parsed as list arrays (``field_type`` None: inferred)."""
    modules = _pyarrow_json()
    if modules is None:
        return None
    pa, pa_json = modules
    if not data.isascii():
        if not _is_utf8(pa, data):
            return None
        if _BOM in data:
            return None
    workers = n_threads()
    pieces = _array_pieces(data, workers if len(data) > SPLIT_BYTES else 1)
    if pieces is None:
        return None
    parts = _parse_pieces(pa, pa_json, data, pieces, field_type)
    if parts is None and len(pieces) > 1:  # a cut inside an element: whole
        parts = _parse_pieces(pa, pa_json, data, [(pieces[0][0], pieces[-1][1])],
                              field_type)
    return parts


def _parse_pieces(pa, pa_json, data, pieces, field_type):
    """The pieces ``data[start:end]`` parsed as lists, in threads; None if one fails.

    Each piece is parsed as ``{"v": [piece]}``: every piece valid proves the
    cuts are between top-level elements and the document is ``[elements]``,
    but for a piece holding ``}], "<key>"`` (a list of objects closed, then
    a key: it could close the wrapper's list and give the wrapper a second
    key), which is left to the standard library.
    """
    view = memoryview(data)

    def parse(piece):
        start, end = piece
        if _closes_list_then_key(data, start, end):
            return None  # maybe `[...], "key": [...`, an object once wrapped
        return _parse_wrapped(pa, pa_json, b"".join(
            (_WRAP_HEAD, view[start:end], _WRAP_TAIL)), field_type)

    return _in_threads(parse, pieces)


_WRAP_HEAD, _WRAP_TAIL = b'{"v": [', b"\n]}"


def _parse_wrapped(pa, pa_json, wrapped, field_type):
    """A piece wrapped as ``{"v": [piece]}`` parsed as a list; None if refused."""
    part = _parse_document(pa, pa_json, wrapped, field_type)
    return None if part is None or part.null_count else part


def _in_threads(parse, pieces):
    """``parse(piece)`` of every piece, one thread each; None if one gives None."""
    if len(pieces) == 1:
        parts = [parse(pieces[0])]
    else:
        with ThreadPoolExecutor(len(pieces)) as pool:
            parts = list(pool.map(parse, pieces))
    return None if any(part is None for part in parts) else parts


# bytes read at a time where a document read from its file is cut in pieces
WINDOW_BYTES = 1 << 16


def arrow_records_file(path, record):
    """:func:`arrow_records` of the JSON document in the file ``path``.

    The same arrays, or None where :func:`arrow_records` of the file's bytes
    gives None, but the file is never held whole: its cuts (as in
    :func:`_array_pieces`) are found in small windows read around them, and
    each thread reads its own run of elements straight into the buffer that
    wraps it for pyarrow, then checks and parses it, while the other threads
    read and parse theirs. A document whose cuts are not found so (its first
    element's opening or its closing bracket beyond :data:`WINDOW_BYTES`) is
    read whole and parsed as :func:`arrow_records` parses bytes. Raises
    OSError when the file cannot be read.
    """
    import pyarrow as pa

    parts = _arrow_file_parts(path, pa.list_(record))
    if parts is None:
        return None
    records = pa.concat_arrays([part.flatten() for part in parts])
    if len(records) == 0 or records.null_count:
        return None
    return records.flatten()


def _arrow_file_parts(path, field_type):
    """The document's runs parsed as list arrays, each read by its own thread."""
    modules = _pyarrow_json()
    if modules is None:
        return None
    pa, pa_json = modules
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        pieces = _file_pieces(handle, size,
                              n_threads() if size > SPLIT_BYTES else 1)
        if pieces is None:
            handle.seek(0)
            return _arrow_parts(handle.readall(), field_type)

    def parse(piece):
        start, end = piece
        wrapped = _read_wrapped(path, start, end)
        if wrapped is None:
            return None
        inner = (len(_WRAP_HEAD), len(wrapped) - len(_WRAP_TAIL))
        if wrapped.max() >= 0x80:  # the wrapper and the bytes between are ASCII
            if not _is_utf8(pa, memoryview(wrapped)[inner[0]:inner[1]]):
                return None
            if _BOM_PATTERN.search(memoryview(wrapped)):
                return None
        if _closes_list_then_key(wrapped, *inner):
            return None  # maybe `[...], "key": [...`, an object once wrapped
        return _parse_wrapped(pa, pa_json, wrapped, field_type)

    parts = _in_threads(parse, pieces)
    if parts is None and len(pieces) > 1:  # a cut inside an element: whole
        parts = _in_threads(parse, [(pieces[0][0], pieces[-1][1])])
    return parts


def _read_wrapped(path, start, end):
    """``{"v": [`` + the file's bytes ``start:end`` + ``]}``, read in place.

    A numpy array of bytes (not set to zero first: the file's bytes are
    read into it); None when the file is shorter than ``end``.
    """
    n = end - start
    wrapped = np.empty(len(_WRAP_HEAD) + n + len(_WRAP_TAIL), dtype=np.uint8)
    wrapped[:len(_WRAP_HEAD)] = np.frombuffer(_WRAP_HEAD, np.uint8)
    wrapped[len(_WRAP_HEAD) + n:] = np.frombuffer(_WRAP_TAIL, np.uint8)
    view = memoryview(wrapped)[len(_WRAP_HEAD):len(_WRAP_HEAD) + n]
    with open(path, "rb", buffering=0) as handle:
        handle.seek(start)
        done = 0
        while done < n:
            got = handle.readinto(view[done:])
            if not got:
                return None
            done += got
    return wrapped


def _file_pieces(handle, size, n_pieces):
    """:func:`_array_pieces` of the file, found in windows read around the cuts.

    The same cuts (before the first element's opening following a comma,
    searched from the same places) but where the whitespace before an
    opening is longer than :func:`_find_cut` looks back over (that one is
    passed over); None when the first element's opening or the closing
    bracket is not within :data:`WINDOW_BYTES` of the file's ends (the
    caller reads the file whole).
    """
    def read(start, length):
        handle.seek(start)
        return handle.read(length) or b""

    head = read(0, WINDOW_BYTES)
    first = _FIRST_ELEMENT.match(head)
    tail_start = max(0, size - WINDOW_BYTES)
    tail = read(tail_start, size - tail_start)
    end = len(tail.rstrip(_WHITE))
    if first is None or end == 0 or tail[end - 1] != ord("]"):
        return None
    last = tail_start + end - 1
    if last < first.end(1):
        return None
    pattern, cuts = first.group(1), [first.start(1)]
    if len(pattern) > WINDOW_BYTES // 4:  # an opening too long to look for
        n_pieces = 1
    for k in range(1, n_pieces):
        found = _find_cut(read, pattern, max(cuts[-1] + 1, size * k // n_pieces),
                          last)
        if found is None:
            break
        cuts.extend(found)
    cuts.append(last)
    return list(zip(cuts[::2], cuts[1::2], strict=True))


def _find_cut(read, pattern, start, last):
    """``(comma, pos)``: the first ``pattern`` at or after ``start`` that follows
    a comma and ends before ``last``; or None.

    Whitespace between the comma and the pattern is looked back over up to
    a quarter of :data:`WINDOW_BYTES` (at most 256 bytes): an occurrence
    after a longer run is passed over, as one not after a comma.
    """
    margin = min(256, WINDOW_BYTES // 4)  # room to look back for the comma
    while start < last:
        low = max(0, start - margin)
        window = read(low, min(WINDOW_BYTES, last - low))
        pos = window.find(pattern, start - low)
        while pos >= 0:
            if (comma := _comma_before(window, pos)) >= 0:
                return low + comma, low + pos
            pos = window.find(pattern, pos + 1)
        if low + len(window) >= last or not window:
            return None
        start = max(start + 1, low + len(window) - len(pattern) + 1)
    return None


def input_files(path, accept, what):
    """The files to read: ``path`` itself, or the accepted files under a folder.

    ``accept(file)`` says whether a file is one of the tool's; a folder is
    searched recursively and its files are returned sorted by path, so the
    order (and the first of two duplicates) never depends on the file system.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and accept(p))
        if not files:
            raise ValueError(f"{path}: no {what} in this folder")
        return files
    if path.is_file():
        return [path]
    raise ValueError(f"{path}: no such file or folder")


def read_json(path, what, data=None):
    """The parsed JSON file (or its bytes ``data``); a ValueError naming it."""
    try:
        if data is None:
            with open(path, "rb") as handle:
                data = handle.read()
        return json.loads(data)
    except (ValueError, OSError) as exc:
        check_not_lfs_pointer(path)
        raise ValueError(f"{path}: not a readable {what} ({exc})") from exc


def arrow_column(array):
    """A pandas column of an Arrow array, as the same values in a list give.

    Text becomes the dtype pandas infers for strings (without a round trip
    through Python objects); a column of nulls only is ``None`` objects.
    """
    if array.null_count == len(array):
        return np.full(len(array), None, dtype=object)
    return array.to_pandas()


def arrow_joined_text(column):
    """Targets as an Arrow text array: text as is, lists of text joined by " | ".

    As the standard-library paths write them (``" | ".join(map(str, value))``);
    None (take the standard-library path) for any other type, and for a null
    inside a list, which they write as ``str(None)``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    text = (pa.string(), pa.large_string())
    if kind in text or kind == pa.null():
        return column.cast(pa.string())
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)) \
            or kind.value_type not in (*text, pa.null()):
        return None
    if column.flatten().null_count:
        return None
    if kind.value_type == pa.null():
        column = column.cast(pa.list_(pa.string()))
    separator = pa.scalar(" | ", column.type.value_type)
    return pc.binary_join(column, separator).cast(pa.string())


def constant_column(value, n):
    """A column of ``n`` times ``value``, as a list of them gives (fast for text)."""
    if isinstance(value, str) and n:
        return pd.Series(value, index=pd.RangeIndex(n), dtype=pd.Series([value]).dtype)
    return np.full(n, value, dtype=object)


def claim_run(seen, model, task, source):
    """Record ``(model, task)`` as read from ``source``; refuse a second run.

    Two runs of one model on one task in a folder (a rerun, a copy) would
    count the same samples twice.
    """
    if (model, task) in seen:
        raise ValueError(
            f"{source} and {seen[model, task]} both hold model {model!r} on task "
            f"{task!r}: the same samples would be counted twice; keep one run"
        )
    seen[model, task] = source


def score_of(value, where):
    """Float of a logged score: numbers and booleans as they are, None = NaN.

    An infinite score (JSON's ``Infinity``, or a number beyond the float
    range such as ``1e309``) is refused naming ``where``.
    """
    if value is None:
        return math.nan
    if isinstance(value, bool | int | float):
        try:
            score = float(value)
        except OverflowError:  # an integer beyond the float range
            score = math.inf
        return finite_score(score, where)
    raise ValueError(
        f"{where}: the score {value!r} is not a number; the reader takes "
        "scores as logged and cannot convert it."
    )


def finite_score(score, where):
    """``score`` unless it is infinite; NaN (not scored) passes."""
    if math.isinf(score):
        raise ValueError(
            f"{where}: the score is {score!r}, not a finite number (NaN or null "
            "marks a sample not scored)."
        )
    return score


def all_finite_or_nan(scores):
    """Whether an array of scores has no infinite value (the fast paths' test)."""
    return not np.isinf(np.asarray(scores, dtype=np.float64)).any()


def long_table(parts, skipped, columns, empty, where=None):
    """The reader's long table from its parts, the metrics it left out warned of.

    ``skipped`` names the ``"<task>:<metric>"`` whose per-sample values are
    not numbers (the parts of a corpus-level metric); ``empty`` is the error
    when no part has a score; ``where(long, row)`` names the file of a row
    in the errors of the check (see :func:`~._long.checked_long_table`).
    """
    if skipped:
        warnings.warn(
            f"metric(s) {sorted(skipped)} have no per-sample score (the parts "
            "of a corpus-level metric); they are left out.",
            UserWarning,
            stacklevel=3,
        )
    if not parts:
        raise ValueError(empty)
    return checked_long_table(pd.concat(parts, ignore_index=True)[columns], where)
