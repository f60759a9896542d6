"""A judge of known behaviour behind the stub server: it knows the rules judge's truth and plants errors.

Given the judge cases of a saved run, it recognises each request by the transcript it ends with (the
full-trajectory judge shows the whole conversation last), answers every rubric with its true verdict, then
plants errors at the rates it is given, counting each: a share of verdicts flipped at random, a share of the
truly unmet ones called met (a judge biased to "met"), and a share of items answered with prose instead of
JSON, again after the repair request (so the item cannot be scored). Draws come from one seeded generator, so a
test can compare the audit's figures with what was planted.
"""

from __future__ import annotations

import json
import random
import threading
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from pytest_vitabench.judges.audited import rules_truth
from pytest_vitabench.judges.base import JudgeCase
from pytest_vitabench.judges.llm_rubric import rubric_texts
from pytest_vitabench.judges.render import render_messages

_TAIL = 300


class PlantedJudge:
    """A ``StubLLM.responder`` answering as a judge with planted error rates.

    Args:
        cases: The judge cases of the items it will be asked about.
        flip: Probability of flipping each verdict.
        bias_met: Probability of calling a truly unmet rubric met.
        malformed: Probability of answering an item with unreadable prose (and again to the repair request).
        seed: Seed of the generator.
    """

    def __init__(self, cases: Iterable[JudgeCase], *, flip: float = 0.0, bias_met: float = 0.0,
                 malformed: float = 0.0, seed: int = 0, language: str = "en"):
        self.flip, self.bias_met, self.malformed = flip, bias_met, malformed
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.by_tail: dict[str, list[tuple[str, list[bool]]]] = defaultdict(list)
        for case in cases:
            transcript = render_messages(case.messages, 0, len(case.messages), language)
            truth = {entry["text"]: entry["met"] for entry in rules_truth(case)}
            self.by_tail[transcript[-_TAIL:]].append((transcript, [truth.get(t, True) for t in rubric_texts(case)]))
        #: What was planted: verdicts given, flipped, biased; items made unreadable; requests not recognised.
        self.verdicts = self.flipped = self.biased = self.unreadable = self.unknown = 0
        self.false_pass = self.false_fail = self.truly_met = self.truly_unmet = 0

    def truth_for(self, content: str) -> list[bool] | None:
        for transcript, truth in self.by_tail.get(content[-_TAIL:], []):
            if content.endswith(transcript):
                return truth
        return None

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        if len(messages) > 2:  # the repair request: only ever after an unreadable reply, which stays so
            return {"content": "As I said, the agent seems to have done what was asked."}
        truth = self.truth_for(messages[-1]["content"])
        with self.lock:
            if truth is None:
                self.unknown += 1
                return {"content": "[]"}
            if self.rng.random() < self.malformed:
                self.unreadable += 1
                return {"content": "The agent seems to have done what was asked."}
            items = []
            for number, met in enumerate(truth, 1):
                judged = met
                if self.rng.random() < self.flip:
                    judged = not judged
                    self.flipped += 1
                if not met and judged is False and self.rng.random() < self.bias_met:
                    judged = True
                    self.biased += 1
                self.verdicts += 1
                self.truly_met += met
                self.truly_unmet += not met
                self.false_pass += (not met) and judged
                self.false_fail += met and not judged
                items.append({"rubric_idx": number, "met": judged, "justification": "stub verdict"})
        return {"content": json.dumps(items)}
