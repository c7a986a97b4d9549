"""Load τ-bench's original worlds from a data folder or a τ-bench git checkout.

Two layouts are understood, without importing τ-bench:

* a data folder like ``shared/tau-bench``: ``<domain>/<table>.json``,
  ``<domain>/tasks_<split>.json``, ``<domain>/tools.json``, ``<domain>/policy.md``;
* a checkout: ``tau_bench/envs/<domain>/data/<table>.json``, ``wiki.md`` and the task
  modules ``tasks*.py``, read with :mod:`ast` (literals only).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from sscbench.errors import DataError
from sscbench.json_types import JsonArray, JsonObject, JsonValue
from sscbench.reading import json_reason, loads_json, read_text
from sscbench.world.domains import TABLES, registry_for
from sscbench.world.state import BaseData
from sscbench.world.task import Action, Task
from sscbench.world.world import World


def _read_json(path: Path) -> JsonValue:
    text = read_text(path)
    try:
        return loads_json(text)
    except json.JSONDecodeError as exc:
        raise DataError(path, f"line {exc.lineno} column {exc.colno}", exc.msg) from exc
    except ValueError as exc:
        raise DataError(path, None, json_reason(exc)) from exc


def _task_from_mapping(raw: JsonValue, domain: str, task_id: str, path: Path) -> Task:
    where = f"{task_id}"
    if not isinstance(raw, dict):
        raise DataError(path, where, "a task must be an object")
    try:
        outputs = raw.get("outputs") or ()
        return Task(
            task_id=task_id,
            domain=domain,
            user_id=raw["user_id"],
            instruction=raw["instruction"],
            actions=tuple(_action(a) for a in _items(raw.get("actions", []), "actions")),
            outputs=tuple(_items(outputs, "outputs")),
            annotator=None if raw.get("annotator") is None else str(raw["annotator"]),
        )
    except KeyError as exc:
        raise DataError(path, f"{where}.{exc.args[0]}", "required field missing") from exc
    except (TypeError, ValueError) as exc:
        raise DataError(path, where, str(exc)) from exc


def _items(value: JsonValue | tuple[()], what: str) -> JsonArray:
    """The items of a task's list field (a string counts as its characters, as before)."""
    if isinstance(value, str):
        return list(value)
    if not isinstance(value, list | tuple):
        raise TypeError(f"{what} must be a list, not {type(value).__name__}")
    return value


def _action(raw: JsonValue) -> Action:
    """One ground-truth call of a task: ``name`` and ``kwargs`` (missing or null: none)."""
    if not isinstance(raw, dict):
        raise TypeError(f"an action must be an object, not {type(raw).__name__}")
    kwargs = raw.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise TypeError(f"an action's kwargs must be an object, not {type(kwargs).__name__}")
    return Action(name=raw["name"], kwargs=dict(kwargs))


def _split_of(path: Path) -> str:
    stem = path.stem
    return stem.split("_", 1)[1] if "_" in stem else "test"


def _tasks_from_json_files(folder: Path, domain: str) -> list[Task]:
    tasks: list[Task] = []
    for path in sorted(folder.glob("tasks_*.json"), key=_split_order):
        raw = _read_json(path)
        if not isinstance(raw, list):
            raise DataError(path, None, "expected a JSON list of tasks")
        split = _split_of(path)
        tasks.extend(_task_from_mapping(t, domain, f"{split}/{i}", path) for i, t in enumerate(raw))
    return tasks


def _split_order(path: Path) -> tuple[int, str]:
    order = {"test": 0, "train": 1, "dev": 2}
    return (order.get(_split_of(path), 3), path.name)


def _literal_call(node: ast.Call, path: Path) -> JsonObject:
    """The keyword arguments of a ``Task(...)`` / ``Action(...)`` call (literals, as JSON)."""
    out: JsonObject = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            continue
        value = keyword.value
        if isinstance(value, ast.List) and keyword.arg == "actions":
            out["actions"] = [
                _literal_call(elt, path) for elt in value.elts if isinstance(elt, ast.Call)
            ]
            continue
        try:
            out[keyword.arg] = ast.literal_eval(value)
        except ValueError as exc:
            raise DataError(path, f"line {value.lineno} {keyword.arg}", "not a literal") from exc
    return out


