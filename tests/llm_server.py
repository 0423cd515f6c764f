"""A local OpenAI-compatible chat server for offline LLM tests.

It listens on loopback, answers POST .../chat/completions from a script (texts, HTTP errors,
delays), and records every request, so a test can check what litellm really sent and how many
requests reached the server."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ScriptedServer:
    """`script` items: a reply text; {"status": 429} (or any error status); {"sleep": s, "text": t};
    {"text": t, "usage": [prompt, completion]}; {"drip": s, "text": t}: the status line and headers at
once, then the body one byte a second for at most `s` seconds, then the connection is dropped (a
server that dribbles: every read gets a byte, so no per-read timeout ever trips; it stops by itself). When the script runs out, `respond(body)` answers
    (a model that reads the request, e.g. tests/knowing_model.py), else `default`."""

    def __init__(self, script=(), default: str | None = None, respond=None):
        self.script = list(script)
        self.default = default
        self.respond = respond
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
                    item = server.script.pop(0) if server.script else server.respond(body) if server.respond else server.default
                if item is None:
                    return self._send(500, {"error": {"message": "script exhausted", "type": "server_error"}})
                if isinstance(item, str):
                    item = {"text": item}
                if "sleep" in item:
                    time.sleep(item["sleep"])
                if "status" in item:
                    return self._send(item["status"], {"error": {"message": item.get("message", "scripted error"),
                                                                  "type": "rate_limit_error" if item["status"] == 429 else "server_error"}})
                if "drip" in item:
                    return self._drip(item["drip"], item.get("text", "Action: wait"))
                text = item["text"]
                prompt_tokens, completion_tokens = item.get("usage", (sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4 + 1,
                                                                       len(text) // 4 + 1))
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 1700000000,
                    "model": body.get("model", "test"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                })

            def _drip(self, seconds, text):
                data = json.dumps({"id": "chatcmpl-drip", "object": "chat.completion", "created": 1700000000, "model": "test",
                                   "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                "finish_reason": "stop"}]}).encode()
                self.close_connection = True
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.flush()
                    for i in range(min(int(seconds), len(data) - 1)):  # never the whole body
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(1)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
