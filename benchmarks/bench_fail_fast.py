"""Time to a clear error for a wrong key, a wrong model name and an unreachable URL.

One command, no network beyond 127.0.0.1:

    python benchmarks/bench_fail_fast.py [--suite suites/demo] [--extra-args "..."]

It starts two OpenAI-compatible stubs on 127.0.0.1 (one answers every request with 401 "Incorrect API
key", the other with 404 "model not found"), finds a closed localhost port, and runs
``pytest SUITE --vita-model gpt-4o-mini`` against each. It prints, per case, the wall time from the
command's start to its exit, the exit status and the first lines of the error. Pass
``--extra-args "--vita-preflight off"`` to see the time without the preflight (the circuit breaker
alone), and ``"--vita-preflight off --vita-limits circuit-breaker=0"`` for the behaviour before issue 13.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _stub(status: int, body: dict) -> ThreadingHTTPServer:
    payload = json.dumps(body).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the socket is


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="suites/demo", help="the suite to run (default: suites/demo)")
    parser.add_argument("--extra-args", default="", help="more pytest arguments, e.g. '--vita-preflight off'")
    args = parser.parse_args()
    wrong_key = _stub(401, {"error": {"message": "Incorrect API key provided: sk-dummy.",
                                      "type": "invalid_request_error",
                                      "code": "invalid_api_key"}})
    wrong_model = _stub(404, {"error": {"message": "The model `gpt-4o-mini` does not exist or you do not have access "
                                                   "to it.", "type": "invalid_request_error",
                                        "code": "model_not_found"}})
    cases = [
        ("wrong key (401)", f"http://127.0.0.1:{wrong_key.server_address[1]}/v1"),
        ("wrong model name (404)", f"http://127.0.0.1:{wrong_model.server_address[1]}/v1"),
        ("unreachable URL (closed port)", f"http://127.0.0.1:{_closed_port()}/v1"),
    ]
    env = {**os.environ, "OPENAI_API_KEY": "sk-dummy-key-for-the-benchmark"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1/5/15 min)")
    # The floor: pytest's own start-up and collection of the suite, without any request.
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", args.suite, "-p", "no:cacheprovider", "-q", "--collect-only"],
                   capture_output=True, text=True, env=env)
    floor = time.perf_counter() - started
    print(f"baseline (pytest {args.suite} --collect-only -q, no request): {floor:.2f} s")
    for name, url in cases:
        command = [sys.executable, "-m", "pytest", args.suite, "-p", "no:cacheprovider", "-q",
                   "--vita-model", "gpt-4o-mini", "--vita-base-url", url, *shlex.split(args.extra_args)]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - started
        output = (done.stderr + done.stdout).strip().splitlines()
        error = [line for line in output if "preflight" in line or "model 'gpt-4o-mini'" in line
                 or "circuit breaker" in line][:3]
        print(f"{name}: {elapsed:.2f} s to exit status {done.returncode} ({elapsed - floor:+.2f} s over the baseline)")
        for line in error or output[-3:]:
            print(f"    {line[:240]}")
    print("command: " + " ".join(shlex.quote(c) for c in ["pytest", args.suite, "-q", "--vita-model", "gpt-4o-mini",
                                                          "--vita-base-url", "URL", *shlex.split(args.extra_args)]))
    wrong_key.shutdown()
    wrong_model.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
