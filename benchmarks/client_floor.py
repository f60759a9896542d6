"""What the ``openai`` client alone costs for a run's requests: the part of a run's CPU no harness code can remove.

    python benchmarks/client_floor.py --bodies BODIES.json --base-url URL [--concurrency 10] [--async]

Sends each request body of ``BODIES.json`` (a JSON list of chat request bodies, as a stub recorded them) through a
bare ``openai.OpenAI`` client, as the plugin sends them (``post`` of the encoded body, the answer's JSON decoded),
from ``--concurrency`` threads, and prints one JSON object:

* ``import_s``: CPU seconds of ``import openai`` after what collection has loaded already (pydantic, asyncio);
* ``client_s``: building the client;
* ``ms_per_request``: the process's CPU (every thread, user + system) per request while sending, the bodies
  encoded beforehand, so that it is the SDK, the HTTP stack, the threads and the kernel's sockets only;
  ``system_ms_per_request`` the system part of it.

``--async`` sends them through ``openai.AsyncOpenAI`` on one event loop instead, ``--concurrency`` at a time: what
moving the plugin's HTTP calls from its threads onto the episodes' event loop would cost.

``cpu_per_request.py --floor`` runs it on the requests of its own run, against the same stub, in the same sitting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any


def measure(python: str, bodies: list[dict[str, Any]], base_url: str, concurrency: int, work: Path, *,
            asynchronous: bool = False) -> dict[str, float]:
    """Run this script in ``python`` on ``bodies`` and return its figures."""
    path = work / "floor-bodies.json"
    path.write_text(json.dumps(bodies, ensure_ascii=False))
    env = {**os.environ, "OPENAI_API_KEY": "dummy-key", "NO_PROXY": "127.0.0.1"}
    command = [python, __file__, "--bodies", str(path), "--base-url", base_url, "--concurrency", str(concurrency)]
    out = subprocess.run(command + (["--async"] if asynchronous else []), capture_output=True, text=True, env=env,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu() -> tuple[float, float]:
    """This process's CPU seconds so far: all of it, and its system part."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_stime


async def _send_async(client: Any, bodies: list[bytes], response_class: Any, concurrency: int) -> None:
    slots = asyncio.Semaphore(concurrency)

    async def send(content: bytes) -> Any:
        async with slots:
            response = await client.post("/chat/completions", content=content, options={}, cast_to=response_class)
            return response.json()

    await asyncio.gather(*(send(content) for content in bodies))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bodies", required=True, type=Path)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--async", dest="asynchronous", action="store_true")
    args = parser.parse_args()
    import pydantic  # noqa: F401  - loaded by the time a run sends its first request

    from pytest_vitabench.llm.endpoints import _http_response_class

    bodies = [json.dumps(body, ensure_ascii=False).encode() for body in json.loads(args.bodies.read_text())]
    start, _ = _cpu()
    import openai

    imported, _ = _cpu()
    options = {"base_url": args.base_url, "api_key": os.environ.get("OPENAI_API_KEY", "dummy-key"), "max_retries": 0,
               "timeout": 600}
    client = openai.AsyncOpenAI(**options) if args.asynchronous else openai.OpenAI(**options)
    response_class = _http_response_class()
    built, _ = _cpu()
    (began, began_system), wall = _cpu(), time.perf_counter()
    if args.asynchronous:
        asyncio.run(_send_async(client, bodies, response_class, args.concurrency))
    else:
        with ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda content: client.post("/chat/completions", content=content, options={},
                                                      cast_to=response_class).json(), bodies))
    sent, sent_system = _cpu()
    print(json.dumps({"import_s": imported - start, "client_s": built - imported, "requests": len(bodies),
                      "ms_per_request": 1000 * (sent - began) / max(len(bodies), 1),
                      "system_ms_per_request": 1000 * (sent_system - began_system) / max(len(bodies), 1),
                      "wall_s": time.perf_counter() - wall}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
