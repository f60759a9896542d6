"""A judge of known behaviour behind the stub server: it knows the rules judge's truth and plants errors.

Given the judge cases of a saved run, it recognises each request by the transcript it ends with (the whole
conversation for the full-trajectory judge, one window of it for the official window judge), answers every
rubric with its true verdict (in every window, so the state the window judge carries ends on the truth), then
plants errors at the rates it is given, counting each: a share of verdicts flipped at random, a share of the
truly unmet ones called met (a judge biased to "met"), and a share of items answered with prose instead of
JSON in every request, the repair requests included (so the item cannot be scored). Flips come from one seeded
generator in the order requests arrive; whether an item is unreadable is drawn per item, so every window of it
agrees. A test can then compare the audit's figures with what was planted.
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
from pytest_vitabench.judges.render import render_messages, windows

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
        self.flip, self.bias_met, self.malformed, self.seed = flip, bias_met, malformed, seed
        self.asked: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()
        #: tail of a transcript -> (transcript, item group, truth, whether it is the item's last span)
        self.by_tail: dict[str, list[tuple[str, int, list[bool], bool]]] = defaultdict(list)
        # Items with the same whole transcript are one item to a judge (it cannot tell them apart): one group.
        groups: dict[str, int] = {}
        self.group_size: dict[int, int] = defaultdict(int)
        for case in cases:
            truth = {entry["text"]: entry["met"] for entry in rules_truth(case)}
            verdicts = [truth.get(t, True) for t in rubric_texts(case)]
            whole = render_messages(case.messages, 0, len(case.messages), language)
            number = groups.setdefault(whole, len(groups))
            self.group_size[number] += 1
            if self.group_size[number] > 1:
                continue
            spans = windows(len(case.messages))
            for start, end in sorted({(0, len(case.messages)), *spans}):
                transcript = render_messages(case.messages, start, end, language)
                if transcript.strip():
                    last = end == len(case.messages)
                    self.by_tail[transcript[-_TAIL:]].append((transcript, number, verdicts, last))
        #: What was planted: verdicts given, flipped, biased; requests not recognised; requests for an item's last
        #: window recognised as more than one item whose truths differ (the verdict that decides is then a guess).
        self.verdicts = self.flipped = self.biased = self.unknown = self.ambiguous = 0
        self.unreadable_groups: set[int] = set()
        self.false_pass = self.false_fail = self.truly_met = self.truly_unmet = 0

    @property
    def unreadable(self) -> int:
        """Items answered with prose only."""
        return sum(self.group_size[number] for number in self.unreadable_groups)

    def truth_for(self, content: str) -> tuple[int, list[bool]] | None:
        found = [(len(transcript), last, number, truth)
                 for transcript, number, truth, last in self.by_tail.get(content[-_TAIL:], [])
                 if content.endswith(transcript)]
        if not found:
            return None
        # The longest transcript the request ends with is the one it shows (a shorter one is only its tail).
        longest = max(row[0] for row in found)
        found = [row for row in found if row[0] == longest]
        if any(row[1] for row in found) and len({tuple(row[3]) for row in found}) > 1:
            self.ambiguous += 1
        return found[0][2], found[0][3]

    def _unreadable(self, number: int) -> bool:
        return random.Random(f"{self.seed}:{number}").random() < self.malformed

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        if len(messages) > 2:  # the repair request: only ever after an unreadable reply, which stays so
            return {"content": "As I said, the agent seems to have done what was asked."}
        with self.lock:
            found = self.truth_for(messages[-1]["content"])
            if found is None:
                self.unknown += 1
                return {"content": "[]"}
            group, truth = found
            if self._unreadable(group):
                self.unreadable_groups.add(group)
                return {"content": "The agent seems to have done what was asked."}
            # Each draw is a function of the request and of how often it was asked before, not of the order
            # different requests arrive in (concurrent under xdist): a seed plants the same verdicts in every run.
            content = messages[-1]["content"]
            self.asked[content] += 1
            draw = random.Random(f"{self.seed}:{self.asked[content]}:{content}")
            items = []
            for number, met in enumerate(truth, 1):
                judged = met
                if draw.random() < self.flip:
                    judged = not judged
                    self.flipped += 1
                if not met and judged is False and draw.random() < self.bias_met:
                    judged = True
                    self.biased += 1
                self.verdicts += 1
                self.truly_met += met
                self.truly_unmet += not met
                self.false_pass += (not met) and judged
                self.false_fail += met and not judged
                items.append({"rubric_idx": number, "met": judged, "justification": "stub verdict"})
        return {"content": json.dumps(items)}
