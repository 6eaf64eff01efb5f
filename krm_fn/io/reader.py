"""The one way the function opens a file it reads: every FILE and context file of files
mode, `--config` (also `explain --config`), the kustomize plugin's config argument, a
package's Kptfile and the file its `configPath` names. One set of rules for all of them:

- a regular file only. The file is opened with O_NONBLOCK and examined with fstat before a
  byte is read, so a FIFO is refused at once (it would block until a writer came), a device
  such as /dev/zero or /dev/urandom is refused before it is read (it never ends), and a
  directory, a dangling symbolic link or a symbolic link loop each say what they are;
- at most MAX_FILE_BYTES (a larger file is refused, not read).

The output of a command the function reads as a file's text (git's copy of a file at HEAD,
modes/before) goes through read_command: the same limit and the same refusal (FileRefused,
naming what was read), and a command that cannot be run, fails or takes too long is refused
the same way, never a traceback.

What is read is YAML for a parser: the callers give it to the guarded loaders of krm_fn.yaml
(depth and alias bounds before any C parser reads it). `test_reader` keeps every other way of
opening a file out of krm_fn.
"""
from __future__ import annotations

import errno
import os
import stat

from krm_fn.core.errors import InputError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (#5: ~6 ms at start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_FILE_BYTES = 256 * 1024 * 1024  # a larger file is refused, not read


class FileRefused(InputError):
    """A file that is not read: str(e) is `<name>: <reason>`; `reason` alone is what is wrong
    with it and what to do."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason

    @property
    def detail(self) -> str:
        """The reason, for a message that already says the file cannot be read."""
        return self.reason.removeprefix("cannot be read: ")


def read_bytes(
    path: str | os.PathLike[str], name: str | None = None, limit: int | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `path` and its stat as read. `name` is how messages name
    it (default: the path); `limit`: the most bytes it may have (default MAX_FILE_BYTES).
    Raises FileRefused for anything else, or a file that cannot be read."""
    shown = os.fspath(path) if name is None else name
    if limit is None:
        limit = MAX_FILE_BYTES
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise FileRefused(shown, _open_failure(path, e)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileRefused(shown, _not_regular(st.st_mode))
        if st.st_size > limit:
            raise FileRefused(shown, f"is {_mib(st.st_size)}; the function reads files of at most {_mib(limit)}: split it")
        # the size fstat gave and one byte more, to see a file that grew: reading the limit at
        # once would allocate (and map) 256 MB per file, ~0.1 ms each
        data = _read_up_to(fd, st.st_size + 1)
        if len(data) > st.st_size:
            data += _read_up_to(fd, limit + 1 - len(data))
    except OSError as e:
        raise FileRefused(shown, f"cannot be read: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileRefused(shown, f"grew past {_mib(limit)} while it was read: split it")
    return data, st


def read_text(path: str | os.PathLike[str], name: str | None = None) -> str:
    """read_bytes decoded as UTF-8 (a configuration file: a policy, a Kptfile). Raises
    FileRefused."""
    shown = os.fspath(path) if name is None else name
    data, _st = read_bytes(path, shown)
    try:
        return utf8(data)
    except InputError as e:
        raise FileRefused(shown, str(e)) from None


def utf8(data: bytes) -> str:
    """`data` decoded as UTF-8; InputError naming the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})") from None


def read_command(
    argv: list[str], name: str, stdin: bytes = b"", cwd: str | None = None, env: dict[str, str] | None = None,
    timeout: float = 10.0, limit: int | None = None,
) -> bytes:
    """The standard output of `argv` run in `cwd` with `stdin` as its input: at most `limit`
    bytes (default MAX_FILE_BYTES; the command is stopped past it), within `timeout` seconds.
    Raises FileRefused naming `name` when the command cannot be run, exits non-zero (with the
    first line it wrote to stderr), writes more than the limit or takes longer."""
    import subprocess
    import time

    if limit is None:
        limit = MAX_FILE_BYTES
    command = os.path.basename(argv[0])
    try:
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
    except OSError as e:
        raise FileRefused(name, f"cannot be read: {command} cannot be run ({e.strerror or e})") from None
    out, err, problem = _pump(p, stdin, time.monotonic() + timeout, limit)
    if problem == "timeout":
        problem = f"cannot be read: {command} gave no answer within {timeout:g} s"
    if problem is not None:
        p.kill()
    for f in (p.stdin, p.stdout, p.stderr):
        if f is not None and not f.closed:
            f.close()
    code = p.wait()
    if problem is not None:
        raise FileRefused(name, problem)
    if code != 0:
        said = b"".join(err).decode("utf-8", "replace").strip().splitlines()
        raise FileRefused(name, f"cannot be read: {command} exited with {code}" + (f" ({said[0]})" if said else ""))
    return b"".join(out)


def _pump(p: Any, stdin: bytes, deadline: float, limit: int) -> tuple[list[bytes], list[bytes], str | None]:
    """Feed `stdin` to the process `p` and read its stdout and stderr until both end: (stdout's
    chunks, stderr's first chunks, what went wrong: "timeout" or the stdout past `limit`)."""
    import selectors
    import time

    feed = p.stdin
    feed_fd = feed.fileno()
    out: list[bytes] = []
    err: list[bytes] = []
    size = 0
    problem = None
    pending = memoryview(stdin)
    with selectors.DefaultSelector() as sel:
        if pending:
            os.set_blocking(feed_fd, False)
            sel.register(feed, selectors.EVENT_WRITE)
        else:
            feed.close()
        sel.register(p.stdout, selectors.EVENT_READ, out)
        sel.register(p.stderr, selectors.EVENT_READ, err)
        while len(sel.get_map()) and problem is None:
            left = deadline - time.monotonic()
            ready = sel.select(left) if left > 0 else []
            if not ready:
                problem = "timeout"
            for key, _ev in ready:
                if key.fd == feed_fd:
                    try:
                        pending = pending[os.write(feed_fd, pending[: 1 << 16]):]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(feed)
                        feed.close()
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                key.data.append(chunk)
                if key.data is out:
                    size += len(chunk)
                    if size > limit:
                        problem = f"is more than {_mib(limit)}; the function reads files of at most {_mib(limit)}"
                elif sum(map(len, err)) > 1 << 16:
                    del err[1:]
    return out, err, problem


def is_present(path: str | os.PathLike[str]) -> bool:
    """Whether something, of any kind, is at `path` (a dangling link included): a Kptfile
    that is there but is no regular file is refused by read_bytes, not taken for none."""
    return os.path.lexists(path) and not os.path.isdir(path)


def _mib(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB"


def _read_up_to(fd: int, n: int) -> bytes:
    """Up to `n` bytes of `fd`, fewer only at its end."""
    parts: list[bytes] = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 30))
        if not chunk:
            break
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory, not a YAML file; pass the YAML files in it"
    if stat.S_ISFIFO(mode):
        what = "a FIFO"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    else:
        what = "not a regular file"
    return f"is {what}, not a regular file; the function reads regular YAML files only: pass one"


def _open_failure(path: str | os.PathLike[str], e: OSError) -> str:
    """What is wrong with a path that cannot be opened, in words."""
    if e.errno == errno.ELOOP:
        return "is a symbolic link loop (or a path through one); point the link at a file"
    if e.errno == errno.ENOENT and os.path.islink(path):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"is a dangling symbolic link (to {target}, which does not exist); fix or remove the link"
    if e.errno == errno.ENAMETOOLONG:
        return _too_long(os.fsencode(path))
    if e.errno == errno.ENXIO:
        try:
            return _not_regular(os.stat(path).st_mode)
        except OSError:
            pass
    return f"cannot be read: {e.strerror or e}"


def _too_long(path: bytes) -> str:
    """Which limit a path the system refused as too long passes: a name past NAME_MAX, or
    the whole path past PATH_MAX."""
    longest = max((len(part) for part in path.split(b"/")), default=0)
    try:
        name_max = os.pathconf(b"/".join(path.split(b"/")[:1]) or b"/", "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    if longest > name_max:
        return (
            f"cannot be read: a name in its path is {longest} bytes, longer than the file system "
            f"allows ({name_max}, NAME_MAX): check the path"
        )
    return (
        f"cannot be read: its path is {len(path)} bytes, longer than the system allows (PATH_MAX): "
        "pass it relative to a directory nearer to it (cd there first)"
    )
