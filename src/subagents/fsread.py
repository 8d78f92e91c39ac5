"""Reading a file that may be hostile: regular files only, never blocking, never unbounded.

A FIFO named ``*.md`` must not hang a scan, ``/dev/zero`` must not fill memory, and a file that
grows while it is read must not either.  :func:`read_regular` is the one way the readers that
scan untrusted folders (Claude Code's reading, the source snippets of ``validate``, the Grep
tool) open a file: ``O_NONBLOCK`` on open (a FIFO with no writer returns at once), ``fstat``
on the open descriptor (no race with a swap), and at most ``limit + 1`` bytes read, so the
caller can tell "too large" from "exactly the limit".
"""

from __future__ import annotations

import os
import stat

__all__ = ["NotRegular", "TooLarge", "read_regular"]


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a folder."""


class TooLarge(OSError):
    """The file is larger than the limit (``size`` says how large ``fstat`` found it)."""

    def __init__(self, size: int) -> None:
        super().__init__(f"the file is {size:,} bytes")
        self.size = size


def read_regular(
    path: str | os.PathLike[str], limit: int, *, follow_links: bool = True
) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``).

    Raises :class:`NotRegular`, :class:`TooLarge` or the ``OSError`` of the open or read
    (``ELOOP`` for a symlink when ``follow_links`` is false).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular("not a regular file")
        if st.st_size > limit:
            raise TooLarge(st.st_size)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew while it was read
        raise TooLarge(len(data))
    return data
