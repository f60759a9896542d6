"""Write the official-shape test fixtures of this folder (run it after changing them; the output is committed).

    python tests/data/official_shape/make_fixtures.py

Every record here was written by hand for this project, in the official schemas (``tests/_official_model.py``; VitaBench
2.0 ``tasks.json`` users; VitaBench 1.0 tasks with ``required_orders``). No file of the official datasets is
copied. They exercise what our own generator never writes:

* ``d1_case_study.json``: the paper's appendix D.1 case (one durian tong sui, merchants rated at least 4.3,
  delivered home within 30 minutes) as a 2.0 user with ``*_type`` markers, Chinese profile keys and
  ground-truth preferences phrased in words our generator never uses;
* ``vb1_instore_tasks.json``: 1.0 in-store tasks whose ``domain`` labels are free text (``in-store
  consumption``, ``in-store``, ``到店``, an unknown label) and whose required orders are in-store product
  orders, table reservations (``reservation_id``, ``shop_id``, ``reservation_time``, ``customer_count``, no
  ``order_type``) and seat bookings;
* ``vb1_ota_tasks.json``: 1.0 travel tasks requiring hotel, flight, train, attraction and taxi orders;
* ``vb1_ota_trips.json``: 1.0 travel tasks, one per kind (hotel nights, flight seats, train seats, attraction
  tickets of two types) and a multi-record trip with a cancellation, each with distractors (another date,
  another seat class, another hotel) and required orders the travel tools can only make as several orders.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

HOME = {"address": "Flat 1203, Block 5, Jinxiu Garden, 88 Tianhe North Road, Tianhe District, Guangzhou",
        "longitude": 113.3300, "latitude": 23.1400}
WORK = {"address": "Floor 21, Pearl River Tower, 15 Zhujiang West Road, Tianhe District, Guangzhou",
        "longitude": 113.3200, "latitude": 23.1200}


def _store(store_id, name, score, tags, products, store_type="normal", reason=None, offset=0.004):
    store = {"store_id": store_id, "name": name, "score": score, "tags": tags, "store_type": store_type,
             "location": {"address": f"{name}, Tianhe District, Guangzhou", "longitude": 113.33 + offset,
                          "latitude": 23.14 + offset},
             "products": [{"product_id": pid, "name": pname, "store_id": store_id, "store_name": name,
                           "price": price, "quantity": 50, "tags": ptags, "attributes": [], "product_type": ptype,
                           **({"distraction_reason": preason} if preason else {})}
                          for pid, pname, price, ptags, ptype, preason in products]}
    if reason:
        store["distraction_reason"] = reason
    return store


def d1_case_study() -> list[dict]:
    stores = {
        "S00027": _store("S00027", "Lingnan Sweet Soup House", 5.0, ["Cantonese", "tong sui", "desserts"], [
            ("P002701", "Durian tong sui (room temperature)", 32, ["durian", "Cantonese", "room temperature"],
             "target", None),
            ("P002702", "Mango pomelo sago", 26, ["mango", "Cantonese", "chilled"], "distraction", "not durian"),
            ("P002703", "Red bean tong sui with pork floss bun", 24, ["red bean", "pork"], "distraction",
             "contains pork")], "target"),
        "S00031": _store("S00031", "Durian Dessert Corner", 4.0, ["durian", "desserts", "tong sui"], [
            ("P003101", "Durian tong sui (room temperature)", 29, ["durian", "Cantonese", "room temperature"],
             "distraction", "merchant rated 4.0, below the user's 4.3")], "distraction",
            "rated 4.0, below the user's 4.3 threshold", offset=0.002),
        "S00035": _store("S00035", "Sichuan Chili Desserts", 4.8, ["Sichuan", "spicy"], [
            ("P003501", "Spicy durian ice jelly", 22, ["durian", "spicy", "chilled"], "distraction",
             "spicy and chilled")], "distraction", "spicy"),
        "S00040": _store("S00040", "Harbour Dessert Bar", 4.6, ["desserts", "Hong Kong style"], [
            ("P004001", "Durian pancake", 28, ["durian", "fried"], "distraction", "not tong sui"),
            ("P004002", "Black sesame tong sui", 18, ["sesame", "Cantonese", "room temperature"], "distraction",
             "not durian")]),
    }
    rubrics = [
        "The dessert is a Cantonese-style tong sui",
        "The dessert contains durian",
        "The dessert is served at room temperature",
        "Exactly one portion is ordered",
        "The order arrives within 30 minutes",
        "The merchant is rated at least 4.3",
        "The order is delivered to the user's home address",
    ]
    subtask = {
        "task_turn_num": "A891207_13", "subtask_id": "sub_A891207_13", "domain": "delivery",
        "task": "外卖-甜品", "current_time": "2025-08-16", "start_date": "2025-07-01", "end_date": "2025-08-15",
        "instruction": "I feel like something sweet tonight. Get me a dessert delivered, please.",
        "interactions": [
            {"date": "2025-07-12", "behavior": [{"behavior_type": "order", "content": {
                "scenario": "delivery", "merchant_name": "Lingnan Sweet Soup House", "tags": ["Cantonese"],
                "items": [{"product_name": "Durian tong sui", "price": 32, "quantity": 1}]}}],
             "dialogue": [{"role": "user",
                           "content": "Lately I can't get enough of durian, tong sui style is the best."}]},
            {"date": "2025-08-02", "behavior": [{"behavior_type": "review", "content": {
                "rating": 2,
                "text": "The shop was rated only 4.0 and it showed. From now on only places rated 4.3 or higher."}}],
             "dialogue": []},
        ],
        "user_scenario": {
            "user_profile": {"user_id": "A891207", "职业": "会计", "常住住址": HOME["address"]},
            "personalized_preference_memory": {
                "current": {
                    "饮食偏好": ["Has grown really fond of durian, tong sui style above all",
                             "These days leans towards light Cantonese cooking rather than fiery food",
                             "Gave up pork completely this year"],
                    "其他偏好": ["Will only buy from merchants whose rating is 4.3 or higher",
                             "Expects deliveries to turn up in half an hour at most"],
                },
                "preference_tag_change_history": [
                    {"date": "2025-06-01", "type": "modify", "category": "饮食偏好",
                     "old": "Loves very spicy Sichuan food",
                     "new": "These days leans towards light Cantonese cooking rather than fiery food"}],
            },
        },
        "environment": {"time": "2025-08-16 19:30:00", "user_id": "A891207", "orders": {},
                        "weather": [{"city": "Guangzhou", "category": "cloudy", "datetime": "2025-08-16",
                                     "temperature": [27, 33], "humidity": 78}],
                        "location": [HOME, WORK], "stores": stores},
        "evaluation_criteria": {"expected_states": [{"state_rubrics": rubrics}], "overall_rubrics": rubrics},
        "target_product_ids": ["P002701"],
        "skill_tested": ["update"],
        "user_intention": "",
    }
    return [{"id": "A891207", "user_id": "A891207",
             "user_profile": {"user_id": "A891207", "职业": "会计", "性别": "女", "常住地": "广州",
                              "常住住址": HOME["address"], "工作地址": WORK["address"]},
             "subtasks": [subtask]}]


def _shop(shop_id, name, score, tags, products, *, shop_type="normal", reservation=True, book=False, book_price=0):
    return {"shop_id": shop_id, "shop_name": name, "score": score, "tags": tags, "shop_type": shop_type,
            "enable_reservation": reservation, "enable_book": book, "book_price": book_price,
            "location": {"address": f"{name}, Xuhui District, Shanghai", "longitude": 121.44, "latitude": 31.19},
            "products": [{"product_id": pid, "name": pname, "shop_id": shop_id, "price": price, "quantity": 20,
                          "tags": ptags, "product_type": ptype, "category": "set meal"}
                         for pid, pname, price, ptags, ptype in products]}


def _vb1_task(task_id, domain, instruction, environment, required, rubrics, profile):
    return {"id": task_id, "domain": domain, "message_history": [],
            "environment": environment, "user_scenario": {"user_profile": profile},
            "instructions": instruction,
            "evaluation_criteria": {"expected_states": [{"required_orders": required, "optional_orders": [],
                                                         "state_rubrics": rubrics}],
                                    "overall_rubrics": rubrics}}


INSTORE_PROFILE = {"user id": "U300001", "occupation": "Teacher", "gender": "female", "residence": "Shanghai",
                   "home address": "Room 402, 17 Wukang Road, Xuhui District, Shanghai",
                   "dietary restrictions": "No seafood", "personality": "Organised"}


def _instore_env(shops, time="2025-05-09 10:00:00"):
    return {"time": time, "user_id": "U300001", "orders": {}, "reservations": {}, "books": {},
            "weather": [], "location": [{"address": INSTORE_PROFILE["home address"], "longitude": 121.44,
                                         "latitude": 31.21}],
            "user_historical_behaviors": {"orders": ["hotpot twice a month"]}, "shops": shops}


def vb1_instore() -> list[dict]:
    hotpot = _shop("SH1001", "Old Lane Hotpot", 4.7, ["hotpot", "private rooms"], [
        ("SH1001_P1", "Hotpot set for four", 398, ["hotpot", "4 people"], "target"),
        ("SH1001_P2", "Seafood hotpot set for four", 458, ["seafood"], "distraction")],
        shop_type="target", reservation=True)
    spa = _shop("SH2001", "Quiet Willow Spa", 4.8, ["massage", "quiet"], [
        ("SH2001_P1", "60-minute foot massage voucher", 128, ["foot massage"], "target"),
        ("SH2001_P2", "90-minute aromatherapy voucher", 268, ["aromatherapy"], "normal")], shop_type="target")
    karaoke = _shop("SH3001", "Echo Karaoke", 4.5, ["karaoke", "private booth"], [
        ("SH3001_P1", "Small booth, 3 hours", 158, ["karaoke"], "normal")],
        reservation=False, book=True, book_price=30, shop_type="target")
    noodles = _shop("SH4001", "Lanzhou Noodle Bar", 4.2, ["noodles"], [
        ("SH4001_P1", "Beef noodles voucher", 25, ["beef"], "target")], shop_type="target")
    other = _shop("SH9001", "Crowded Hotpot City", 4.9, ["hotpot", "popular"], [
        ("SH9001_P1", "Hotpot set for four", 368, ["hotpot"], "distraction")], shop_type="distraction")
    tasks = [
        _vb1_task("IS0001", "in-store consumption",
                  "Your family of four wants hotpot this Saturday at 6 pm. Buy the four-person set at a hotpot place "
                  "without seafood and reserve a table there.",
                  _instore_env({"SH1001": hotpot, "SH9001": other}),
                  [{"order_id": "IS0001T01", "order_type": "instore", "user_id": "U300001", "store_id": "SH1001",
                    "note": "", "location": "", "dispatch_time": "", "shipping_time": None, "delivery_time": "",
                    "total_price": 398, "create_time": "2025-05-09 10:00:00", "update_time": "2025-05-09 10:00:00",
                    "status": "paid", "products": [{"product_id": "SH1001_P1", "price": 398, "quantity": 1}]},
                   {"reservation_id": "IS0001R01", "shop_id": "SH1001", "reservation_time": "2025-05-10 18:00:00",
                    "update_time": "2025-05-09 10:00:00", "customer_id": "U300001", "customer_count": 4,
                    "status": "unconsumed"}],
                  ["The set bought is the hotpot set for four without seafood",
                   "A table for 4 is reserved at the same shop for 2025-05-10 18:00"], INSTORE_PROFILE),
        _vb1_task("IS0002", "in-store",
                  "Buy two foot massage vouchers at a quiet spa for you and your mother.",
                  _instore_env({"SH2001": spa}),
                  [{"order_id": "IS0002T01", "order_type": "instore", "user_id": "U300001", "store_id": "SH2001",
                    "note": "", "location": "", "dispatch_time": "", "shipping_time": None, "delivery_time": "",
                    "total_price": 256, "create_time": "", "update_time": "", "status": "processed",
                    "products": [{"product_id": "SH2001_P1", "price": 128, "quantity": 2}]}],
                  ["Two 60-minute foot massage vouchers are bought at a quiet spa"], INSTORE_PROFILE),
        _vb1_task("IS0003", "到店",
                  "Book a karaoke booth for 5 people tonight at 8 pm.",
                  _instore_env({"SH3001": karaoke}),
                  [{"book_id": "IS0003B01", "shop_id": "SH3001", "book_time": "2025-05-09 20:00:00",
                    "update_time": "2025-05-09 10:00:00", "customer_id": "U300001", "customer_count": 5,
                    "book_price": 30, "status": "paid"}],
                  ["A booth for 5 is booked at Echo Karaoke for 2025-05-09 20:00 and paid"], INSTORE_PROFILE),
        _vb1_task("IS0004", "lifestyle services",
                  "Reserve a table for two at the noodle bar tomorrow at noon and buy a beef noodles voucher.",
                  _instore_env({"SH4001": noodles}),
                  [{"reservation_id": "IS0004R01", "shop_id": "SH4001", "reservation_time": "2025-05-10 12:00",
                    "update_time": "", "customer_id": "U300001", "customer_count": 2, "status": "unconsumed"},
                   {"order_id": "IS0004T01", "order_type": "instore", "user_id": "U300001", "store_id": "SH4001",
                    "note": "", "location": "", "dispatch_time": "", "shipping_time": None, "delivery_time": "",
                    "total_price": 25, "create_time": "", "update_time": "", "status": "paid",
                    "products": [{"product_id": "SH4001_P1", "price": 25, "quantity": 1}]}],
                  ["A table for 2 is reserved for 2025-05-10 12:00", "A beef noodles voucher is bought"],
                  INSTORE_PROFILE),
    ]
    return tasks


OTA_PROFILE = {"user id": "U400001", "occupation": "Engineer", "gender": "male", "residence": "Beijing",
               "home address": "Room 8, 3 Andingmen East Street, Dongcheng District, Beijing"}


def _loc(address, lon, lat):
    return {"address": address, "longitude": lon, "latitude": lat}


def vb1_ota() -> list[dict]:
    hangzhou = _loc("West Lake Hotel, 2 Beishan Road, Hangzhou", 120.15, 30.26)
    env = {
        "time": "2025-04-01 09:00:00", "user_id": "U400001", "orders": {}, "weather": [],
        "location": [_loc(OTA_PROFILE["home address"], 116.41, 39.95), hangzhou],
        "hotels": {"H1": {"hotel_id": "H1", "hotel_name": "West Lake Hotel", "score": 4.8, "star_rating": 5,
                          "location": hangzhou, "tags": ["quiet", "lake view"], "hotel_type": "target",
                          "products": [{"product_id": "H1_R1", "room_type": "King room, lake view", "price": 880,
                                        "quantity": 3, "date": "2025-04-05", "product_type": "target"},
                                       {"product_id": "H1_R2", "room_type": "Twin room", "price": 680,
                                        "quantity": 3, "date": "2025-04-05"}]}},
        "flights": {"F1": {"flight_id": "F1", "flight_number": "CA1702", "departure_city": "Beijing",
                           "arrival_city": "Hangzhou", "departure_time": "2025-04-05 08:00:00",
                           "arrival_time": "2025-04-05 10:10:00", "tags": ["on time"],
                           "departure_airport_location": _loc("Beijing Capital Airport", 116.60, 40.08),
                           "arrival_airport_location": _loc("Hangzhou Xiaoshan Airport", 120.43, 30.23),
                           "products": [{"product_id": "F1_Y", "seat_type": "economy", "price": 900,
                                         "quantity": 9, "date": "2025-04-05"}]}},
        "trains": {"T1": {"train_id": "T1", "train_number": "G31", "departure_city": "Hangzhou",
                          "arrival_city": "Beijing", "departure_time": "2025-04-07 14:00:00",
                          "arrival_time": "2025-04-07 18:40:00", "tags": [],
                          "departure_station_location": _loc("Hangzhou East Station", 120.21, 30.29),
                          "arrival_station_location": _loc("Beijing South Station", 116.38, 39.87),
                          "products": [{"product_id": "T1_2", "seat_type": "second class", "price": 626,
                                        "quantity": 20, "date": "2025-04-07"}]}},
        "attractions": {"A1": {"attraction_id": "A1", "attraction_name": "Lingyin Temple", "score": 4.9,
                               "location": _loc("1 Fayun Lane, Hangzhou", 120.10, 30.24),
                               "description": "Buddhist temple", "opening_hours": "07:00-18:00",
                               "ticket_price": 45, "products": [{"product_id": "A1_T", "ticket_type": "adult",
                                                                 "price": 45, "quantity": 50,
                                                                 "date": "2025-04-06"}]}},
        "taxis": {"X1": {"taxi_id": "X1", "taxi_type": "comfort", "platform": "DiDi",
                         "departure_location": "Hangzhou Xiaoshan Airport", "arrival_location": "West Lake Hotel",
                         "estimated_duration": 50, "estimated_price": 160, "tags": [],
                         "products": [{"product_id": "X1_C", "taxi_type": "comfort", "platform": "DiDi",
                                       "price": 160, "quantity": 5, "date": "2025-04-05"}]}},
    }

    def order(kind, oid, entity, pid, date, qty=1, price=0):
        return {"order_id": oid, "order_type": kind, "user_id": "U400001", "store_id": entity, "note": "",
                "location": "", "dispatch_time": "", "shipping_time": None, "delivery_time": "", "total_price": price,
                "create_time": "", "update_time": "", "status": "paid",
                "products": [{"product_id": pid, "price": price, "quantity": qty, "date": date}]}

    return [
        _vb1_task("OT0001", "OTA", "Plan a weekend in Hangzhou: fly there on April 5th, stay at a quiet lake-view "
                  "hotel that night, visit Lingyin Temple on the 6th with your wife, take a comfort taxi from the "
                  "airport to the hotel, and come back by high-speed train on the 7th (both of you).",
                  env,
                  [order("flight", "OT0001F", "F1", "F1_Y", "2025-04-05", 2, 1800),
                   order("hotel", "OT0001H", "H1", "H1_R1", "2025-04-05", 1, 880),
                   order("attraction", "OT0001A", "A1", "A1_T", "2025-04-06", 2, 90),
                   order("taxi", "OT0001X", "X1", "X1_C", "", 1, 160),
                   order("train", "OT0001T", "T1", "T1_2", "2025-04-07", 2, 1252)],
                  ["Two economy seats on CA1702 on 2025-04-05",
                   "A lake-view king room at West Lake Hotel on 2025-04-05",
                   "Two Lingyin Temple tickets for 2025-04-06", "A comfort taxi from the airport to the hotel",
                   "Two second-class seats on G31 on 2025-04-07"], OTA_PROFILE),
    ]


TRIP_PROFILE = {"user id": "U500001", "occupation": "Architect", "gender": "female", "residence": "Chengdu",
                "home address": "Unit 6, 21 Kehua North Road, Wuhou District, Chengdu"}


def _trip_order(kind, oid, entity, lines, status="paid"):
    """A 1.0 travel order record; ``lines`` are (product id, date, quantity, price)."""
    return {"order_id": oid, "order_type": kind, "user_id": "U500001", "store_id": entity, "note": "",
            "location": None, "dispatch_time": "", "shipping_time": None, "delivery_time": "",
            "total_price": sum(q * price for _, _, q, price in lines), "create_time": "", "update_time": "",
            "status": status, "products": [{"product_id": pid, "price": price, "quantity": q, "date": date}
                                           for pid, date, q, price in lines]}


def _trip_env(**containers):
    chengdu = _loc(TRIP_PROFILE["home address"], 104.07, 30.63)
    return {"time": "2025-04-01 09:00:00", "user_id": "U500001", "orders": containers.pop("orders", {}),
            "weather": [], "location": [chengdu], **containers}


def _hotel(hotel_id, name, score, stars, tags, address, rooms, hotel_type="normal"):
    return {"hotel_id": hotel_id, "hotel_name": name, "score": score, "star_rating": stars, "tags": tags,
            "location": _loc(address, 120.15, 30.26), "hotel_type": hotel_type,
            "products": [{"product_id": pid, "room_type": room, "price": price, "quantity": 4, "date": date}
                         for pid, room, price, date in rooms]}


def _ride(kind, ride_id, number, origin, destination, depart, arrive, seats, stations):
    where = "airport" if kind == "flight" else "station"
    return {f"{kind}_id": ride_id, f"{kind}_number": number, "departure_city": origin, "arrival_city": destination,
            "departure_time": depart, "arrival_time": arrive, "tags": [],
            f"departure_{where}_location": _loc(stations[0], 104.44, 30.31),
            f"arrival_{where}_location": _loc(stations[1], 120.43, 30.23),
            "products": [{"product_id": pid, "seat_type": seat, "price": price, "quantity": 12, "date": date}
                         for pid, seat, price, date in seats]}


def _attraction(attraction_id, name, tickets):
    return {"attraction_id": attraction_id, "attraction_name": name, "score": 4.8,
            "location": _loc(f"{name}, Hangzhou", 120.10, 30.24), "description": "scenic area",
            "opening_hours": "08:00-17:30", "ticket_price": tickets[0][2],
            "products": [{"product_id": pid, "ticket_type": ticket, "price": price, "quantity": 40, "date": date}
                         for pid, ticket, price, date in tickets]}


def vb1_ota_trips() -> list[dict]:
    lakeside = _hotel("HT01", "Lakeside Garden Hotel", 4.7, 4, ["gym", "quiet"], "9 Nanshan Road, Hangzhou", [
        ("HT01_K0410", "King room", 620, "2025-04-10"), ("HT01_K0411", "King room", 620, "2025-04-11"),
        ("HT01_T0410", "Twin room", 580, "2025-04-10")], hotel_type="target")
    noisy = _hotel("HT02", "Station Express Inn", 4.1, 2, ["budget"], "3 Huancheng East Road, Hangzhou", [
        ("HT02_K0410", "King room", 260, "2025-04-10"), ("HT02_K0411", "King room", 260, "2025-04-11")])
    morning = _ride("flight", "FL01", "3U8961", "Chengdu", "Hangzhou", "2025-04-10 07:40:00",
                    "2025-04-10 10:20:00", [("FL01_Y", "economy", 980, "2025-04-10"),
                                            ("FL01_J", "business", 2960, "2025-04-10")],
                    ("Chengdu Tianfu Airport", "Hangzhou Xiaoshan Airport"))
    later = _ride("flight", "FL02", "CA4523", "Chengdu", "Hangzhou", "2025-04-11 07:40:00",
                  "2025-04-11 10:20:00", [("FL02_Y", "economy", 760, "2025-04-11")],
                  ("Chengdu Tianfu Airport", "Hangzhou Xiaoshan Airport"))
    home_train = _ride("train", "TR01", "G1975", "Hangzhou", "Chengdu", "2025-04-12 08:05:00",
                       "2025-04-12 19:30:00", [("TR01_2", "second class", 890, "2025-04-12"),
                                               ("TR01_1", "first class", 1420, "2025-04-12")],
                       ("Hangzhou East Station", "Chengdu East Station"))
    other_train = _ride("train", "TR02", "G1977", "Hangzhou", "Chengdu", "2025-04-13 08:05:00",
                        "2025-04-13 19:30:00", [("TR02_2", "second class", 890, "2025-04-13")],
                        ("Hangzhou East Station", "Chengdu East Station"))
    park = _attraction("AT01", "Xixi Wetland Park", [("AT01_AD", "adult", 80, "2025-04-11"),
                                                     ("AT01_CH", "child", 40, "2025-04-11"),
                                                     ("AT01_AD12", "adult", 80, "2025-04-12")])
    taxi = {"taxi_id": "TX01", "taxi_type": "comfort", "platform": "DiDi", "departure_location":
            "Hangzhou Xiaoshan Airport", "arrival_location": "Lakeside Garden Hotel", "estimated_duration": 55,
            "estimated_price": 170, "tags": [], "products": [{"product_id": "TX01_C", "taxi_type": "comfort",
                                                              "platform": "DiDi", "price": 170, "quantity": 5}]}
    booked_train = _trip_order("train", "OT2005T0", "TR02", [("TR02_2", "2025-04-13", 2, 890)])
    return [
        _vb1_task("OT2001", "OTA", "Book a king room at a quiet hotel with a gym in Hangzhou for the nights of "
                  "April 10th and 11th.", _trip_env(hotels={"HT01": lakeside, "HT02": noisy}),
                  [_trip_order("hotel", "OT2001H", "HT01", [("HT01_K0410", "2025-04-10", 1, 620),
                                                            ("HT01_K0411", "2025-04-11", 1, 620)])],
                  ["A king room at Lakeside Garden Hotel for the night of 2025-04-10",
                   "A king room at Lakeside Garden Hotel for the night of 2025-04-11"], TRIP_PROFILE),
        _vb1_task("OT2002", "OTA", "Three of us fly from Chengdu to Hangzhou on the morning of April 10th; economy "
                  "is fine.", _trip_env(flights={"FL01": morning, "FL02": later}),
                  [_trip_order("flight", "OT2002F", "FL01", [("FL01_Y", "2025-04-10", 3, 980)])],
                  ["Three economy seats on 3U8961 on 2025-04-10"], TRIP_PROFILE),
        _vb1_task("OT2003", "OTA", "Get two second-class seats on the high-speed train from Hangzhou back to "
                  "Chengdu on April 12th.", _trip_env(trains={"TR01": home_train, "TR02": other_train}),
                  [_trip_order("train", "OT2003T", "TR01", [("TR01_2", "2025-04-12", 2, 890)])],
                  ["Two second-class seats on G1975 on 2025-04-12"], TRIP_PROFILE),
        _vb1_task("OT2004", "OTA", "Buy tickets to Xixi Wetland Park on April 11th for me, my husband and our "
                  "daughter.", _trip_env(attractions={"AT01": park}),
                  [_trip_order("attraction", "OT2004A", "AT01", [("AT01_AD", "2025-04-11", 2, 80),
                                                                 ("AT01_CH", "2025-04-11", 1, 40)])],
                  ["Two adult tickets for Xixi Wetland Park on 2025-04-11",
                   "One child ticket for Xixi Wetland Park on 2025-04-11"], TRIP_PROFILE),
        _vb1_task("OT2005", "OTA", "Plan our family trip to Hangzhou: fly there on the morning of April 10th (two "
                  "of us), take a comfort car from the airport, two king rooms at the quiet hotel for the 10th, the "
                  "wetland park on the 11th, and cancel the train home I booked for the 13th: we go back on the 12th "
                  "by second class instead.",
                  _trip_env(flights={"FL01": morning, "FL02": later}, hotels={"HT01": lakeside, "HT02": noisy},
                            trains={"TR01": home_train, "TR02": other_train}, attractions={"AT01": park},
                            taxis={"TX01": taxi}, orders={"OT2005T0": booked_train}),
                  [_trip_order("flight", "OT2005F", "FL01", [("FL01_Y", "2025-04-10", 2, 980)]),
                   _trip_order("taxi", "OT2005X", "TX01", [("TX01_C", "", 1, 170)]),
                   _trip_order("hotel", "OT2005H", "HT01", [("HT01_K0410", "2025-04-10", 2, 620)]),
                   _trip_order("attraction", "OT2005A", "AT01", [("AT01_AD", "2025-04-11", 2, 80)]),
                   {**booked_train, "status": "cancelled"},
                   _trip_order("train", "OT2005T", "TR01", [("TR01_2", "2025-04-12", 2, 890)])],
                  ["Two economy seats on 3U8961 on 2025-04-10", "A comfort taxi from the airport to the hotel",
                   "Two king rooms at Lakeside Garden Hotel for 2025-04-10",
                   "Two adult Xixi Wetland Park tickets for 2025-04-11", "The G1977 train order is cancelled",
                   "Two second-class seats on G1975 on 2025-04-12"], TRIP_PROFILE),
    ]


def main() -> None:
    for name, data in (("d1_case_study.json", d1_case_study()), ("vb1_instore_tasks.json", vb1_instore()),
                       ("vb1_ota_tasks.json", vb1_ota()), ("vb1_ota_trips.json", vb1_ota_trips())):
        (HERE / name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
