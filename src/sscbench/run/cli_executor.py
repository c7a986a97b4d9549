"""The options of ``sscbench run`` that say where its episodes are made: ``--executor``,
``--workers`` and ``--address`` (:mod:`sscbench.run.processes`,
:mod:`sscbench.run.ray_executor`)."""

from __future__ import annotations

from typing import Annotated

import typer

from sscbench.errors import DataError

EXECUTORS = ("local", "processes", "ray")

ExecutorName = Annotated[
    str | None,
    typer.Option(
        "--executor",
        help="where episodes are made: local (this process), processes (child processes on "
        "every core) or ray (default: \\[study] executor)",
    ),
]
Workers = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="child processes (--executor processes; default: \\[study.processes] workers, "
        "else the CPU count) or Ray workers per pool (default: \\[study.ray] workers)",
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="the Ray cluster: auto, ray://HOST:PORT or HOST:PORT (default: \\[study.ray] "
        "address, else a private local cluster)",
    ),
]


def check_executor(name: str | None) -> None:
    """Refuse an executor sscbench does not have, before anything is built."""
    if name not in (None, *EXECUTORS):
        raise DataError("--executor", None, f"{name!r} is not 'local', 'processes' or 'ray'")