def _tasks_from_python(path: Path, domain: str) -> list[Task]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        raise DataError(path, f"line {exc.lineno}", exc.msg or "syntax error") from exc
    except UnicodeDecodeError as exc:
        raise DataError(path, None, f"not UTF-8 text (byte {exc.start})") from exc
    split = _split_of(path)
    tasks: list[Task] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            calls = [e for e in node.value.elts if isinstance(e, ast.Call)]
            if not calls or not all(_call_name(c) == "Task" for c in calls):
                continue
            for call in calls:
                raw = _literal_call(call, path)
                tasks.append(_task_from_mapping(raw, domain, f"{split}/{len(tasks)}", path))
    return tasks


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _checkout_folder(root: Path, domain: str) -> Path | None:
    folder = root / "tau_bench" / "envs" / domain
    return folder if (folder / "data").is_dir() else None


def _check_schemas(path: Path, schemas: JsonValue, domain: str) -> list[JsonObject]:
    if not isinstance(schemas, list):
        raise DataError(path, None, "expected a JSON list of tool schemas")
    registry = registry_for(domain)
    names: list[str] = []
    checked: list[JsonObject] = []
    for i, schema in enumerate(schemas):
        function = schema.get("function") if isinstance(schema, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(schema, dict) or not isinstance(name, str):
            raise DataError(path, f"[{i}].function.name", "missing")
        names.append(name)
        checked.append(schema)
    if sorted(names) != sorted(registry.specs):
        raise DataError(
            path,
            None,
            f"tools {sorted(names)} differ from the {domain} tools {sorted(registry.specs)}",
        )
    return checked


def load_taubench_world(root: str | Path, domain: str) -> World:
    """τ-bench's original ``domain`` world from a data folder or a checkout at ``root``."""
    root = Path(root)
    if domain not in TABLES:
        raise DataError(
            root, "domain", f"unknown domain {domain!r}; expected one of {sorted(TABLES)}"
        )
    checkout = _checkout_folder(root, domain)
    schemas = None
    if checkout is not None:
        data_folder = checkout / "data"
        policy_path = checkout / "wiki.md"
        tasks: list[Task] = []
        for path in sorted(checkout.glob("tasks*.py"), key=_split_order):
            if path.stem == "tasks" or path.stem.startswith("tasks_"):
                tasks.extend(
                    t.model_copy(update={"task_id": f"{_split_of(path)}/{i}"})
                    for i, t in enumerate(_tasks_from_python(path, domain))
                )
    else:
        data_folder = root / domain
        if not data_folder.is_dir():
            raise DataError(
                root, domain, "neither <dir>/<domain>/ nor tau_bench/envs/<domain>/data/ exists"
            )
        policy_path = data_folder / "policy.md"
        tasks = _tasks_from_json_files(data_folder, domain)
        tools_path = data_folder / "tools.json"
        if tools_path.exists():
            schemas = _check_schemas(tools_path, _read_json(tools_path), domain)
    tables = {}
    for table in TABLES[domain]:
        path = data_folder / f"{table}.json"
        content = _read_json(path)
        if not isinstance(content, dict):
            raise DataError(path, None, "expected a JSON object keyed by id")
        tables[table] = content
    try:
        policy = policy_path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DataError(policy_path, None, "file not found") from exc
    except UnicodeDecodeError as exc:
        raise DataError(policy_path, None, f"not UTF-8 text (byte {exc.start})") from exc
    return World(
        name=f"tau-bench/{domain}",
        domain=domain,
        source="tau-bench",
        base=BaseData(tables),
        tools=registry_for(domain),
        policy=policy,
        tasks=tasks,
        schemas=schemas,
    )
