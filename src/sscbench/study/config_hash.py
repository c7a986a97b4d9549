"""The canonical form of a study config that its hash is taken over.

A field added to the config after studies were recorded is marked ``LATER`` (its
``json_schema_extra``); while it holds its default it is left out of the canonical
JSON, so a study recorded before the field existed keeps its hash and resumes.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from sscbench.json_types import JsonObject

LATER: JsonObject = {"later": True}
"""``json_schema_extra`` of a field that joined the config after studies were recorded."""


def _drop_later_defaults(model: BaseModel, data: JsonObject) -> None:
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        extra = info.json_schema_extra
        later = isinstance(extra, dict) and bool(extra.get("later"))
        if later and value == info.get_default(call_default_factory=True):
            data.pop(name, None)
            continue
        dumped = data.get(name)
        if isinstance(value, BaseModel) and isinstance(dumped, dict):
            _drop_later_defaults(value, dumped)
        elif isinstance(value, list) and isinstance(dumped, list):
            for item, one in zip(value, dumped, strict=True):
                if isinstance(item, BaseModel) and isinstance(one, dict):
                    _drop_later_defaults(item, one)


def canonical_config_json(config: BaseModel) -> str:
    """``config`` as canonical JSON (sorted keys, no spaces), later fields at their
    defaults left out: the text a study's config hash is taken over."""
    data = config.model_dump(mode="json")
    _drop_later_defaults(config, data)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))
