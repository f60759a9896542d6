"""The domain of a VitaBench 1.0 task, whatever its free ``domain`` label says.

The 1.0 harness takes a task's domain from its file's folder, so we accept the labels we know and otherwise
infer the domain from the environment's entity containers. Applied to converted 1.0 tasks only: a 2.0
``domain`` is not a free label.
"""

from __future__ import annotations

import re
from typing import Any

#: Known 1.0 labels (lower-cased, spaces/underscores/hyphens removed) -> our domain name.
KNOWN_LABELS: dict[str, str] = {
    "delivery": "delivery", "fooddelivery": "delivery", "takeaway": "delivery", "takeout": "delivery",
    "外卖": "delivery", "外卖配送": "delivery",
    "instore": "instore", "instoreconsumption": "instore", "instoreservice": "instore",
    "instoreservices": "instore", "到店": "instore", "到店消费": "instore", "到店服务": "instore",
    "ota": "ota", "travel": "ota", "onlinetravel": "ota", "onlinetravelagency": "ota", "旅行": "ota",
    "旅游": "ota", "出行": "ota", "在线旅游": "ota", "酒旅": "ota",
}

#: Entity containers that only one domain's environment holds.
CONTAINER_DOMAINS: dict[str, str] = {
    "stores": "delivery", "shops": "instore", "reservations": "instore", "books": "instore",
    "hotels": "ota", "flights": "ota", "trains": "ota", "attractions": "ota", "taxis": "ota",
}


def vb1_domain(label: Any, environment: dict[str, Any] | None) -> str:
    """Our domain name (or comma-separated names) for a 1.0 task.

    Known labels map to their domains; otherwise the domain is inferred from the environment's non-empty
    entity containers (every domain present, in the order delivery, instore, ota), e.g. ``delivery,ota``.

    Raises:
        ValueError: The label is unknown and the environment holds no entity container to infer from.
    """
    text = "" if label is None else str(label)
    parts = [re.sub(r"[\s_\-·/]+", "", part.strip().lower()) for part in re.split(r"[,，、]", text) if part.strip()]
    known = [KNOWN_LABELS[part] for part in parts if part in KNOWN_LABELS]
    if known and len(known) == len(parts):
        return ",".join(dict.fromkeys(known))
    inferred = [domain for domain in ("delivery", "instore", "ota")
                if any(CONTAINER_DOMAINS.get(name) == domain and value
                       for name, value in (environment or {}).items())]
    if inferred:
        return ",".join(inferred)
    raise ValueError(f"unknown VitaBench 1.0 domain label {text!r} and no stores, shops, hotels, flights, trains, "
                     f"attractions or taxis in the environment to infer the domain from")
