"""The benchmarks' cheap fixed-delay endpoint: keep-alive HTTP/1.1, scripted answers."""

from __future__ import annotations

import http.client
import json

from sscbench.testing.delay_server import DelayServer


def _post(conn: http.client.HTTPConnection, path: str, body: bytes) -> tuple[int, dict, str]:
    conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    answer = conn.getresponse()
    return answer.status, dict(answer.getheaders()), answer.read().decode()


def test_it_answers_keep_alive_requests_on_one_connection():
    seen = []

    def responder(body):
        seen.append(body)
        return {"content": f"answer {len(seen)}"}

    with DelayServer(responder, delay=0.01) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        bodies = [{"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}
                  for i in range(3)]  # fmt: skip
        answers = [_post(conn, "/v1/chat/completions", json.dumps(b).encode()) for b in bodies]
        conn.close()
        assert server.connections == 1 and server.answered == 3
    assert seen == bodies
    for i, (status, headers, data) in enumerate(answers, start=1):
        assert status == 200 and headers["Connection"] == "keep-alive"
        completion = json.loads(data)
        assert completion["object"] == "chat.completion"
        assert completion["choices"][0]["message"]["content"] == f"answer {i}"
        usage = completion["usage"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0


def test_it_refuses_other_routes_and_bodies_that_are_not_json():
    with DelayServer(lambda body: {"content": "x"}) as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        assert _post(conn, "/v1/embeddings", b"{}")[0] == 404
        status, _, data = _post(conn, "/v1/chat/completions", b"{not json")
        conn.close()
        assert status == 400 and "not JSON" in data
        assert server.answered == 0
