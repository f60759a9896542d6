"""The offline built-in agents that choose by heuristics: ``reference``, ``literal`` and ``groundtruth-reader``.

Nothing is keyed to a suite's ids. All three follow one script, derived afresh from the trajectory at every call
(the agent's one memo keeps each ranking, keyed by exactly what it read: later turns and trials ask for it again):

1. in a proactive subtask (``reference``, ``groundtruth-reader``), ask once for the missing details: how many, when;
2. search with the domain's search tools (and fetch details a search left out);
3. rank the candidates and recommend the best one; on a rejection recommend the next;
4. once the user accepts, create the order / reservation / booking, pay it when it is unpaid;
5. confirm what was done and ask whether anything else is needed; end with ``###STOP###`` next turn.

``groundtruth-reader`` is a ceiling for the heuristics, not an answer oracle (that is ``answer``).
"""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from ..memory.render import render_preferences
from ..messages import STOP_TOKEN, Message, ToolCall
from ..text.clauses import profile_statements, situation_of
from ..text.facts import Facts, extract_facts, parse_now
from ..text.preferences import PreferenceMemory
from ..text.words import content_words, tokenize
from .base import AgentSetup, say
from .candidates import Candidate, CandidateScorer, Catalogue, entity_name, relevance
from .trajectory import ASK_PREFIX, ID_QUESTION, RECOMMEND_PREFIX, Trajectory, call_key

MAX_ATTEMPTS = 3

#: Write tool, payment tool and the id field of the created record, per decision kind.
_WRITE = {
    "delivery": ("create_delivery_order", "pay_delivery_order", "order_id"),
    "instore_product": ("create_instore_product_order", "pay_instore_order", "order_id"),
    "reservation": ("instore_reservation", None, "reservation_id"),
    "book": ("instore_book", "pay_instore_book", "book_id"),
    "hotel": ("create_hotel_order", "pay_hotel_order", "order_id"),
    "train": ("create_train_order", "pay_train_order", "order_id"),
    "flight": ("create_flight_order", "pay_flight_order", "order_id"),
    "attraction": ("create_attraction_order", "pay_attraction_order", "order_id"),
}
#: The search tools of the decision kinds that search by keywords, in the order they are called.
_KEYWORD_SEARCHES = {
    "delivery": ("delivery_store_search_recommand", "delivery_product_search_recommand"),
    "instore_product": ("instore_shop_search_recommend", "instore_product_search_recommend"),
    "reservation": ("instore_shop_search_recommend",),
    "book": ("instore_shop_search_recommend",),
}
_KIND_NOUNS = {
    "delivery": "food meal drink order delivery takeaway lunch dinner breakfast",
    "instore_product": "shop store salon restaurant venue spa voucher",
    "reservation": "shop store restaurant venue table",
    "book": "shop store salon venue appointment",
    "hotel": "hotel room night stay",
    "train": "train ticket seat",
    "flight": "flight ticket seat airline",
    "attraction": "attraction ticket park museum",
}
_OFFICE = re.compile(r"\b(office|work|company|department|school|lab|campus|workplace|desk)\b", re.I)
_HOME = re.compile(r"\b(home|house|apartment|flat|dorm)\b", re.I)
_TRAVEL = re.compile(r"\b(hotels?|flights?|trains?|travel|trips?|tickets?)\b")
_INSTORE = re.compile(r"\b(table|reserve|voucher|salon|massage)\b")
_PURCHASE = re.compile(r"\b(voucher|coupon|buy|purchase|package|set meal|deal|pass)\b")
_TABLE = re.compile(r"\b(table|reserve|reservation|room|seat|booth)\b")
_APPOINTMENT = re.compile(r"\b(appointment|book)\b")
_TRAIN = re.compile(r"\b(trains?|rail|high-speed|bullet)\b")
_FLIGHT = re.compile(r"\b(flights?|fly|planes?|airports?|airlines?)\b")
_ATTRACTION = re.compile(r"\b(attractions?|museums?|parks?|tours?|scenic|zoos?|exhibitions?)\b")
_DINNER = re.compile(r"dinner|supper")
#: Per domain: the decision kind of the first pattern the request matches, else the default.
_KIND_RULES: dict[str, tuple[tuple[tuple[re.Pattern[str], str], ...], str]] = {
    "delivery": ((), "delivery"),
    "instore": (((_PURCHASE, "instore_product"), (_TABLE, "reservation"), (_APPOINTMENT, "book")), "instore_product"),
    "ota": (((_TRAIN, "train"), (_FLIGHT, "flight"), (_ATTRACTION, "attraction")), "hotel"),
}
_USER_ID = re.compile(r"\b([A-Z]{1,3}\d{3,})\b")
_PLACE = re.compile(r"\b(?:to|in|at|for|visit|visiting)\s+([A-Z][a-zA-Z]+(?:\s[A-Z][a-zA-Z]+)?)")
#: Profile keys, matched case-insensitively against the stripped key.
_CITY_KEY = re.compile(r"^city$|residence|常住地|^location$|hometown", re.I)
_USER_ID_KEY = re.compile(r"^user[ _]?id$|^uid$|用户", re.I)
_HOME_KEY = re.compile(r"home.?address|^address$|常住住址|家庭住址|residential", re.I)
_WORK_KEY = re.compile(r"work.?address|office|company.?address|工作地址", re.I)
_ADDRESS_KEY = re.compile(r"address", re.I)


