"""Our llama-cpp-python chat handler: render with :mod:`~sscbench.local.chat`, sample, parse.

llama-cpp-python calls a chat handler as ``handler(llama=..., messages=..., tools=...,
tool_choice=..., max_tokens=..., ...)`` and serves what it returns. Ours replaces the
stock ``chatml-function-calling`` handler, which drops tool results from the prompt,
ignores ``max_tokens`` and HTML-escapes the prompt.

Grammars (GBNF, compiled from the tools' JSON schemas):

* ``tool_choice: "required"`` or a named function: the reply must be one
  ``<tool_call>`` block whose JSON names a tool and matches its parameters' schema;
* ``tool_choice: "auto"``: the lenient grammar — a reply that starts a ``<tool_call>``
  must complete a well-formed call, any other reply is free text (switch off with
  ``lenient_auto=False``: then the output is parsed tolerantly as it comes);
* no tools or ``"none"``: no grammar.

A grammar forces one call per reply; without a grammar several calls are parsed.
``max_tokens`` is honoured (a default cap applies when a request sets none); a reply
cut by it inside a call keeps the call's name and its raw, malformed arguments.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Protocol

from sscbench.json_types import JsonMapping, JsonObject, JsonValue
from sscbench.local.chat import (
    STOP_STRINGS,
    call_grammar,
    chat_completion,
    parse_reply,
    rename_root,
    render_prompt,
    tool_mode,
)

DEFAULT_MAX_TOKENS = 512


class Llama(Protocol):
    """What the handler uses of a ``llama_cpp.Llama`` (the package is an optional extra)."""

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        """The token ids of ``text``."""
        ...

    def create_completion(self, **options: object) -> Mapping[str, JsonValue]:
        """A ``text_completion`` object for a prompt (``choices``, ``model``, ``usage``)."""
        ...


def _function_of(tool: JsonMapping) -> JsonMapping:
    function = tool.get("function")
    return function if isinstance(function, dict) else {}


def _call_schema(tool: JsonMapping) -> JsonObject:
    function = _function_of(tool)
    parameters = function.get("parameters") or {"type": "object"}
    properties: JsonObject = {"name": {"const": function.get("name", "")}, "arguments": parameters}
    return {"type": "object", "properties": properties, "required": ["name", "arguments"]}


def _loosen_arguments(schema: JsonObject) -> None:
    properties = schema["properties"]
    if isinstance(properties, dict):
        properties["arguments"] = {"type": "object"}


def _first_choice(completion: Mapping[str, JsonValue]) -> tuple[str, str | None]:
    """The text and finish reason of a completion's first choice."""
    choices = completion["choices"]
    choice = choices[0] if isinstance(choices, list) else None
    if not isinstance(choice, dict) or not isinstance(choice["text"], str):
        raise ValueError("llama.cpp answered without a text choice")
    finish = choice.get("finish_reason")
    return choice["text"], finish if isinstance(finish, str) else None


def _usage(completion: Mapping[str, JsonValue]) -> dict[str, int] | None:
    usage = completion.get("usage")
    if not isinstance(usage, dict):
        return None
    return {key: value for key, value in usage.items() if isinstance(value, int)}


def calls_gbnf(tools: Sequence[JsonMapping]) -> str:
    """GBNF rules defining ``call``: a JSON call object of any of ``tools``.

    A tool whose parameter schema the converter cannot handle falls back to any JSON
    object for its arguments.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    alternatives = []
    for tool in tools:
        schema = _call_schema(tool)
        try:
            json_schema_to_gbnf(json.dumps(schema))
        except Exception:  # an unusual parameter schema: keep the name, loosen the arguments
            _loosen_arguments(schema)
        alternatives.append(schema)
    combined = alternatives[0] if len(alternatives) == 1 else {"anyOf": alternatives}
    gbnf = json_schema_to_gbnf(json.dumps(combined), prop_order=["name", "arguments"])
    return rename_root(gbnf, "call")


class ChatHandler:
    """A ``LlamaChatCompletionHandler`` with Hermes-style tool calls on ChatML.

    ``last_prompt`` keeps the last rendered prompt (served at ``/sscbench/last-prompt``
    so tests can check what reached the model).
    """

    def __init__(self, *, lenient_auto: bool = True, default_max_tokens: int = DEFAULT_MAX_TOKENS):
        self.lenient_auto = lenient_auto
        self.default_max_tokens = default_max_tokens
        self.last_prompt: str | None = None
        self._grammars: dict[str, str] = {}
        self._lock = threading.Lock()

    def grammar_text(self, tools: Sequence[JsonMapping], mode: str, name: str | None) -> str:
        """The GBNF text for a request (cached by tools and mode)."""
        if mode == "named":
            chosen = [t for t in tools if _function_of(t).get("name") == name]
            if not chosen:
                raise ValueError(f"tool_choice names {name!r}, which is not among the tools")
            tools = chosen
        key = json.dumps([mode, name, list(tools)], sort_keys=True)
        with self._lock:
            cached = self._grammars.get(key)
        if cached is None:
            cached = call_grammar(calls_gbnf(tools), lenient=mode == "auto")
            with self._lock:
                self._grammars[key] = cached
        return cached

    def __call__(
        self,
        *,
        llama: Llama,
        messages: list[JsonObject],
        functions: list[JsonObject] | None = None,
        function_call: JsonValue = None,
        tools: list[JsonObject] | None = None,
        tool_choice: JsonValue = None,
        temperature: float = 0.2,
        top_p: float = 0.95,
        top_k: int = 40,
        min_p: float = 0.05,
        typical_p: float = 1.0,
        stream: bool = False,
        stop: str | list[str] | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
        presence_penalty: float = 0.0,
        frequency_penalty: float = 0.0,
        repeat_penalty: float = 1.1,
        model: str | None = None,
        grammar: object = None,
        logit_bias: dict[str, float] | None = None,
        **_ignored: object,
    ) -> JsonObject:
        """Answer one chat-completions request (non-streaming) as a ``chat.completion``."""
        from llama_cpp.llama_grammar import LlamaGrammar

        if stream:
            raise ValueError("stream=true is not supported by sscbench serve-local")
        if functions and not tools:  # the legacy API
            tools = [{"type": "function", "function": f} for f in functions]
            if isinstance(function_call, dict):
                tool_choice = {"type": "function", "function": function_call}
            elif function_call is not None:
                tool_choice = function_call
        mode, name = tool_mode(tools, tool_choice)
        prompt = render_prompt(messages, tools)
        self.last_prompt = prompt
        if grammar is None and (
            mode in ("required", "named") or (mode, self.lenient_auto) == ("auto", True)
        ):
            grammar = LlamaGrammar.from_string(
                self.grammar_text(tools or [], mode, name), verbose=False
            )
        stops = list(STOP_STRINGS) + ([stop] if isinstance(stop, str) else list(stop or []))
        limit = max_tokens if max_tokens is not None and max_tokens > 0 else None
        completion = llama.create_completion(
            prompt=llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True),
            max_tokens=limit or self.default_max_tokens,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            typical_p=typical_p,
            stop=stops,
            seed=seed,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            repeat_penalty=repeat_penalty,
            grammar=grammar,
            logit_bias=logit_bias,
        )
        output, finish_reason = _first_choice(completion)
        names = [str(_function_of(t).get("name", "")) for t in tools or []]
        reply = parse_reply(output, names, allow_calls=mode != "text")
        return chat_completion(
            reply,
            prompt=prompt,
            output=output,
            model=model or str(completion.get("model") or "local"),
            finish_reason=finish_reason,
            usage=_usage(completion),
        )
