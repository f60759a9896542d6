"""Names behind ids, and each subtask's data, from the suite files a run names in its config.

A report stores ids (``S1000010101``, ``P100002020302``) but not the catalogue they come from. The suite
files listed in ``config["suites"]`` (path -> sha256) hold it; when a file has moved, a directory to look
in can be given, and when it is gone or changed the viewer says so and shows bare ids.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..report.failures import iter_entities, iter_products

#: Fields that name an entity (a store, shop, hotel, attraction, train, flight, taxi), best first.
_ENTITY_NAME_KEYS = ("name", "store_name", "shop_name", "hotel_name", "attraction_name", "train_number",
                     "flight_number", "car_type")
#: Fields that name a product (a dish, service, room, ticket, seat), best first.
_PRODUCT_NAME_KEYS = ("name", "product_name", "room_type", "ticket_name", "seat_type", "cabin", "car_type")


@dataclass
class SuiteStatus:
    """What happened to one suite file the run names."""

    path: str
    found: str | None = None
    problem: str | None = None


@dataclass
class Catalogue:
    """Id -> display name, and (user_id, subtask_id) -> the subtask's raw suite data."""

    names: dict[str, str] = field(default_factory=dict)
    subtasks: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    statuses: list[SuiteStatus] = field(default_factory=list)

    def name(self, ident: str) -> str | None:
        return self.names.get(ident)

    def subtask(self, user_id: str, subtask_id: str) -> dict[str, Any] | None:
        return self.subtasks.get((user_id, subtask_id))

    def add_suite_data(self, data: Any) -> None:
        """Index an already-parsed suite document: a VitaBench 2.0 list of users or a VitaBench 1.0 list of
        tasks (each becomes a one-subtask user, as the loader does); other shapes and entries are skipped."""
        users = data if isinstance(data, list) else []
        for user in users:
            if not isinstance(user, Mapping):
                continue
            if "subtasks" not in user and "environment" in user:
                from ..suite.loader import convert_vb1_task

                user = convert_vb1_task(dict(user))
            user_id = str(user.get("user_id") or user.get("id") or "")
            for sub in user.get("subtasks") or []:
                if not isinstance(sub, Mapping):
                    continue
                self.subtasks[(user_id, str(sub.get("subtask_id")))] = dict(sub)
                self._add_environment(sub.get("environment"))

    def _add_environment(self, environment: Any) -> None:
        for entity_id, entity in iter_entities(environment):
            label = _first(entity, _ENTITY_NAME_KEYS)
            if label:
                self.names.setdefault(entity_id, label)
            for product in iter_products(entity):
                product_label = _first(product, _PRODUCT_NAME_KEYS)
                if product_label:
                    self.names.setdefault(str(product["product_id"]), product_label)


def _first(record: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def read_suite_document(path: Path) -> tuple[Any, str]:
    """A suite file's parsed JSON and the sha256 of its bytes (gzip-compressed files are unpacked)."""
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    text = gzip.decompress(raw) if path.name.endswith(".gz") else raw
    return json.loads(text), digest


def load_catalogue(suites: Mapping[str, str] | None, *, search_dirs: Iterable[str | Path] = ()) -> Catalogue:
    """Read the suite files a run names (``config["suites"]``: path -> sha256), by name in ``search_dirs``
    when the recorded path is gone. A file missing, unreadable or changed is listed in ``statuses`` with the
    problem (a changed file is still used: its names are usually right)."""
    catalogue = Catalogue()
    for recorded, sha in (suites or {}).items():
        status = SuiteStatus(path=recorded)
        catalogue.statuses.append(status)
        candidates = [Path(recorded)] + [Path(d) / Path(recorded).name for d in search_dirs]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            status.problem = "not found (product and store names are shown as ids)"
            continue
        try:
            data, digest = read_suite_document(found)
        except (OSError, ValueError, EOFError) as exc:
            status.problem = f"unreadable: {exc}"
            continue
        status.found = str(found)
        if sha and digest != sha:
            status.problem = "changed since the run (sha256 differs); names may not match"
        catalogue.add_suite_data(data)
    return catalogue