# ------------------------------------------------------------------------------------------ the agent


class BuiltinAgent:
    """The shared script; subclasses choose where preferences come from and whether to ask.

    Attributes:
        name: The ``--vita-model`` name.
        uses_preferences: Rank by preference evidence (else by request relevance and rating only).
        asks_when_proactive: Ask once for missing details in a proactive subtask.
    """

    name = "builtin"
    uses_preferences = True
    asks_when_proactive = True
    reads_groundtruth = False
    #: The script reads tool results as JSON: it always gets our answers (``--vita-deviation tool-results`` is for
    # models).
    reads_json_results = True
    #: How many rankings the agent remembers (oldest dropped first): enough for the items a process has in
    #: flight and the trials of a subtask.
    remembered_rankings = 64

    def __init__(self) -> None:
        self._rankings: dict[tuple[Any, ...], list[tuple[Candidate, list[str]]]] = {}
        self._lock = threading.Lock()  # episodes in flight may share the agent across threads
        self._kept: tuple[str, list[str], PreferenceMemory] | None = None

    # -- where preferences come from
    def preference_text(self, setup: AgentSetup) -> str:
        return setup.memory

    def memory(self, setup: AgentSetup) -> PreferenceMemory:
        """The preferences the agent reads from ``setup`` (its own copy: hand it back with :meth:`keep`)."""
        if not self.uses_preferences:
            return PreferenceMemory()
        text, extra = self.preference_text(setup), profile_statements(setup.user_profile)
        with self._lock:
            last, self._kept = self._kept, None
        # A user's history grows by a few records per subtask: the memory kept from the last ranking, when this
        # text continues its text line for line, reads only the new lines (reading the whole history again at
        # every subtask dominated offline runs and estimates at the paper's scale).
        if last is not None and last[1] == extra and text.startswith(last[0]) and text[len(last[0]):][:1] == "\n":
            last[2].extend(text[len(last[0]) + 1:])
            return last[2]
        return PreferenceMemory(text, extra)

    def keep(self, setup: AgentSetup, memory: PreferenceMemory) -> None:
        """Keep a memory no ranking reads any more, for :meth:`memory` to extend (one at a time, never shared)."""
        if self.uses_preferences:
            with self._lock:
                self._kept = (self.preference_text(setup), profile_statements(setup.user_profile), memory)

    # -- the script
    def respond(self, setup: AgentSetup, messages: list[Message]) -> Message:
        """The next assistant message (a bug propagates: the harness reports an error, never a silent score)."""
        trail = Trajectory.read(messages)
        if trail.finished:
            return say(f"You're welcome, have a nice day! {STOP_TOKEN}")
        plan = _Plan.make(setup, trail, self)
        if plan is None:
            return say(f"Sorry, I can't help with that request here. {STOP_TOKEN}")
        if self.asks_when_proactive and setup.proactive and trail.asked_details is None:
            return say(plan.question())
        step = plan.next_lookup()
        if step is not None:
            return step
        return plan.decide()


