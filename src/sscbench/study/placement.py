"""Where a command's work runs: the executor and Ray cluster its command line chose, else
the study's own ``[study]`` settings; and joining that Ray cluster.

Shared by ``run`` (episodes: :mod:`sscbench.run.prepare`, :mod:`sscbench.run.ray_executor`)
and ``measure`` (measurement lines: :mod:`sscbench.measure.on_ray`), so both resolve
``--executor`` / ``--address`` / ``--workers`` against ``[study]`` the same way and join a
cluster (or start a private local one) the same way. ``ray`` is imported here only, and
lazily (:func:`import_ray`).
"""

from __future__ import annotations

import logging
import os
import sys
from types import ModuleType

from sscbench.errors import DataError
from sscbench.reading import loads_toml, read_text
from sscbench.study.config import StudySettings
from sscbench.study.folder import StudyDir
from sscbench.study.ray_config import RaySettings

RAY_MISSING = "the ray executor needs Ray, an optional extra: pip install 'sscbench[ray]'"

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def chosen_executor(
    settings: StudySettings, executor: str | None, address: str | None
) -> tuple[str, str | None]:
    """The executor and Ray address a command uses: ``--executor`` and ``--address`` when
    given, else the study's ``[study] executor`` and ``[study.ray] address``."""
    return executor or settings.executor, address or settings.ray.address


def ray_workers(settings: RaySettings, workers: int | None) -> RaySettings:
    """``[study.ray]`` with ``--workers`` (when given) as its worker count."""
    return settings if workers is None else settings.model_copy(update={"workers": workers})


def recorded_study_settings(store: StudyDir) -> StudySettings:
    """The ``[study]`` table of the config a study was started with (its ``config.toml``:
    placement such as ``executor`` and ``[study.ray]`` is kept out of ``config.json``'s
    canonical config); defaults for a study that kept no ``config.toml``."""
    if not store.config_toml.exists():
        return StudySettings()
    raw = loads_toml(store.config_toml, read_text(store.config_toml)).get("study", {})
    try:
        return StudySettings.model_validate(raw)
    except ValueError as exc:
        reason = str(exc).splitlines()[0]
        raise DataError(store.config_toml, "study", reason) from None


def is_loopback(address: str | None) -> bool:
    """Whether the cluster is this machine's own loopback one (or a private one: None)."""
    if address is None:
        return True
    host = address.removeprefix("ray://").rsplit(":", 1)[0]
    return host in LOOPBACK_HOSTS


def import_ray(loopback: bool) -> ModuleType:
    """The ``ray`` module, or a clear error naming the extra that installs it.

    Usage stats stay off. For a cluster on 127.0.0.1 Ray is told it runs on one machine
    (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read when ``ray`` is first imported);
    otherwise it rewrites 127.0.0.1 to the machine's interface address and its traffic
    would leave the loopback.
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if loopback and "ray" not in sys.modules:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise DataError("<config>", "study.executor", RAY_MISSING) from None
    return ray


def local_cluster_options(cpus: int, object_store_mb: int) -> dict[str, object]:
    """``ray.init`` options of a private local cluster: 127.0.0.1 only, no dashboard,
    a small object store, an explicit CPU count (a shared machine)."""
    return {
        "num_cpus": cpus,
        "object_store_memory": object_store_mb * 1024 * 1024,
        "include_dashboard": False,
        "_node_ip_address": "127.0.0.1",
    }


def join_ray(settings: RaySettings, address: str | None) -> tuple[ModuleType, bool]:
    """Join the cluster at ``address`` (or start a private local one of
    ``[study.ray] local_cpus``): the ``ray`` module and whether this process started Ray
    here (then it shuts it down when done; a cluster already joined is reused)."""
    ray = import_ray(is_loopback(address))
    if ray.is_initialized():
        return ray, False
    options: dict[str, object] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        options |= local_cluster_options(settings.local_cpus, settings.object_store_mb)
    else:
        options["address"] = address
    try:
        ray.init(**options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise DataError(
            address or "<local ray>", "study.ray.address", f"cannot join: {exc}"
        ) from exc
    return ray, True


def wait_started(
    ray: ModuleType, refs: list[object], timeout: float, field: str, words: tuple[str, str]
) -> None:
    """Wait until the actors' ``ready`` calls ``refs`` are answered: a
    :class:`DataError` naming ``field`` when some are not within ``timeout`` seconds
    (``words``: what the actors are, and the question the message ends with: "N of M
    {what} did not start within T s: {question}"). Ray's own errors pass through."""
    _, waiting = ray.wait(refs, num_returns=len(refs), timeout=timeout)
    if waiting:
        what, question = words
        raise DataError(
            "<ray cluster>",
            field,
            f"{len(waiting)} of {len(refs)} {what} did not start within {timeout:g} s: {question}",
        )
