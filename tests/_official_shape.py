"""Paths to the hand-written official-shape fixtures (see ``tests/data/official_shape/make_fixtures.py``)."""

from __future__ import annotations

from pathlib import Path

OFFICIAL_SHAPE = Path(__file__).parent / "data" / "official_shape"
D1_CASE = OFFICIAL_SHAPE / "d1_case_study.json"
VB1_INSTORE = OFFICIAL_SHAPE / "vb1_instore_tasks.json"
VB1_OTA = OFFICIAL_SHAPE / "vb1_ota_tasks.json"
VB1_OTA_TRIPS = OFFICIAL_SHAPE / "vb1_ota_trips.json"
ALL_FIXTURES = (D1_CASE, VB1_INSTORE, VB1_OTA, VB1_OTA_TRIPS)