class ReferenceAgent(BuiltinAgent):
    """Preference-aware baseline: ranks candidates by the evidence in its memory text."""

    name = "reference"


class LiteralAgent(BuiltinAgent):
    """Uses only the request: most relevant, then best rated. The "popular item" failure mode."""

    name = "literal"
    uses_preferences = False
    asks_when_proactive = False


class GroundtruthReaderAgent(BuiltinAgent):
    """Ranks by the ground-truth preference tags (``setup.groundtruth``) instead of memory.

    It still chooses by the lexical heuristics, so it is a ceiling only where the tags are phrased in
    words the heuristics read; the answer oracle is :class:`~.answer.AnswerAgent`.
    """

    name = "groundtruth-reader"
    reads_groundtruth = True

    def preference_text(self, setup: AgentSetup) -> str:
        return render_preferences(setup.groundtruth) if setup.groundtruth else setup.memory


# ------------------------------------------------------------------------------------------ the plan


class _Plan:
    """Everything derived for one call: the decision kind, the request facts, the candidates."""

    def __init__(self, setup: AgentSetup, trail: Trajectory, agent: BuiltinAgent, domain: str, kind: str,
                 tools: dict[str, dict[str, Any]] | None = None):
        self.setup, self.trail, self.agent = setup, trail, agent
        self.domain, self.kind = domain, kind
        self.tools = _tool_specs(setup.tools) if tools is None else tools
        self.now = parse_now(setup.time)
        # What the request (and the user's answer to our question, if any) says: the same on every turn.
        instruction = trail.instruction
        words = content_words(instruction)
        self.facts: Facts = extract_facts(instruction, self.now, set(words))
        if trail.asked_details is not None:
            reply = next((m.text for m in trail.messages[trail.asked_details + 1:] if m.role == "user"), None)
            if reply is not None:
                self.facts = self.facts.merged(extract_facts(reply, self.now, set(words)))
        self.destination = _destination(instruction)
        place = tokenize(self.destination or "")
        self._keywords = [w for w in words if w not in place][:6] or [instruction[:40]]
        self.request_words = set(words) - set(place)
        self.origin = _profile_value(setup.user_profile, _CITY_KEY) or ""
        # The options the read tools returned (our own writes add none); parsed afresh every turn.
        self.catalogue = Catalogue()
        for result in trail.results:
            if not result.error and result.name not in setup.write_tools:
                self.catalogue.add(result.data())

    @classmethod
    def make(cls, setup: AgentSetup, trail: Trajectory, agent: BuiltinAgent) -> _Plan | None:
        tools = _tool_specs(setup.tools)
        markers = (("delivery", "create_delivery_order"), ("instore", "instore_shop_search_recommend"),
                   ("ota", "hotel_search_recommand"))
        domains = tuple(d for d, tool in markers if tool in tools)
        if not domains:
            return None
        domain, kind = _domain_and_kind(trail.instruction, domains)
        return cls(setup, trail, agent, domain, kind, tools)

    # -- talking
    def question(self) -> str:
        if self.kind in ("reservation", "book"):
            ask = "how many people will be coming, and which day and what time suit you?"
        elif self.kind == "hotel":
            ask = "which date you need the room for, and how many guests there will be?"
        elif self.kind in ("train", "flight", "attraction"):
            ask = "which date you want to go, and how many travellers there will be?"
        else:
            ask = "how many portions you need, and when it should arrive?"
        return f"{ASK_PREFIX}, could you tell me {ask}"

    # -- tools
    def call(self, name: str, **values: Any) -> _Call | None:
        """A call of ``name`` with the arguments its schema declares (None when the tool is not offered)."""
        spec = self.tools.get(name)
        if spec is None:
            return None
        props = (spec.get("parameters") or {}).get("properties") or {}
        return _Call(name, {k: v for k, v in values.items() if k in props and v is not None})

    def _emit(self, calls: list[_Call | None]) -> Message | None:
        """The calls not made yet, as one assistant message (None when all were made)."""
        made = self.trail.calls
        fresh = [c for c in calls if c is not None and call_key(c.name, c.arguments) not in made]
        if not fresh:
            return None
        turn = sum(1 for m in self.trail.messages if m.role == "assistant")
        return Message(role="assistant", tool_calls=[ToolCall(id=f"call_{turn}_{k}", name=c.name, arguments=c.arguments)
                                                     for k, c in enumerate(fresh)])

    def keywords(self) -> list[str]:
        return list(self._keywords)

    def date(self) -> str:
        return self.facts.date or self.now.date().isoformat()

    def next_lookup(self) -> Message | None:
        """Search calls first, then detail calls a search left out; None when the catalogue is complete."""
        message = self._emit(self.searches())
        if message is not None:
            return message
        catalogue = self.catalogue
        details: list[_Call | None] = []
        if self.kind == "delivery":
            owners = {p.get("_owner") for p in catalogue.products.values()}
            missing = [o for o in owners if o and "score" not in catalogue.entities.get(o, {})]
            details = [self.call("get_delivery_store_info", store_id=o) for o in sorted(missing)[:20]]
        elif self.kind in ("hotel", "attraction"):
            info, key = (("get_ota_hotel_info", "hotel_id") if self.kind == "hotel"
                         else ("get_ota_attraction_info", "attraction_id"))
            bare = [eid for eid in catalogue.order if not catalogue.entities[eid].get("_has_products")]
            details = [self.call(info, **{key: eid}) for eid in bare[:15]]
        return self._emit(details)

    def searches(self) -> list[_Call | None]:
        """The search calls of this decision kind (None for a tool the domain does not offer)."""
        kind = self.kind
        if kind in _KEYWORD_SEARCHES:
            keywords = self.keywords()
            return [self.call(name, keywords=keywords) for name in _KEYWORD_SEARCHES[kind]]
        if kind == "hotel":
            return [self.call("hotel_search_recommand", city_name=self.destination or self.origin,
                              key_words=self.keywords())]
        if kind == "train":
            return [self.call("train_ticket_search", departure=self.origin, destination=self.destination or "",
                              date=self.date())]
        if kind == "flight":
            return [self.call("flight_search_recommend", departure=self.origin, destination=self.destination or "")]
        return [self.call("attractions_search_recommend", city_name=self.destination or self.origin,
                          key_words=self.keywords())]

    # -- choosing
    def candidates(self) -> list[Candidate]:
        catalogue = self.catalogue
        out: list[Candidate] = []
        if self.kind in ("reservation", "book"):
            flag = "enable_reservation" if self.kind == "reservation" else "enable_book"
            for eid in catalogue.order:
                entity = catalogue.entities[eid]
                if entity.get("_id_key") == "shop_id" and entity.get(flag, True) is not False:
                    out.append(Candidate(eid, entity, None, len(out)))
        else:
            for product in catalogue.products.values():
                owner = product.get("_owner")
                if not owner or product.get("quantity") == 0:
                    continue
                out.append(Candidate(owner, catalogue.entities.get(owner, {}), product, len(out)))
            if self.kind in ("hotel", "train", "flight", "attraction") and self.facts.date:
                dated = [c for c in out if c.date == self.facts.date]
                out = dated or out
        if self.kind in ("delivery", "instore_product", "reservation", "book") and out:
            scores = [relevance(c, self.request_words) for c in out]
            best = max(scores)
            if best > 0:
                out = [c for c, s in zip(out, scores, strict=True) if s == best]
        if self.facts.max_price is not None:
            capped = [c for c in out if c.price is None or c.price <= self.facts.max_price]
            out = capped or out
        return out

    def ranking(self) -> list[tuple[Candidate, list[str]]]:
        """Candidates, best first, with the liked phrases that speak for each; remembered by the agent, keyed
        by everything it reads (so shared between turns and trials, and read-only)."""
        agent, setup = self.agent, self.setup
        # The situation words the user's turns state (see situation_of).
        situation = situation_of([m.text for m in self.trail.messages if m.role == "user"])
        key = (agent.preference_text(setup) if agent.uses_preferences else "",
               tuple(profile_statements(setup.user_profile)), self.kind, frozenset(self.request_words),
               self.facts.date, self.facts.max_price, situation,
               tuple(r.content for r in self.trail.results if not r.error and r.name not in setup.write_tools))
        with agent._lock:
            found = agent._rankings.get(key)
        if found is None:
            found = self._rank(situation)
            with agent._lock:
                agent._rankings[key] = found
                while len(agent._rankings) > agent.remembered_rankings:
                    del agent._rankings[next(iter(agent._rankings))]
        return found

    def _rank(self, situation: frozenset[tuple[str, str]]) -> list[tuple[Candidate, list[str]]]:
        candidates = self.candidates()
        memory = self.agent.memory(self.setup)
        context = self.request_words | set(tokenize(_KIND_NOUNS[self.kind]))
        for c in candidates:
            context |= c.phrase_tokens()
        score = CandidateScorer(memory, self.request_words, context, situation) if memory else None
        rows = []
        for c in candidates:
            judged = score(c) if score else None
            value = judged.value if judged else 0.0
            rows.append(((-value, -(c.score or 0.0), c.position), c, judged.reasons if judged else []))
        self.agent.keep(self.setup, memory)
        rows.sort(key=lambda row: row[0])
        return [(c, reasons) for _, c, reasons in rows]

    def decide(self) -> Message:
        trail = self.trail
        write, pay, record_key = _WRITE[self.kind]
        created = [r for r in trail.results_named(write) if not r.error]
        failed = [r for r in trail.results_named(write) if r.error]
        if created:
            record = created[-1].data() if isinstance(created[-1].data(), dict) else {}
            record_id = str(record.get(record_key) or "")
            paid = [r for r in trail.results_named(pay or "") if not r.error]
            if pay and record.get("status") == "unpaid" and not paid:
                message = self._emit([self.call(pay, **{record_key: record_id})])
                if message is not None:
                    return message
                return say(f"Sorry, I could not pay for {record_id}. {STOP_TOKEN}")
            return say(self.confirmation(record, record_id))
        if any("user id" in r.content.lower() for r in failed) and not trail.asked_id:
            return say(ID_QUESTION)
        ranking = self.ranking()
        attempt = trail.rejections() + len(failed)
        if not ranking or attempt >= min(MAX_ATTEMPTS, len(ranking)):
            return say(f"Sorry, I could not find a suitable option for your request. {STOP_TOKEN}")
        choice, reasons = ranking[attempt]
        user_id = self.user_id()
        if len(trail.recommendations) <= attempt:
            return say(self.recommendation(choice, reasons))
        if user_id is None:
            if not trail.asked_id:
                return say(ID_QUESTION)
            return say(f"Sorry, I need your user ID to continue. {STOP_TOKEN}")
        message = self._emit([self.write_call(choice, user_id)])
        if message is None:
            return say(f"Sorry, I could not complete the booking. {STOP_TOKEN}")
        return message

    # -- the write
    def quantity(self) -> int:
        return self.facts.count or 1

    def write_call(self, c: Candidate, user_id: str) -> _Call | None:
        write = _WRITE[self.kind][0]
        pid, qty = c.product_id, self.quantity()
        if self.kind == "delivery":
            return self.call(write, user_id=user_id, store_id=c.entity_id, product_ids=[pid], product_cnts=[qty],
                             address=self.address(), dispatch_time=self.dispatch_time())
        if self.kind == "instore_product":
            return self.call(write, user_id=user_id, shop_id=c.entity_id, product_id=pid, quantity=qty)
        if self.kind in ("reservation", "book"):
            count = self.facts.count or 2
            return self.call(write, user_id=user_id, shop_id=c.entity_id, time=self.visit_time(),
                             customer_count=count)
        if self.kind == "hotel":
            return self.call(write, hotel_id=c.entity_id, room_id=pid, user_id=user_id)
        id_key = {"train": "train_id", "flight": "flight_id", "attraction": "attraction_id"}[self.kind]
        seat_key = "ticket_id" if self.kind == "attraction" else "seat_id"
        return self.call(write, **{id_key: c.entity_id, seat_key: pid}, user_id=user_id,
                         date=c.date or self.date(), quantity=qty)

    def user_id(self) -> str | None:
        found = _profile_value(self.setup.user_profile, _USER_ID_KEY)
        if found:
            return found
        if self.trail.asked_id:
            for message in self.trail.messages:
                if message.role == "user":
                    match = _USER_ID.search(message.text)
                    if match:
                        return match.group(1)
        return None

    def address(self) -> str:
        profile = self.setup.user_profile
        home = _profile_value(profile, _HOME_KEY)
        work = _profile_value(profile, _WORK_KEY)
        wants_work = bool(_OFFICE.search(self.trail.instruction)) and not _HOME.search(self.trail.instruction)
        if wants_work and work:
            return work
        return home or work or _profile_value(profile, _ADDRESS_KEY) or ""

    def dispatch_time(self) -> str:
        now = self.now
        if self.facts.time:
            day = self.facts.date or now.date().isoformat()
            try:
                wanted = datetime.strptime(f"{day} {self.facts.time}", "%Y-%m-%d %H:%M") - timedelta(minutes=30)
                if wanted > now:
                    return wanted.strftime("%Y-%m-%d %H:%M:%S")
            except ValueError:
                pass
        return now.strftime("%Y-%m-%d %H:%M:%S")

    def visit_time(self) -> str:
        low = self.trail.instruction.lower()
        default = "12:00" if "lunch" in low else "18:00" if _DINNER.search(low) else "19:00"
        when = f"{self.date()} {self.facts.time or default}:00"
        if when < self.now.strftime("%Y-%m-%d %H:%M:%S"):
            when = (datetime.strptime(when, "%Y-%m-%d %H:%M:%S") + timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S")
        return when

    # -- texts
    def recommendation(self, c: Candidate, reasons: list[str]) -> str:
        rating = f", rated {c.score:g}" if c.score is not None else ""
        why = f" It fits what you like: {', '.join(reasons[:4])}." if reasons else ""
        if self.kind in ("reservation", "book"):
            when = self.visit_time()[:16]
            count = self.facts.count or 2
            return (f"{RECOMMEND_PREFIX} {entity_name(c.entity) or c.entity_id}{rating}: a table for {count} people "
                    f"on {when}.{why} Shall I make the reservation?")
        qty = self.quantity()
        price = f" for {c.price:g} yuan" if c.price is not None else ""
        amount = f"{qty} x " if qty > 1 else ""
        day = f" on {c.date}" if c.date and self.domain == "ota" else ""
        return f"{RECOMMEND_PREFIX} {amount}{c.label}{rating}{price}{day}.{why} Shall I go ahead and book it?"

    def confirmation(self, record: dict[str, Any], record_id: str) -> str:
        if self.kind == "reservation":
            return (f"Your reservation {record_id} is confirmed for {record.get('customer_count', '')} people at "
                    f"{record.get('reservation_time', '')}. Is there anything else I can help you with?")
        total = record.get("total_price", record.get("book_price"))
        cost = f" (total {total} yuan)" if total is not None else ""
        return f"Done: {record_id} has been placed and paid{cost}. Is there anything else I can help you with?"


# ------------------------------------------------------------------------------------------ helpers


class _Call(NamedTuple):
    """A tool call the plan may make; a :class:`ToolCall` only once it is emitted (most were made already)."""

    name: str
    arguments: dict[str, Any]


def _tool_specs(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each offered tool's function schema, by name."""
    return {tool.get("function", {}).get("name"): tool.get("function", {}) for tool in tools}


def _domain_and_kind(instruction: str, domains: tuple[str, ...]) -> tuple[str, str]:
    """The domain (of those whose tools are offered) and the decision kind the request asks for."""
    low = instruction.lower()
    domain = domains[0]
    if len(domains) > 1:
        if _TRAVEL.search(low) and "ota" in domains:
            domain = "ota"
        elif _INSTORE.search(low) and "instore" in domains:
            domain = "instore"
    rules, default = _KIND_RULES[domain]
    return domain, next((kind for pattern, kind in rules if pattern.search(low)), default)


def _profile_value(profile: dict[str, Any], key_pattern: re.Pattern[str]) -> str | None:
    for key, value in profile.items():
        if key_pattern.search(str(key).strip()) and value not in (None, "", []):
            return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return None


_NOT_PLACES = {"I", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January",
               "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
               "December", "The", "A", "My", "Our"}


def _destination(instruction: str) -> str | None:
    """The capitalised place after ``to`` / ``in`` / ``for`` (``Book me a hotel in Hangzhou``)."""
    for match in _PLACE.finditer(instruction):
        words = [w for w in match.group(1).split() if w not in _NOT_PLACES]
        if words:
            return " ".join(words)
    return None
