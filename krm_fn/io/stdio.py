"""The standard streams read and written whole, whatever their mode (issue 31).

stdin and stdout are descriptors the function shares with whoever started it. A parent built
on Node.js, Go or some CI shells may leave O_NONBLOCK set on a pipe's file description (the
flag belongs to the description, not to the descriptor, so the function inherits it). Then a
read finds EAGAIN whenever the writer pauses, and a write finds EAGAIN whenever the pipe is
full. Python's buffered reader returns what it has at the first EAGAIN as if the input ended
there (kpt wrote that part back over the package), and its raw writer returns None (which
was taken for a reader that left). Here EAGAIN is a wait (poll for the descriptor to be
ready, then go on); only the end of the input ends the input, and only an error stops the
output, named as it is.

Every mode that reads stdin (KRM, the kustomize plugin, `explain`) reads it through
read_all(); every byte the function writes to stdout or stderr goes through write_all().
"""
from __future__ import annotations

import io
import os
import select

from krm_fn.core.errors import InputError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_INPUT_BYTES = 256 * 1024 * 1024  # stdin and each FILE: larger input is refused, not read
_CHUNK = 1 << 20  # bytes asked of one read: a pipe gives at most 64 KiB, a file all of it


class TooLarge(Exception):
    """The input holds more than the limit read_all() was given."""


def read_all(fd: int, limit: int) -> bytes:
    """Every byte of `fd` up to its end (a read of 0 bytes): EAGAIN on a non-blocking
    descriptor waits until there is more, it never ends the input. Raises TooLarge when
    there are more than `limit` bytes (no more is read), OSError for a read that fails."""
    # a buffered reader's read(n), as the plain read of stdin was, but never taken for the
    # whole input at its first return: on a non-blocking descriptor it returns what it has
    # at EAGAIN (None when nothing), so it is asked again until it returns b"", the end. A
    # blocking descriptor gives everything to the first read (one read: no copy, no join).
    src = io.BufferedReader(io.FileIO(fd, "rb", closefd=False))
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = src.read(limit + 1 - size)
        if chunk is None:
            wait(fd, writing=False)
        elif not chunk:
            return parts[0] if len(parts) == 1 else b"".join(parts)
        else:
            parts.append(chunk)
            size += len(chunk)
    raise TooLarge(limit)


def write_all(fd: int, data: bytes | memoryview) -> None:
    """Write every byte of `data` to `fd`: a short write goes on with the rest, EAGAIN on a
    non-blocking descriptor waits until it takes more. Raises OSError (BrokenPipeError when
    its reader left) for a write that fails."""
    view = memoryview(data).cast("B")
    while view:
        try:
            n = os.write(fd, view[:_CHUNK])
        except BlockingIOError:
            wait(fd, writing=True)
            continue
        view = view[n:]


def flush(stream: object, fd: int) -> None:
    """stream.flush() (a Python file object on `fd`: what was written through it goes out
    before write_all writes to the descriptor), waiting and retrying while a non-blocking
    `fd` is full: the buffered writer keeps what it could not write and raises
    BlockingIOError."""
    while True:
        try:
            stream.flush()  # type: ignore[attr-defined]
            return
        except BlockingIOError:
            wait(fd, writing=True)


def wait(fd: int, writing: bool) -> None:
    """Block until `fd` can be read (or has reached its end, or failed: the next read or
    write says which) or, with `writing`, written."""
    if hasattr(select, "poll"):
        p = select.poll()
        p.register(fd, select.POLLOUT if writing else select.POLLIN)
        p.poll()
    else:  # pragma: no cover - not Linux or macOS
        select.select([] if writing else [fd], [fd] if writing else [], [fd])


def fileno(stream: object) -> int | None:
    """The descriptor under a Python file object, or None (a test's StringIO, a closed stream)."""
    try:
        return int(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return None


def read_stdin(stream: Any) -> bytes:
    """All of stdin (`stream`: sys.stdin), bounded by MAX_INPUT_BYTES: the one reader of every mode that reads it
    (KRM, the kustomize plugin, `explain`). Its descriptor is read to its end whatever its
    mode (io.stdio: a non-blocking pipe whose writer pauses is waited on, not cut short)."""
    src = getattr(stream, "buffer", stream)
    fd = fileno(src)
    try:
        if fd is None:  # no descriptor (a test's StringIO): its read() is whole
            data = src.read(MAX_INPUT_BYTES + 1)
            if isinstance(data, str):
                data = data.encode("utf-8")
            if len(data) > MAX_INPUT_BYTES:
                raise TooLarge(MAX_INPUT_BYTES)
        else:
            data = read_all(fd, MAX_INPUT_BYTES)
    except TooLarge:
        raise InputError(
            f"stdin holds more than {MAX_INPUT_BYTES // (1024 * 1024)} MiB; the function reads at most "
            "that much: split the input (kpt fn render runs it per package)"
        ) from None
    except OSError as e:
        raise InputError(f"cannot read stdin: {e.strerror or e}") from None
    return bytes(data)


# errno.EIO on every platform: `import errno` builds its tables of every error name, 1 M
# instructions at every start, for this one constant (issue 34)
_EIO = 5


def write_buffer(buf: Any, data: bytes) -> None:
    """buf.write until every byte is written, for a stream with no descriptor (a test's
    buffer): a raw file may take only part of a write."""
    view = memoryview(data)
    while view:
        n = buf.write(view)
        if n is None or n <= 0:
            raise OSError(_EIO, "stdout took none of the output")
        view = view[n:]
