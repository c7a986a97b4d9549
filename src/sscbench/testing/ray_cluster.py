"""A real local Ray cluster for tests and benchmarks: a head (and worker nodes) on 127.0.0.1.

Worker nodes (``nodes``) join through Ray's bootstrap, which rewrites 127.0.0.1 to the
machine's interface address unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which in
turn refuses a join: on one machine use the head alone, with custom ``resources``.

``ray start`` (subprocesses) with an explicit CPU count, no dashboard, a small object
store, usage stats off and a temporary folder of its own; :meth:`LocalRayCluster.stop`
ends exactly the processes of this cluster (those naming its temporary folder), never
another Ray on the machine (``ray stop`` would end every one), and checks none is left.

    with LocalRayCluster(head_cpus=2, resources={"endpoint-b": 4}) as c:
        os.environ.update(c.auth_env)  # the driver authenticates with the cluster's token
        execute_study(..., executor="ray", address=c.address)
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

OBJECT_STORE_BYTES = 100 * 1024 * 1024


class Node(TypedDict, total=False):
    """A worker node: its CPUs (1 when absent) and custom resources."""

    cpus: int
    resources: dict[str, float]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


_TOKEN: list[Path] = []


def process_token() -> Path:
    """The auth token file of every cluster this process starts (made once, removed when
    the process exits): a driver's ``ray`` reads its token when first imported, so a
    second cluster with a token of its own could not be joined from the same process
    (one test module measuring on Ray, the next running a study on Ray)."""
    if not _TOKEN:
        folder = Path(tempfile.mkdtemp(prefix="sscray-token-", dir="/tmp"))
        token = folder / "auth_token"
        token.write_text(secrets.token_hex(32))
        token.chmod(0o600)
        atexit.register(shutil.rmtree, folder, True)
        _TOKEN.append(token)
    return _TOKEN[0]


class LocalRayCluster:
    """A head node and optional worker nodes (``{"cpus": n, "resources": {...}}`` each)."""

    def __init__(
        self,
        head_cpus: int = 2,
        nodes: Sequence[Node] | None = None,
        env: dict[str, str] | None = None,
        resources: dict[str, float] | None = None,
    ):
        self.head_cpus = head_cpus
        self.resources = resources
        self.nodes = nodes or []
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        # short: Ray's unix sockets live under it (a socket path has at most 107 bytes)
        self.temp_dir = tempfile.mkdtemp(prefix="sscray-", dir="/tmp")
        # token authentication (Ray's default for local clusters from 2.59): a token of
        # this cluster's own, for its nodes and for a driver that sets ``auth_env``
        token = process_token()
        self.auth_env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
        self.env = {
            **os.environ,
            "RAY_USAGE_STATS_ENABLED": "0",
            **self.auth_env,
            **(env or {}),
        }

    def _ray(self, *args: str) -> None:
        command = [sys.executable, "-m", "ray.scripts.scripts", *args]
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=180)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr[-2000:]}")

    def _common(self, cpus: int, resources: dict[str, float] | None) -> list[str]:
        args = [
            "--node-ip-address=127.0.0.1",
            f"--num-cpus={cpus}",
            f"--object-store-memory={OBJECT_STORE_BYTES}",
            "--disable-usage-stats",
        ]
        if resources:
            args.append(f"--resources={json.dumps(resources)}")
        return args

    def start(self) -> LocalRayCluster:
        """Start the head, then each worker node joined to it."""
        try:
            self._ray(
                "start",
                "--head",
                f"--port={self.port}",
                f"--temp-dir={self.temp_dir}",
                "--include-dashboard=false",
                *self._common(self.head_cpus, self.resources),
            )
            for node in self.nodes:
                self._ray(
                    "start",
                    f"--address={self.address}",
                    *self._common(node.get("cpus", 1), node.get("resources")),
                )
        except BaseException:
            self.stop()
            raise
        return self

    def pids(self) -> list[int]:
        """The processes of this cluster: those whose command line names its folder or
        port, and their descendants (a worker retitles itself ``ray::...``)."""
        parents: dict[int, int] = {}
        mine: set[int] = set()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            pid = int(entry.name)
            parents[pid] = _parent(pid)
            line = _cmdline(pid)
            if self.temp_dir in line or f"127.0.0.1:{self.port}" in line:
                mine.add(pid)
        grew = True
        while grew:
            children = {pid for pid, parent in parents.items() if parent in mine} - mine
            mine |= children
            grew = bool(children)
        return sorted(mine)

    def worker_pids(self, name: str) -> list[int]:
        """Worker processes whose title names ``name`` (an actor's class, e.g. ``Worker``)."""
        return [
            pid
            for pid in self.pids()
            if _cmdline(pid).startswith("ray::") and name in _cmdline(pid)
        ]

    def stop(self) -> None:
        """End this cluster's processes (TERM, then KILL) and remove its folder."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = self.pids()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + (3 if sig == signal.SIGTERM else 10)
            while self.pids() and time.monotonic() < deadline:
                time.sleep(0.1)
            if not self.pids():
                break
        left = self.pids()
        shutil.rmtree(self.temp_dir, ignore_errors=True)
        if left:
            raise RuntimeError(f"Ray processes left running: {left}")

    def __enter__(self) -> LocalRayCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
