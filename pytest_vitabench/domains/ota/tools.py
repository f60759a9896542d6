"""The 37 travel tools (44 with the shared ones), with VitaBench 2.0's tool and argument names.

Searches that find nothing say so with an explicit empty result (``taxi_search`` with no match no longer
lists every taxi, a VitaBench 2.0 bug), so the agent never books an unrelated match.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

from ..base import ToolError
from ..clock import parse_date
from ..declare import Arg, tool
from ..entities import Entity
from ..fuzzy import fuzzy_rank, fuzzy_score, official_match
from ..shared_tools import OrderId, UserId
from .booking import STATUSES, OtaBooking
from .models import KINDS, Flight

#: Minimum fuzzy score for a city (or taxi address) to count as a match. VitaBench 2.0 uses 40,
#: which lets unrelated cities through; 80 still accepts "Chengdu" for "Chengdu Shuangliu Airport".
CITY_MATCH = 80.0
ADDRESS_MATCH = 70.0
DATED_KINDS = ("hotel", "attraction", "flight", "train")

_CITY_SUFFIXES = (" city", "市")

HotelId = Annotated[str, Arg("The hotel's ID, as returned by hotel_search_recommand.")]
AttractionId = Annotated[str, Arg("The attraction's ID, as returned by attractions_search_recommend.")]
FlightId = Annotated[str, Arg("The flight's ID (flight_id, not the flight number), from flight_search_recommend.")]
TrainId = Annotated[str, Arg("The train's ID (train_id, not the train number), from train_ticket_search.")]
TaxiId = Annotated[str, Arg("The taxi offer's ID, as returned by taxi_search.")]
TravelDate = Annotated[str, Arg("The travel/visit date, YYYY-MM-DD.")]
Quantity = Annotated[int, Arg("Number of tickets or seats (one per traveller), at least 1.", minimum=1)]
FilterDate = Annotated[str | None, Arg("Optional: only orders with a booking on this date (YYYY-MM-DD).")]
Status = Annotated[str | None, Arg(
    "Only orders with this status: 'unpaid', 'paid' (default) or 'cancelled'.", enum=list(STATUSES))]
City = Annotated[str, Arg("The city to search in, e.g. 'Hangzhou'.")]


def _norm_city(text: str) -> str:
    text = str(text).strip()
    for suffix in _CITY_SUFFIXES:
        if text.lower().endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
    return text.strip()


def _matches(query: str, text: str, threshold: float = CITY_MATCH) -> bool:
    query = _norm_city(query)
    return bool(query) and bool(text) and fuzzy_score(query, text) >= threshold


def _address(item: Any) -> str:
    location = getattr(item, "location", None)
    return location.address if location else ""


def _none_found(what: str) -> dict[str, Any] | str:
    # An explicit empty result rather than a fallback list: the agent must not book an unrelated match.
    return {"results": [], "message": f"No {what} found"}


class OtaTools(OtaBooking):
    """Hotels, attractions, flights, trains and taxis: search, details, and orders of each kind."""

    official_class = "OTATools"

    # ------------------------------------------------------------------ info

    @tool()
    def get_ota_hotel_info(self, hotel_id: HotelId) -> dict[str, Any] | str:
        """Get a hotel's details: name, score, star rating, address, tags and every room offer (room id =
        product_id, room type, night date, price per night, rooms left)."""
        return self.entity("hotel", hotel_id).view()

    @tool()
    def get_ota_attraction_info(self, attraction_id: AttractionId) -> dict[str, Any] | str:
        """Get an attraction's details: description, opening hours, score, address and every ticket (ticket
        id = product_id, ticket type, date, price, tickets left)."""
        return self.entity("attraction", attraction_id).view()

    @tool()
    def get_ota_flight_info(self, flight_id: FlightId) -> dict[str, Any] | str:
        """Get a flight's details: flight number, cities, airports, times, tags and every seat offer (seat
        id = product_id, seat type, date, price, seats left)."""
        return self.entity("flight", flight_id).view()

    @tool()
    def get_ota_train_info(self, train_id: TrainId) -> dict[str, Any] | str:
        """Get a train's details: train number, cities, stations, times, tags and every seat offer (seat id
        = product_id, seat type, date, price, seats left)."""
        return self.entity("train", train_id).view()

    @tool()
    def get_taxi_info(self, taxi_id: TaxiId) -> dict[str, Any] | str:
        """Get a taxi offer's details: car type, platform, pick-up and drop-off locations, estimated
        duration and price, and its bookable products."""
        return self.entity("taxi", taxi_id).view()

    # ------------------------------------------------------------------ search

    def ranked(
        self,
        items: Mapping[str, Entity],
        city_name: str,
        city_text: Callable[[Any], str],
        key_words: Sequence[str] | None,
        text: Callable[[Any], str],
        official_text: Callable[[Any], str],
    ) -> list[Any]:
        if self.env.official_search:
            # The search style's filter reads the address only; the keywords are joined with nothing.
            in_city = [(eid, item) for eid, item in items.items()
                       if official_match(city_name, _address(item))]
            return self.env.rank(list(key_words or []), [(eid, official_text(item), item) for eid, item in in_city])
        in_city = [(eid, item) for eid, item in items.items() if _matches(city_name, city_text(item))]
        words = [str(w) for w in (key_words or []) if str(w).strip()]
        return fuzzy_rank(words, [(eid, text(item), item) for eid, item in in_city])

    def route(self, items: dict[str, Any], departure: str, destination: str) -> list[Any]:
        if self.env.official_search:  # the database's order, the threshold of 40
            return [item for item in items.values()
                    if official_match(departure, item.departure_city)
                    and official_match(destination, item.arrival_city)]
        hits = [
            item
            for item in items.values()
            if _matches(departure, item.departure_city) and _matches(destination, item.arrival_city)
        ]
        return sorted(
            hits,
            key=lambda item: (item.departure_time, item.flight_id if isinstance(item, Flight) else item.train_id),
        )

    @tool()
    def hotel_search_recommand(
        self,
        city_name: City,
        key_words: Annotated[list[str] | None, Arg(
            "Optional key words to rank by, e.g. ['Sheraton', 'breakfast'].")] = None,
    ) -> Any:
        """Search hotels in a city, ranked by how well their name and tags match the key words. Returns hotel
        summaries; call get_ota_hotel_info for the rooms and their ids."""
        hits = self.ranked(
            self.db.hotels,
            city_name,
            lambda h: f"{h.location.address if h.location else ''} {h.hotel_name}",
            key_words,
            lambda h: f"{h.hotel_name} {' '.join(h.tags)}",
            lambda h: h.hotel_name + ",".join(h.tags),
        )
        if self.env.official_results:
            return self.answering.listing("hotel", hits)
        return [h.summary() for h in hits] or _none_found(f"hotel in {city_name!r}")

    @tool()
    def attractions_search_recommend(
        self, city_name: City, key_words: Annotated[list[str], Arg("Key words to rank by, e.g. ['museum', 'history'].")]
    ) -> Any:
        """Search attractions in a city, ranked by how well their name and description match the key words.
        Returns attraction summaries; call get_ota_attraction_info for tickets and their ids."""
        hits = self.ranked(
            self.db.attractions,
            city_name,
            lambda a: f"{a.location.address if a.location else ''} {a.attraction_name}",
            key_words,
            lambda a: f"{a.attraction_name} {a.description}",
            lambda a: f"{a.attraction_name},{a.description},{_address(a)}",
        )
        if self.env.official_results:
            return self.answering.listing("attraction", hits)
        return [a.summary() for a in hits] or _none_found(f"attraction in {city_name!r}")

    @tool()
    def flight_search_recommend(
        self,
        departure: Annotated[str, Arg("Departure city, e.g. 'Beijing'.")],
        destination: Annotated[str, Arg("Arrival city, e.g. 'Shanghai'.")],
    ) -> Any:
        """Search flights from a departure city to a destination city (all dates). Returns each flight with
        its seat offers per date."""
        if self.env.official_results:
            missing = self.answering.missing_places("flight", departure, destination)
            return missing or self.answering.listing("flight", self.route(self.db.flights, departure, destination))
        hits = self.route(self.db.flights, departure, destination)
        return [f.view() for f in hits] or _none_found(f"flight from {departure!r} to {destination!r}")

    @tool()
    def train_ticket_search(
        self,
        departure: Annotated[str, Arg("Departure city.")],
        destination: Annotated[str, Arg("Arrival city.")],
        date: Annotated[str, Arg("Travel date, YYYY-MM-DD.")],
    ) -> Any:
        """Search trains from a departure city to a destination city that run on a date. Returns each train
        with its seat offers on that date."""
        if self.env.official_results:
            missing = self.answering.missing_places("train", departure, destination)
            return missing or self.answering.trains_on(self.route(self.db.trains, departure, destination), date)
        day = parse_date(date).isoformat()
        results = []
        for train in self.route(self.db.trains, departure, destination):
            offers = [p.view() for p in train.products if p.date[:10] == day]
            if offers:
                results.append({**train.summary(), "products": offers})
        return results or _none_found(f"train from {departure!r} to {destination!r} on {day}")

    @tool()
    def taxi_search(
        self,
        departure_location: Annotated[str, Arg("The pick-up address or place name.")],
        arrival_location: Annotated[str, Arg("The drop-off address or place name.")],
    ) -> Any:
        """Search taxi offers between a pick-up and a drop-off location. Returns matching offers (car type,
        platform, estimated duration and price, products), or an empty result if none match."""
        if self.env.official_results and (missing := self.answering.missing_places("taxi", departure_location,
                                                                                   arrival_location)):
            return missing
        if self.env.official_search:
            # The search style's filter and order; VitaBench 2.0's fallback to every taxi when none matches stays fixed.
            hits = [taxi for taxi in self.db.taxis.values()
                    if official_match(departure_location, taxi.address("departure") or "")
                    and official_match(arrival_location, taxi.address("arrival") or "")]
        else:
            scored = []
            for taxi_id, taxi in self.db.taxis.items():
                start = fuzzy_score(departure_location, taxi.address("departure")) if taxi.address("departure") else 0
                end = fuzzy_score(arrival_location, taxi.address("arrival")) if taxi.address("arrival") else 0
                if start >= ADDRESS_MATCH and end >= ADDRESS_MATCH:
                    scored.append((-(start + end), taxi_id, taxi))
            hits = [taxi for _, _, taxi in sorted(scored, key=lambda row: row[:2])]
        if self.env.official_results:
            return self.answering.listing("taxi", hits)
        return [taxi.view() for taxi in hits] or _none_found(
            f"taxi from {departure_location!r} to {arrival_location!r}")

    # ------------------------------------------------------------------ create

    @tool("create")
    def create_hotel_order(
        self,
        hotel_id: HotelId,
        room_id: Annotated[str, Arg("The room offer's product_id from get_ota_hotel_info (one night).")],
        user_id: UserId,
    ) -> dict[str, Any] | str:
        """Book one room for one night. Precondition: the room id belongs to the hotel, has rooms left, and
        the user id matches. Creates an unpaid order; returns it (pay it with pay_hotel_order)."""
        # VitaBench 2.0 bug: an unknown room created an empty, zero-priced order
        return self.create("hotel", hotel_id, room_id, user_id, 1, what="room")

    @tool("create")
    def create_attraction_order(
        self,
        attraction_id: AttractionId,
        ticket_id: Annotated[str, Arg("The ticket's product_id from get_ota_attraction_info.")],
        user_id: UserId,
        date: TravelDate,
        quantity: Quantity,
    ) -> dict[str, Any] | str:
        """Buy attraction tickets for a date. Precondition: the ticket exists on that date with enough left.
        Creates an unpaid order; returns it (pay it with pay_attraction_order)."""
        return self.create("attraction", attraction_id, ticket_id, user_id, quantity, date)

    @tool("create")
    def create_flight_order(
        self,
        flight_id: FlightId,
        seat_id: Annotated[str, Arg("The seat offer's product_id from the flight's products.")],
        user_id: UserId,
        date: TravelDate,
        quantity: Quantity,
    ) -> dict[str, Any] | str:
        """Book flight seats on a date. Precondition: the seat offer exists on that date with enough seats
        left. Creates an unpaid order; returns it (pay it with pay_flight_order)."""
        return self.create("flight", flight_id, seat_id, user_id, quantity, date)

    @tool("create")
    def create_train_order(
        self,
        train_id: TrainId,
        seat_id: Annotated[str, Arg("The seat offer's product_id from the train's products.")],
        user_id: UserId,
        date: TravelDate,
        quantity: Quantity,
    ) -> dict[str, Any] | str:
        """Book train seats on a date. Precondition: the seat offer exists on that date with enough seats
        left. Creates an unpaid order; returns it (pay it with pay_train_order)."""
        return self.create("train", train_id, seat_id, user_id, quantity, date)

    @tool("create")
    def create_taxi_order(
        self,
        taxi_id: TaxiId,
        product_id: Annotated[str, Arg("The ride's product_id from taxi_search or get_taxi_info.")],
        user_id: UserId,
        quantity: Annotated[int, Arg("Number of cars, default 1.", minimum=1)] = 1,
    ) -> dict[str, Any] | str:
        """Book a taxi ride. Precondition: the product belongs to the taxi offer. Creates an unpaid order;
        returns it (pay it with pay_taxi_order)."""
        return self.create("taxi", taxi_id, product_id, user_id, quantity)

    # ------------------------------------------------------------------ one tool per order kind

    @tool("write", name="pay_{kind}_order", each=KINDS)
    def pay_order(self, kind: str, order_id: OrderId) -> dict[str, Any] | str:
        """Pay an unpaid {kind} order. Precondition: its status is unpaid. Sets it to paid."""
        order = self.order_of(kind, order_id)
        if order.status != "unpaid":
            raise ToolError(f"Order status must be unpaid (order {order.order_id} is {order.status})")
        self.env.touch(order, "paid")
        return {
            "order_id": order.order_id,
            "status": order.status,
            "paid_amount": order.total_price,
            "message": "Payment successful",
        }

    @tool(name="search_{kind}_order", each=DATED_KINDS)
    def search_dated_orders(
        self, kind: str, user_id: UserId, date: FilterDate = None, status: Status = "paid"
    ) -> list[dict[str, Any]] | str:
        """List the user's {kind} orders with a given status (default paid), optionally only those booked for
        one date. Returns a list, empty when there are none."""
        return self.search_orders(kind, user_id, date, status)

    @tool()
    def search_taxi_order(self, user_id: UserId, status: Status = "paid") -> list[dict[str, Any]] | str:
        """List the user's taxi orders with a given status (default paid). Returns a list, empty when there
        are none."""
        return self.search_orders("taxi", user_id, None, status)

    @tool(name="get_{kind}_order_detail", each=KINDS)
    def order_detail(self, kind: str, order_id: OrderId) -> dict[str, Any] | str:
        """Get a {kind} order's details: status, booked products (id, type, date, price, quantity) and total
        price."""
        return self.env.order_view(self.order_of(kind, order_id))

    @tool("write", name="modify_{kind}_order", each=("train", "flight"))
    def modify_order(
        self, kind: str, order_id: OrderId, user_id: UserId,
        new_date: Annotated[str, Arg("The new travel date, YYYY-MM-DD.")],
    ) -> dict[str, Any] | str:
        """Move a paid {kind} order (one product) to another date, same seat type. If the new fare is higher
        the order becomes unpaid and must be paid again; a lower fare is refunded. Returns the updated order
        and the price difference."""
        order = self.own_order(kind, order_id, user_id)
        if order.status != "paid":
            raise ToolError(f"Only paid orders can be modified (order {order.order_id} is {order.status})")
        if len(order.products) != 1:
            raise ToolError("Only orders with a single product can be modified")
        day = self.check_date(new_date, "new_date")
        line = order.products[0]
        if (line.date or "")[:10] == day:
            raise ToolError(f"The order is already for {day}")
        found = self.entity(kind, order.store_id)
        replacement = next(
            (p for p in found.products if p.date[:10] == day and p.seat_type == line.seat_type), None
        )
        if replacement is None:
            raise ToolError(f"No {line.seat_type or 'matching'} seat on {day} for this {kind}")
        self.take(replacement, line.quantity)
        self.give_back(order)
        difference = round((replacement.price - line.price) * line.quantity, 2)
        order.products = [self.line_for(kind, replacement, line.quantity)]
        order.total_price = round(replacement.price * line.quantity, 2)
        # As in VitaBench 2.0: a dearer new date leaves the order unpaid until the user pays again.
        if difference > 0:
            order.status = "unpaid"
            message = f"Date changed to {day}; the fare is {difference} higher, so the order must be paid again"
        elif difference < 0:
            message = f"Date changed to {day}; {-difference} will be refunded"
        else:
            message = f"Date changed to {day}; no price difference"
        self.env.touch(order)
        return {"order": self.env.order_view(order), "price_difference": difference, "message": message}

    @tool("write", name="cancel_{kind}_order", each=KINDS)
    def cancel_order(self, kind: str, order_id: OrderId, user_id: UserId) -> dict[str, Any] | str:
        """Cancel the user's {kind} order (unpaid or paid). A paid order is refunded in full. Returns the
        refund amount."""
        order = self.own_order(kind, order_id, user_id)
        if order.status == "cancelled":
            raise ToolError(f"Order {order.order_id} is already cancelled")
        refund = order.total_price if order.status == "paid" else 0.0
        self.give_back(order)
        self.env.touch(order, "cancelled")
        return {
            "order_id": order.order_id,
            "status": order.status,
            "refund": refund,
            "message": f"Order cancelled; refund {refund}",
        }
