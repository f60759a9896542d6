"""What reading the official tools' messages costs (``--vita-deviation tool-results=official``).

    python benchmarks/official_messages_cost.py [--source ../shared/official/VitaBench-2.0]

Prints how many messages the official tool results read, the time to find them all in a fresh process (the
check a run makes once, before any item: parsing the four official files with ast), and the median time of one
message lookup afterwards, next to the median time of one official tool call that says one. The machine's
cores are shared: read the times as ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _median_us(run, repeat: int = 2000) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", default=str(ROOT.parent / "shared" / "official" / "VitaBench-2.0"))
    args = parser.parse_args()
    from pytest_vitabench.domains import build_environment
    from pytest_vitabench.official.delivery import NOT_UNPAID
    from pytest_vitabench.official.source import locate
    from pytest_vitabench.official.tool_answers import check_official_messages, official_answers, official_message_keys

    source = locate(args.source)
    if source is None:
        raise SystemExit(f"no official source at {args.source}")
    keys = official_message_keys()
    start = time.perf_counter()
    check_official_messages(source)
    check_ms = (time.perf_counter() - start) * 1e3
    print(f"messages read: {len(keys)} in {len({(k.file, k.function) for k in keys})} official functions")
    print(f"first check (parse and find all): {check_ms:.1f} ms")
    env = build_environment("delivery", {"time": "2025-06-01 11:00:00", "user_id": "U1", "stores": {}, "orders": {
        "O1": {"order_id": "O1", "order_type": "delivery", "user_id": "U1", "store_id": "S1", "total_price": 1,
               "create_time": "2025-06-01 10:00:00", "update_time": "2025-06-01 10:00:00", "status": "paid",
               "products": []}}}, user_id="U1", time="2025-06-01 11:00:00", seed=0,
        answers=official_answers(source))
    lookup = _median_us(lambda: env.say(NOT_UNPAID))
    call = _median_us(lambda: env.call("pay_delivery_order", {"order_id": "O1"}))
    print(f"one lookup afterwards: median {lookup:.1f} us; one tool call saying it: median {call:.1f} us "
          f"(lookup/call {lookup / call:.2f})")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
