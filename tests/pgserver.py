"""A throw-away PostgreSQL server on 127.0.0.1 for the batch tests and the batch benchmark.

``with postgres_server() as url:`` runs ``initdb`` into a fresh temporary folder, starts
``postgres`` on a free loopback port (its socket in that folder too, nothing system-wide),
yields ``postgresql://postgres@127.0.0.1:PORT/postgres`` and stops the server and removes the
folder at the end.  PostgreSQL refuses to run as root, so as root the server runs as the
unprivileged user ``nobody`` (the folder is handed to it).  The binaries come from the PATH
or from Debian's ``/usr/lib/postgresql/<version>/bin`` (``apt-get install postgresql``, as
``.ci/run`` does).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None when PostgreSQL is missing."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    bindir = binaries()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    user: str | None = None
    if os.geteuid() == 0:
        user = "nobody"
    folder = Path(tempfile.mkdtemp(prefix="subagents-pg-"))
    data = folder / "data"
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    port = _free_port()
    env = {"PATH": os.environ.get("PATH", ""), "LANG": "C", "LC_ALL": "C"}

    def run(*args: str) -> None:
        subprocess.run([str(bindir / args[0]), *args[1:]], check=True, user=user, env=env,
                       cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       timeout=120)

    try:
        run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        run("pg_ctl", "-D", str(data), "-l", str(folder / "server.log"), "-w", "-t", "60",
            "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                  "-c max_connections=200", "start")
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(Exception):
            run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)
