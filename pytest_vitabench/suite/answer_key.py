"""The answer key of a subtask: the exact writes that solve it, derived from its hidden annotations.

The ``answer`` built-in agent carries it out and ``vitabench validate`` replays it. Precedence: 1.0
``required_orders``, else our ``rubric_checks``, else the data's target markers. Whatever cannot be
derived goes to :attr:`AnswerKey.problems`. It never reads ground-truth preferences, only answer
annotations.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from .checks import NoRecordCheck, RecordCheck, TextCheck, ToolCalledCheck
from .loader import LoadedUser
from .required_orders import RequiredOrder, UninterpretableOrder, required_orders_of, visit_kinds
from .schema import ENTITY_CONTAINERS

#: Placeholder in a follow-up call's arguments for the id of the record the main call created.
CREATED = "<created>"

#: record kind -> the entity container its products come from
_KIND_CONTAINER = {kind: container for container, kind in ENTITY_CONTAINERS.items()}
_PAY = {"delivery": "pay_delivery_order", "instore": "pay_instore_order", "book": "pay_instore_book",
        "hotel": "pay_hotel_order", "attraction": "pay_attraction_order", "flight": "pay_flight_order",
        "train": "pay_train_order", "taxi": "pay_taxi_order"}
_CANCEL = {"delivery": "cancel_delivery_order", "instore": "instore_cancel_order", "book": "instore_cancel_book",
           "reservation": "instore_cancel_reservation", "hotel": "cancel_hotel_order",
           "attraction": "cancel_attraction_order", "flight": "cancel_flight_order", "train": "cancel_train_order",
           "taxi": "cancel_taxi_order"}
_OTA = ("hotel", "attraction", "flight", "train", "taxi")
_OFFICE = re.compile(r"\b(office|work|company|department|workplace|desk|lab)\b|公司|单位|科室|办公", re.I)
_HOME_KEYS = re.compile(r"home.?address|^address$|residential|常住住址|家庭住址|家庭地址|住址", re.I)
_WORK_KEYS = re.compile(r"work.?address|office.?address|company.?address|工作地址|公司地址|单位地址", re.I)


class PlannedCall(BaseModel):
    """One tool call of the answer, and the calls to make on the record it creates.

    Attributes:
        id_field: Where the tool's result names the created record; empty when it creates nothing.
        then: Calls on the created record; :data:`CREATED` in their arguments stands for its id.
        when_status: Make this follow-up only while the created record has this status (a zero-price
            booking is created paid); empty: always.
        instead: The call to make when this one is refused.
    """

    tool: str
    arguments: dict[str, Any]
    id_field: str = ""
    then: list[PlannedCall] = Field(default_factory=list)
    when_status: str = ""
    instead: PlannedCall | None = None
    describes: str = ""


class AnswerKey(BaseModel):
    """The writes (and questions) that solve one subtask.

    Attributes:
        source: ``required_orders``, ``rubric_checks``, ``target_product_ids`` or ``target markers``;
            empty when the subtask has none.
        questions: Questions to ask before acting (one per ``asked`` check, else a generic one when proactive).
        problems: Why (part of) the answer cannot be derived; non-empty means unsolvable by this key.
    """

    source: str = ""
    questions: list[str] = Field(default_factory=list)
    calls: list[PlannedCall] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    @property
    def solvable(self) -> bool:
        return bool(self.source) and not self.problems


GENERIC_QUESTION = ("Before I go ahead, could you tell me how many people it is for, which date and what time "
                    "you need it, and any other details I should know?")


def answer_key(subtask: Any, *, user_id: str, time: str, profile: dict[str, Any] | None = None) -> AnswerKey:
    """Derive the answer key of a subtask.

    Args:
        subtask: A :class:`~.schema.SubTask`.
        user_id: The id the tools accept (the environment's user).
        time: The subtask's effective "now", ``YYYY-MM-DD HH:MM:SS``.
        profile: The user's profile (delivery addresses).
    """
    builder = _Builder(subtask, user_id=user_id, time=time, profile=profile or {})
    return builder.build()


def answer_key_of(user: LoadedUser, index: int) -> AnswerKey:
    """The answer key of subtask ``index`` of a validated user: with the user id its tools accept, its
    effective time and the user's profile (the one way callers derive it)."""
    assert user.task is not None, "a validated user (ensure_user)"
    return answer_key(user.task.subtasks[index], user_id=user.tool_user_id(index), time=user.times[index],
                      profile=user.task.user_profile)


class _Builder:
    def __init__(self, subtask: Any, *, user_id: str, time: str, profile: dict[str, Any]):
        self.sub = subtask
        self.env: dict[str, Any] = subtask.environment or {}
        self.user_id = user_id
        self.now = _parse(time) or datetime(2025, 1, 1, 12)
        self.profile = profile
        self.key = AnswerKey()

    # ------------------------------------------------------------------ entry
    def build(self) -> AnswerKey:
        required = required_orders_of(self.sub)
        checks = list(self.sub.rubric_checks or [])
        if required:
            self.key.source = "required_orders"
            for order in required:
                if isinstance(order, UninterpretableOrder):
                    self.key.problems.append(f"a required order cannot be interpreted: {order}")
                else:
                    self._required(order)
        elif checks:
            self.key.source = "rubric_checks"
            self._from_checks(checks)
        else:
            targets = self._targets()
            if targets:
                self.key.source = "target_product_ids" if self.sub.target_product_ids else "target markers"
                self._from_targets(targets)
        if self.sub.is_proactive and not self.key.questions:
            self.key.questions.append(GENERIC_QUESTION)
        return self.key

    # ------------------------------------------------------------------ 1.0 required orders
    def _required(self, order: RequiredOrder) -> None:
        uid = self.user_id
        args: dict[str, Any]
        if order.existing:
            old = (self.env.get("orders") or {}).get(order.record_id) or {}
            if order.status == "cancelled" and old.get("status") != "cancelled":
                args = {"order_id": order.record_id} | ({"user_id": uid} if order.kind in _OTA else {})
                self._add(PlannedCall(tool=_CANCEL[order.kind], arguments=args,
                                      describes=f"cancel order {order.record_id}"))
            if order.note and order.note != str(old.get("note") or ""):
                if order.kind != "delivery":
                    self.key.problems.append(f"no tool changes the note of a {order.kind} order ({order.record_id})")
                else:
                    self._add(PlannedCall(tool="modify_delivery_order",
                                          arguments={"order_id": order.record_id, "note": order.note},
                                          describes=f"change the note of {order.record_id}"))
            if order.status in ("paid", "processed", "in-progress", "delivered") and old.get("status") == "unpaid":
                self._add(PlannedCall(tool=_PAY[order.kind], arguments={"order_id": order.record_id},
                                      describes=f"pay order {order.record_id}"))
            return
        self._check_catalogue(order)
        then = [] if order.status == "unpaid" else self._pay_call(order.kind)
        if order.status == "cancelled":
            args = ({"order_id": CREATED} if order.kind not in ("reservation", "book")
                    else {f"{order.kind}_id": CREATED})
            if order.kind in _OTA:
                args["user_id"] = uid
            then = [PlannedCall(tool=_CANCEL[order.kind], arguments=args)]
        kind = order.kind
        if kind in ("reservation", "book"):
            when = _parse(order.time)
            if when is None:
                self.key.problems.append(f"{order.describe()}: unreadable time {order.time!r}")
                return
            # A time before "now" is made as written: VitaBench 2.0's tools accept it, our past_dates check
            # refuses it, and validation says which.
            arguments = {"user_id": uid, "shop_id": order.entity_id, "time": when.strftime("%Y-%m-%d %H:%M:%S"),
                         "customer_count": order.customer_count or 1}
            self._add(self._visit_call(kind, order, arguments))
        elif kind == "delivery":
            attributes = [p.attributes for p in order.products]
            extra: dict[str, Any] = {"attributes": attributes} if any(attributes) else {}
            if order.note:
                extra["note"] = order.note
            address = self._address_of(order)
            if not address:
                self.key.problems.append(f"no delivery address for {order.describe()}")
            self._create(kind, order.entity_id, [(p.product_id, "", p.quantity or 1) for p in order.products], then,
                         order.describe(), address=address, dispatch=self._future(order.dispatch_time or None),
                         extra=extra)
        elif kind == "instore":
            # One order per product, its lines' quantities summed: the tool takes one product, the judge sums
            # per product at the shop, and a second order of one product would overwrite the first one's
            # quantity in VitaBench 2.0's tools (they store the catalogue's product object in the order).
            quantities: dict[str, int] = {}
            for product in order.products:
                quantities[product.product_id] = quantities.get(product.product_id, 0) + (product.quantity or 1)
            self._create(kind, order.entity_id, [(pid, "", n) for pid, n in quantities.items()], then,
                         order.describe())
        else:
            # one order per product line: these tools take one product per call (the judge pools them)
            dates = {(entity, pid): date for entity, pid, date in reversed(self._options(kind))}
            lines: list[tuple[str | None, str, int]] = [
                (p.product_id, p.date or dates.get((order.entity_id, p.product_id), ""), p.quantity or 1)
                for p in order.products]
            self._create(kind, order.entity_id, lines, then, order.describe())

    def _visit_call(self, kind: str, order: RequiredOrder, arguments: dict[str, Any]) -> PlannedCall:
        """The reservation or booking call, with the other kind as the alternative where the judge accepts it
        (the shop does not take the named kind: see :func:`.required_orders.visit_kinds`)."""
        tool = {"reservation": "instore_reservation", "book": "instore_book"}
        cancelling = order.status == "cancelled"
        pay = [] if order.status == "unpaid" else self._pay_call("book")

        def visit(which: str) -> PlannedCall:
            if cancelling:
                follow = [PlannedCall(tool=_CANCEL[which], arguments={f"{which}_id": CREATED})]
            else:
                follow = pay if which == "book" else []
            return PlannedCall(tool=tool[which], id_field=f"{which}_id", then=follow, arguments=arguments,
                               describes=order.describe())

        main = visit(kind)
        others = [k for k in visit_kinds(order, self.env) if k != kind]
        if others:
            main.instead = visit(others[0])
        return main

    def _address_of(self, order: RequiredOrder) -> str:
        """The required address as the environment knows it: the known location at the required coordinates
        (the tools geocode by text, and 1.0 files spell one place in several ways), else the text itself."""
        if order.coordinates is not None:
            from ..domains.geo import haversine_m

            lon, lat = order.coordinates
            near = []
            for loc in self.env.get("location") or []:
                try:
                    distance = haversine_m(lon, lat, float(loc["longitude"]), float(loc["latitude"]))
                except (KeyError, TypeError, ValueError):
                    continue
                if distance <= 100 and loc.get("address"):
                    near.append((distance, str(loc["address"])))
            if near:
                return min(near)[1]
        return order.address or self._address()

    def _check_catalogue(self, order: RequiredOrder) -> None:
        """Every required product must be sold by the required entity, or no agent can order it."""
        container = _KIND_CONTAINER.get(order.kind)
        if container is None:
            return
        entities = self.env.get(container) or {}
        entity = entities.get(order.entity_id) or next(
            (e for e in entities.values() if isinstance(e, dict) and order.entity_id in
             (e.get(f"{container[:-1]}_id"), e.get("store_id"), e.get("shop_id"))), None)
        if not isinstance(entity, dict):
            self.key.problems.append(f"{order.describe()}: {order.entity_id} is not in the environment's {container}")
            return
        sold = {str(p.get("product_id")) for p in entity.get("products") or [] if isinstance(p, dict)}
        for product in order.products:
            if product.product_id in sold:
                continue
            sellers = [str(k) for k, e in entities.items() if isinstance(e, dict) and any(
                isinstance(p, dict) and str(p.get("product_id")) == product.product_id
                for p in e.get("products") or [])]
            where = f"sold by {', '.join(sellers)} instead" if sellers else "in no entity of the environment"
            self.key.problems.append(f"{order.describe()}: product {product.product_id} is not sold by "
                                     f"{order.entity_id} ({where})")

    # ------------------------------------------------------------------ our rubric checks
    def _from_checks(self, checks: list[Any]) -> None:
        records = [c.check for c in checks if isinstance(c.check, RecordCheck)]
        for item in checks:
            check = item.check
            if isinstance(check, TextCheck):
                question = _phrase_matching(check.pattern, asked=check.kind == "asked")
                if question is None:
                    self.key.problems.append(f"cannot phrase a message matching /{check.pattern}/ "
                                             f"(rubric {item.rubric!r})")
                else:
                    self.key.questions.append(question)
            elif isinstance(check, ToolCalledCheck):
                self.key.problems.append(f"rubric {item.rubric!r} needs a call of {check.name}, which the answer "
                                         "key does not plan")
            elif isinstance(check, NoRecordCheck) and any(r.record_type == check.record_type or
                                                            check.record_type is None for r in records):
                self.key.problems.append(f"rubric {item.rubric!r} forbids the {check.record_type or 'record'} "
                                         "that other rubrics require")
        kinds = list(dict.fromkeys(r.record_type for r in records))
        for kind in kinds:
            self._solve_kind(kind, [r.where for r in records if r.record_type == kind])

    def _solve_kind(self, kind: str, conditions: list[dict[str, Any]]) -> None:
        want: dict[str, list[Any]] = {}
        for where in conditions:
            for name, cond in where.items():
                want.setdefault(name, []).append(cond)
        options = self._options(kind)
        targets = self._targets()

        def fits(entity_id: str, product_id: str | None, date: str) -> bool:
            for cond in want.get("entity_id", []):
                if cond.in_ is not None and entity_id not in cond.in_:
                    return False
                if "eq" in cond.model_fields_set and entity_id != cond.eq:
                    return False
            for cond in want.get("product_ids", []):
                if cond.subset_of is not None and product_id not in cond.subset_of:
                    return False
                if cond.includes_all is not None and set(cond.includes_all) - {product_id}:
                    return False
                if cond.includes_any is not None and product_id not in cond.includes_any:
                    return False
                if cond.disjoint is not None and product_id in cond.disjoint:
                    return False
            for cond in want.get("dates", []):
                if cond.includes_all is not None and set(cond.includes_all) - {date}:
                    return False
            return True

        fitting = [o for o in options if fits(*o)]
        chosen = [o for o in fitting if o[1] in targets or o[0] in targets] or fitting
        if not chosen:
            self.key.problems.append(f"no {kind} option satisfies every record check")
            return
        entity_id, product_id, date = chosen[0]
        quantity = _wanted_value(want.get("total_quantity", [])) or 1
        pay = any(_wanted_value([c]) == "paid" for c in want.get("status", []))
        then = self._pay_call(kind) if pay else []
        address = when = None
        if kind == "delivery":
            address = self._address(must_contain=[c.contains for c in want.get("address", []) if c.contains])
            if not address:
                self.key.problems.append("no known address satisfies the address checks")
                return
        times = [c.contains or c.eq for c in want.get("time", []) if c.contains or c.eq]
        if kind in ("reservation", "book") and times:
            when = _parse(str(times[0]))
        self._create(kind, entity_id, [(product_id, date, quantity)], then,
                     f"order {product_id} from {entity_id}" if kind == "delivery" else "", address=address or "",
                     when=when, count=_wanted_value(want.get("customer_count", [])) or 2)

    # ------------------------------------------------------------ VitaBench 2.0 shape: targets only
    def _from_targets(self, targets: set[str]) -> None:
        by_kind: dict[tuple[str, str], list[tuple[str | None, str]]] = {}
        for container, kind in ENTITY_CONTAINERS.items():
            for entity_id, entity in (self.env.get(container) or {}).items():
                if not isinstance(entity, dict):
                    continue
                products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
                product_hits = [(str(p.get("product_id")), str(p.get("date") or "")[:10]) for p in products
                                if str(p.get("product_id")) in targets]
                if product_hits:
                    by_kind.setdefault((kind, str(entity_id)), []).extend(product_hits)
                elif str(entity_id) in targets and container == "shops":
                    # the kind the shop takes; a shop that takes neither gets a reservation, which VitaBench 2.0's
                    # instore_reservation makes anyway (and validation names our reservation check)
                    takes_book = entity.get("enable_book") is True and entity.get("enable_reservation") is False
                    visit = "book" if takes_book else "reservation"
                    by_kind.setdefault((visit, str(entity_id)), []).append((None, ""))
                elif str(entity_id) in targets:
                    # an entity-level target (a hotel, a flight...): any of its offers that is still bookable
                    today = self.now.strftime("%Y-%m-%d")
                    offers = [(str(p.get("product_id")), str(p.get("date") or "")[:10]) for p in products
                              if p.get("quantity") != 0 and str(p.get("date") or today)[:10] >= today]
                    if offers:
                        by_kind.setdefault((kind, str(entity_id)), []).append(offers[0])
        found = {pid for hits in by_kind.values() for pid, _ in hits} | {e for (_, e) in by_kind}
        missing = sorted(t for t in targets if t not in found)
        if missing:
            self.key.problems.append(f"target(s) {missing} are in no entity of the environment")
        for (kind, entity_id), hits in by_kind.items():
            address = self._address() if kind == "delivery" else ""
            if kind == "delivery" and not address:
                self.key.problems.append("no delivery address in the profile or the environment")
            self._create(kind, entity_id, [(pid, date, 1) for pid, date in hits], self._pay_call(kind),
                         f"order {[pid for pid, _ in hits]} from {entity_id}" if kind == "delivery" else "",
                         address=address)

    # ------------------------------------------------------------------ helpers
    def _add(self, call: PlannedCall) -> None:
        self.key.calls.append(call)

    def _create(self, kind: str, entity_id: str, lines: list[tuple[str | None, str, int]], then: list[PlannedCall],
                describes: str = "", *, address: str = "", dispatch: str = "", extra: dict[str, Any] | None = None,
                when: datetime | None = None, count: int = 2) -> None:
        """The writes that make a record of ``kind`` at ``entity_id`` of the (product id, date, quantity)
        ``lines``: a delivery order is one call (at ``dispatch``, default now, with the ``extra`` arguments), an
        in-store or travel order one per line (each described by ``describes``, default its product), a visit
        (at ``when``, default tomorrow 19:00, for ``count`` people) one call."""
        uid = self.user_id
        if kind == "delivery":
            self._add(PlannedCall(tool="create_delivery_order", id_field="order_id", then=then,
                                  arguments={"user_id": uid, "store_id": entity_id,
                                             "product_ids": [pid for pid, _, _ in lines],
                                             "product_cnts": [quantity for _, _, quantity in lines],
                                             "address": address, "dispatch_time": dispatch or self._future(None),
                                             **(extra or {})},
                                  describes=describes))
        elif kind == "instore":
            for pid, _, quantity in lines:
                self._add(PlannedCall(tool="create_instore_product_order", id_field="order_id", then=then,
                                      arguments={"user_id": uid, "shop_id": entity_id, "product_id": pid,
                                                 "quantity": quantity},
                                      describes=describes or f"buy {pid} at {entity_id}"))
        elif kind in ("reservation", "book"):
            when = when or (self.now + timedelta(days=1)).replace(hour=19, minute=0, second=0)
            tool = "instore_reservation" if kind == "reservation" else "instore_book"
            self._add(PlannedCall(tool=tool, id_field=f"{kind}_id", then=then if kind == "book" else [],
                                  arguments={"user_id": uid, "shop_id": entity_id, "customer_count": count,
                                             "time": when.strftime("%Y-%m-%d %H:%M:%S")},
                                  describes=f"{kind} at {entity_id}"))
        else:
            for pid, date, quantity in lines:
                self.key.calls += self._ota_calls(kind, entity_id, pid or "", date, quantity, then,
                                                  describes or f"book {pid} of {entity_id}")

    def _pay_call(self, kind: str) -> list[PlannedCall]:
        if kind not in _PAY:
            return []
        id_name = "book_id" if kind == "book" else "order_id"
        return [PlannedCall(tool=_PAY[kind], arguments={id_name: CREATED}, when_status="unpaid", describes="pay")]

    def _ota_calls(self, kind: str, entity_id: str, product_id: str, date: str, quantity: int,
                   then: list[PlannedCall], describes: str) -> list[PlannedCall]:
        """The travel orders for ``quantity`` of one product: one call, or one per room for a hotel
        (``create_hotel_order`` books one room)."""
        uid = self.user_id
        if kind == "hotel":
            args: dict[str, Any] = {"hotel_id": entity_id, "room_id": product_id, "user_id": uid}
            return [PlannedCall(tool="create_hotel_order", arguments=args, id_field="order_id", then=then,
                                describes=describes) for _ in range(max(quantity, 1))]
        if kind == "taxi":
            args = {"taxi_id": entity_id, "product_id": product_id, "user_id": uid, "quantity": quantity}
        else:
            if not date:
                self.key.problems.append(f"{describes}: no date for the {kind} product")
            product_key = "ticket_id" if kind == "attraction" else "seat_id"
            args = {f"{kind}_id": entity_id, product_key: product_id, "user_id": uid, "date": date,
                    "quantity": quantity}
        return [PlannedCall(tool=f"create_{kind}_order", arguments=args, id_field="order_id", then=then,
                            describes=describes)]

    def _options(self, kind: str) -> list[tuple[str, str | None, str]]:
        """Every (entity id, product id, product date) a record of ``kind`` could be made of."""
        container = "shops" if kind in ("reservation", "book") else _KIND_CONTAINER[kind]
        out: list[tuple[str, str | None, str]] = []
        for entity_id, entity in (self.env.get(container) or {}).items():
            if not isinstance(entity, dict):
                continue
            if kind in ("reservation", "book"):
                out.append((str(entity_id), None, ""))
                continue
            for product in entity.get("products") or []:
                if isinstance(product, dict) and product.get("product_id") is not None:
                    out.append((str(entity_id), str(product["product_id"]), str(product.get("date") or "")[:10]))
        return out

    def _targets(self) -> set[str]:
        if self.sub.target_product_ids:
            return {str(t) for t in self.sub.target_product_ids}
        found: set[str] = set()
        for container in ENTITY_CONTAINERS:
            for entity_id, entity in (self.env.get(container) or {}).items():
                if not isinstance(entity, dict):
                    continue
                products = [p for p in entity.get("products") or [] if isinstance(p, dict)]
                marked = [str(p.get("product_id")) for p in products
                          if any(k.endswith("_type") and str(v) == "target" for k, v in p.items())]
                found.update(marked)
                if not marked and any(k.endswith("_type") and str(v) == "target" for k, v in entity.items()):
                    found.add(str(entity_id))
        return found

    def _future(self, wanted: str | None) -> str:
        when = _parse(wanted) if wanted else None
        if when is None or when < self.now:
            when = self.now
        return when.strftime("%Y-%m-%d %H:%M:%S")

    def _address(self, must_contain: list[str] | None = None) -> str:
        """The delivery address: the profile's work or home address as the request implies, else a known one."""
        wanted = must_contain or []
        home = _profile_value(self.profile, _HOME_KEYS)
        work = _profile_value(self.profile, _WORK_KEYS)
        office = bool(_OFFICE.search(self.sub.instruction or ""))
        ordered = [work, home] if office else [home, work]
        known = [str(loc.get("address")) for loc in self.env.get("location") or []
                 if isinstance(loc, dict) and loc.get("address")]
        for candidate in [*ordered, *known]:
            if candidate and all(part.lower() in candidate.lower() for part in wanted):
                return candidate
        return wanted[0] if wanted else ""


def _profile_value(profile: dict[str, Any], keys: re.Pattern[str]) -> str:
    for key, value in profile.items():
        if keys.search(str(key).strip()) and isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def _wanted_value(conditions: list[Any]) -> Any:
    for cond in conditions:
        if "eq" in cond.model_fields_set:
            return cond.eq
    return None


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    value = str(text).strip().replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(value[:len(datetime(2000, 1, 1).strftime(fmt))], fmt)
        except ValueError:
            continue
    return None


def _phrase_matching(pattern: str, *, asked: bool) -> str | None:
    """A polite message that the (case-insensitive) ``pattern`` matches, with a question mark if ``asked``."""
    regex = re.compile(pattern, re.IGNORECASE)
    for option in _alternatives(pattern):
        literal = re.sub(r"\\(.)", r"\1", option)
        if re.fullmatch(r"[\w' ,\-]+", literal):
            text = f"Before I go ahead, could you tell me more about this: {literal}?"
            if not asked:
                text = text.replace("?", ".")
            if regex.search(text):
                return text
    text = GENERIC_QUESTION if asked else GENERIC_QUESTION.replace("?", ".")
    return text if regex.search(text) else None


def _alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regular expression."""
    out, depth, current = [], 0, ""
    for index, char in enumerate(pattern):
        escaped = index > 0 and pattern[index - 1] == "\\"
        if char == "(" and not escaped:
            depth += 1
        elif char == ")" and not escaped:
            depth -= 1
        if char == "|" and depth == 0 and not escaped:
            out.append(current)
            current = ""
        else:
            current += char
    out.append(current)
    return out
