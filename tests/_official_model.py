"""The official VitaBench 2.0 data model (its task file's pydantic models), written for tests from their
field names and types.

Only what the official loader checks: field names, requiredness and types of ``PersonalizationTask``,
``SubTask``, ``UserScenario``, ``EvaluationCriteria``, and of each domain's ``DB`` after its allow-list
(the DB forbids extra top-level keys; entity models ignore extra keys such as our hidden markers).
Pydantic's lax mode matches the official pydantic models: a bool is not a string, a string is not a list.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Ignore(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UserScenario(_Ignore):
    user_profile: dict[str, dict | str | list]
    personalized_preference_memory: dict | None = None


class ExpectedState(_Ignore):
    required_orders: list[Any] | None = None
    optional_orders: list[dict] | None = None
    state_rubrics: list[str] | None = None


class EvaluationCriteria(_Ignore):
    expected_states: list[ExpectedState] | None = None
    overall_rubrics: list[str] | None = None


class SubTask(_Ignore):
    subtask_id: str
    domain: str
    instruction: str
    environment: dict
    user_scenario: UserScenario | None = None
    evaluation_criteria: EvaluationCriteria | None = None
    interactions: list[Any] = Field(default_factory=list)
    skill_tested: list[str] = Field(default_factory=list)
    user_intention: str | None = ""
    message_history: list[dict] | None = None


class PersonalizationTask(_Ignore):
    id: str
    user_id: str
    user_profile: dict[str, Any]
    subtasks: list[SubTask]


# -- environments (each domain's database in a subtask) -------------------------------------------------


class Location(_Ignore):
    address: str
    longitude: float
    latitude: float


class Weather(_Ignore):
    city: str
    category: str
    datetime: str
    temperature: tuple[float, float]
    humidity: float


class OrderProduct(_Ignore):
    product_id: str
    price: float
    quantity: int


class Order(_Ignore):
    order_id: str
    order_type: str
    user_id: str
    store_id: str
    total_price: float
    create_time: str
    update_time: str
    status: str
    products: list[dict]


class StoreProduct(_Ignore):
    product_id: str
    price: float
    name: str
    store_id: str
    store_name: str
    attributes: list[Any] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    quantity: int | None = None


class Store(_Ignore):
    store_id: str
    name: str
    score: float
    location: Location
    tags: list[str]
    products: list[StoreProduct]


class ShopProduct(_Ignore):
    product_id: str
    price: float
    name: str
    shop_id: str
    tags: list[str] = Field(default_factory=list)
    quantity: int | None = None


class Shop(_Ignore):
    shop_id: str
    shop_name: str
    score: float
    location: Location
    tags: list[str]
    enable_book: bool
    book_price: float
    enable_reservation: bool
    products: list[ShopProduct]


class HotelProduct(_Ignore):
    product_id: str
    price: float
    quantity: int
    date: str
    room_type: str


class Hotel(_Ignore):
    hotel_id: str
    hotel_name: str
    score: float
    star_rating: float
    location: Location
    tags: list[str]
    products: list[HotelProduct]


class DatedProduct(_Ignore):
    product_id: str
    price: float
    quantity: int
    date: str


class Attraction(_Ignore):
    attraction_id: str
    attraction_name: str
    location: Location
    description: str
    score: float
    opening_hours: str
    ticket_price: float
    products: list[DatedProduct]


class Flight(_Ignore):
    flight_id: str
    flight_number: str
    departure_city: str
    arrival_city: str
    departure_airport_location: Location
    arrival_airport_location: Location
    departure_time: str
    arrival_time: str
    tags: list[str]
    products: list[DatedProduct]


class Train(_Ignore):
    train_id: str
    train_number: str
    departure_city: str
    arrival_city: str
    departure_station_location: Location
    arrival_station_location: Location
    departure_time: str
    arrival_time: str
    tags: list[str]
    products: list[DatedProduct]


class _DB(_Forbid):
    time: str
    user_id: str
    weather: list[Weather] = Field(default_factory=list)
    location: list[Location] = Field(default_factory=list)
    user_historical_behaviors: dict = Field(default_factory=dict)
    orders: dict[str, Order] = Field(default_factory=dict)


class DeliveryDB(_DB):
    stores: dict[str, Store] = Field(default_factory=dict)


class InstoreDB(_DB):
    shops: dict[str, Shop] = Field(default_factory=dict)
    reservations: dict[str, dict] = Field(default_factory=dict)
    books: dict[str, dict] = Field(default_factory=dict)


class OtaDB(_DB):
    hotels: dict[str, Hotel] = Field(default_factory=dict)
    attractions: dict[str, Attraction] = Field(default_factory=dict)
    flights: dict[str, Flight] = Field(default_factory=dict)
    trains: dict[str, Train] = Field(default_factory=dict)
    taxis: dict[str, dict] = Field(default_factory=dict)


DOMAIN_DB: dict[str, type[_DB]] = {"delivery": DeliveryDB, "instore": InstoreDB, "ota": OtaDB}


def load_like_official(users: list[dict[str, Any]]) -> list[PersonalizationTask]:
    """Validate users as the official loader and domain constructors would; raises on the first problem."""
    tasks = [PersonalizationTask.model_validate(user) for user in users]
    for task in tasks:
        for sub in task.subtasks:
            db = DOMAIN_DB[sub.domain]
            kept = {k: v for k, v in sub.environment.items() if k in db.model_fields}
            db.model_validate(kept)
    return tasks
