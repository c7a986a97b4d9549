"""The ``[oracles]`` settings of a study config, scored by ``sscbench run``.

Two steps, both called from the command line above ``run``:

* :func:`check_scoring` — before any run: every setting is a registered oracle that
  can start with the configured endpoint (an LLM setting without ``[oracles.endpoint]``
  stops the study here, naming the file and field: fail closed, never skipped), and a
  reference labels file exists;
* :func:`score_configured` — after measuring, before the report: each setting is scored
  and written at once by the code ``validate-oracle`` uses
  (:func:`~sscbench.oracles.suite.score_study`, :func:`~sscbench.oracles.suite.write_results`),
  one setting at a time, so a crash keeps every setting already written; a setting
  whose ``oracles/<name>.json`` records the same inputs (``scored_from``) is not redone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sscbench.errors import DataError
from sscbench.json_types import JsonMapping
from sscbench.oracles.base import OracleSettings
from sscbench.oracles.registry import make_oracle
from sscbench.oracles.scored_from import scored_from
from sscbench.oracles.suite import score_study, write_results
from sscbench.reading import loads_json

if TYPE_CHECKING:
    from sscbench.study.config import StudyConfig


def _reference(config: StudyConfig) -> str:
    assert config.oracles is not None  # callers return early without [oracles]
    reference = config.oracles.reference
    return reference if reference == "calibration" else str(config.resolve(reference))


def check_scoring(config: StudyConfig, path: str | Path) -> None:
    """Refuse (DataError naming ``path`` and the field) ``[oracles]`` settings that
    could not be scored: an unknown name, an LLM setting without an endpoint, a
    reference file that does not exist. Nothing to check without ``[oracles]``."""
    scoring = config.oracles
    if scoring is None:
        return
    settings = OracleSettings(endpoint=scoring.endpoint)
    for index, name in enumerate(scoring.settings):
        field = f"oracles.settings[{index}]"
        try:
            oracle = make_oracle(name, settings)
        except KeyError as exc:
            raise DataError(path, field, str(exc.args[0])) from None
        except DataError as exc:
            if scoring.endpoint is None:
                raise DataError(
                    path,
                    "oracles.endpoint",
                    f"the oracle setting {name!r} ({field}) needs a model endpoint: add an "
                    "[oracles.endpoint] table (base_url, model) or remove the setting",
                ) from None
            raise DataError(path, field, exc.reason) from None
        except (TypeError, ValueError) as exc:
            raise DataError(path, field, str(exc)) from None
        oracle.close()
    if scoring.reference != "calibration" and not Path(_reference(config)).is_file():
        raise DataError(path, "oracles.reference", f"no such labels file: {_reference(config)}")


def _unchanged(folder: Path, name: str, wanted: JsonMapping) -> bool:
    """True when ``name``'s results are all there and record the inputs ``wanted``."""
    if not all((folder / f"{name}{s}").is_file() for s in (".verdicts.jsonl", ".csv")):
        return False
    try:
        recorded = loads_json((folder / f"{name}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded.get("scored_from") == wanted


def score_configured(study: Path, config: StudyConfig) -> dict[str, str]:
    """Score the config's ``[oracles]`` settings on the measured ``study`` and write each
    to ``STUDY/oracles/`` as soon as it is scored; by name, ``"scored"`` or
    ``"unchanged"`` (its recorded inputs equal today's: not redone)."""
    from sscbench.study.lock import StudyLock
    from sscbench.study.verify import require_study, verify_study

    scoring = config.oracles
    if scoring is None:
        return {}
    settings = OracleSettings(endpoint=scoring.endpoint)
    reference = _reference(config)
    done: dict[str, str] = {}
    require_study(study)
    with StudyLock(study):
        verify_study(study, keep_entries=False)
        for name in scoring.settings:
            wanted = scored_from(
                study, name, settings, reference, scoring.clean_controls, scoring.seed
            )
            if _unchanged(study / "oracles", name, wanted):
                done[name] = "unchanged"
                continue
            results = score_study(
                study,
                [name],
                settings,
                reference,
                clean_per_operator=scoring.clean_controls,
                seed=scoring.seed,
            )
            write_results(study, results)
            done[name] = "scored"
    return done


__all__ = ["check_scoring", "score_configured"]
