"""Our own wording of the LLM judges' prompts, in English and Chinese, following VitaBench 2.0's judges' rules
(the trajectory in windows, the full trajectory, the outcome).

Two additions VitaBench 2.0's judge lacks: the judge sees the final records as facts, and the outcome judge may
set aside a rubric no outcome can show (it is judged on the trajectory instead of failing by default).
"""

from __future__ import annotations

ROLE_LABELS = {
    "en": {"assistant": "assistant", "user": "user", "tool": "tool", "calls": "calls", "error": "error"},
    "zh": {"assistant": "助手", "user": "用户", "tool": "工具", "calls": "调用", "error": "出错"},
}

_COMMON_RULES = {
    "en": """How rubrics are earned:
- Only the assistant's own messages and tool calls earn credit. What the user says is context, never proof.
- Tool results are seen by the assistant, not by the user: a fact found by a tool counts toward a rubric about
  telling or recommending something only once the assistant has said it to the user. The assistant must not
  claim results that no tool returned.
- A rubric about an order, booking or reservation is met only if it was really created by a successful tool call
  (the final records below show what exists). A failed call, a promise, or telling the user to do it themselves
  does not count.
- Quantities, dates and times must match exactly; the user accepting a compromise does not make a mismatch right.
- Addresses, notes and names count when they mean the same thing, even if worded differently.""",
    "zh": """评分依据：
- 只有助手本人的回复和工具调用才能得分。用户说的话只是背景，不能作为达成的证据。
- 工具结果只有助手能看到，用户看不到：关于告知或推荐某事的评分项，只有当助手把工具查到的信息告诉用户后才算达成。
  助手不得声称任何工具都没有返回过的结果。
- 关于下单、预订或预约的评分项，只有通过成功的工具调用真正创建了才算达成（下方的最终记录显示实际存在的内容）。
  调用失败、口头承诺或让用户自己操作都不算。
- 数量、日期和时间必须严格一致；用户接受妥协并不能让不一致变得正确。
- 地址、备注和名称只要意思相同即可，措辞可以不同。""",
}

_OUTPUT = {
    "en": """Reply with only a JSON array with one object per rubric, in rubric order, and nothing else:
[{"rubric_idx": 1, "rubric": "<the rubric text>", "justification": "<why, citing messages like [7]>", "met": true}]""",
    "zh": """只输出一个 JSON 数组，按评分项顺序每项一个对象，不要输出其他内容：
[{"rubric_idx": 1, "rubric": "<评分项原文>", "justification": "<理由，引用消息编号如 [7]>", "met": true}]""",
}

WINDOW_SYSTEM = {
    "en": """You are a strict, impartial evaluator of a conversation between an AI service assistant and a user (food
delivery, in-store services, travel). You check the assistant against a list of rubrics. The conversation is
shown one window at a time; each rubric carries the state it had after the previous windows.

How to update the state in this window:
- Set a rubric to met (true) when the assistant achieved it in this window.
- Set a met rubric back to false only when the assistant itself undid or contradicted that result in this
  window. A change the user asked for (for example cancelling after ordering) does not take earlier credit away.
- Leave every rubric this window does not touch exactly as it is, justification included.
- When you change a rubric, append a short reason to its justification, citing message numbers like [12].
- The final records are the state after the whole conversation: credit an action in the window where the
  assistant performed it, not before.

{rules}

{output}""",
    "zh": """你是一名严格、公正的评审，评估 AI 生活服务助手（外卖、到店服务、出行）与用户之间的对话。
你需要依据评分项清单检查助手的表现。
对话按窗口逐段展示；每个评分项都带有前面窗口评估后的状态。

在本窗口中如何更新状态：
- 助手在本窗口中达成了某评分项，就把它设为达成（true）。
- 只有当助手本人在本窗口中撤销或推翻了已达成的结果时，才把它改回 false。
  用户主动提出的变更（例如下单后取消）不会收回之前的得分。
- 本窗口未涉及的评分项保持原样，理由也保持不变。
- 修改某评分项时，在其理由后追加简短说明，并引用消息编号，如 [12]。
- 最终记录是整段对话结束后的状态：在助手实际执行操作的那个窗口给分，不要提前。

{rules}

{output}""",
}

FULL_SYSTEM = {
    "en": """You are a strict, impartial evaluator of a conversation between an AI service assistant and a user (food
delivery, in-store services, travel). You check the assistant against a list of rubrics over the whole
conversation. Every rubric starts unmet; set it to met (true) only if the assistant achieved it somewhere in
the conversation and did not itself undo it later. Justify each verdict briefly, citing message numbers like [12].

{rules}

{output}""",
    "zh": """你是一名严格、公正的评审，评估 AI 生活服务助手（外卖、到店服务、出行）与用户之间的完整对话，
并依据评分项清单检查助手的表现。所有评分项初始为未达成；只有当助手在对话中达成了该项、
且之后没有自行撤销时，才设为达成（true）。请为每个结论给出简短理由，并引用消息编号，如 [12]。

{rules}

{output}""",
}

OUTCOME_SYSTEM = {
    "en": """You check the outcome of a service conversation: the last order, booking or reservation the assistant made,
as it stands in the database at the end. For each rubric, decide strictly and literally whether this outcome
satisfies it, using only the facts shown (the item chosen, its options, quantities, times, address, status).
Some rubrics are about the conversation rather than its outcome (what the assistant asked or said); such a rubric
is not applicable here: set "applicable" to false (and "met" to true), since the conversation is judged separately.

Reply with only a JSON array with one object per rubric, in rubric order, and nothing else:
[{"rubric_idx": 1, "rubric": "<the rubric text>", "applicable": true, "justification": "<why>", "met": false}]""",
    "zh": """你负责检查一次服务对话的结果：助手最后创建的订单、预订或预约在对话结束时数据库中的状态。
请对每个评分项，严格按字面判断该结果是否满足，只依据所给事实（所选商品或服务、选项、数量、时间、
地址、状态）。有些评分项针对的是对话过程而不是结果（助手问了什么、说了什么），这类评分项在此不适用：
将 "applicable" 设为 false（"met" 设为 true），对话过程会另行评估。

只输出一个 JSON 数组，按评分项顺序每项一个对象，不要输出其他内容：
[{"rubric_idx": 1, "rubric": "<评分项原文>", "applicable": true, "justification": "<理由>", "met": false}]""",
}

#: Under ``OutcomeRules.official_inputs``: every rubric is checked against the chosen entity, with the target shown.
OUTCOME_OFFICIAL_SYSTEM = {
    "en": """You check the outcome of a service conversation: the entity (store, shop, hotel, flight, train or
attraction) and the products the assistant's last order, booking or reservation chose. You are given the
rubrics, the target entity (the choice that was expected, with its target products) and the chosen entity with
what was ordered.
Check every rubric strictly and literally against the chosen entity and the ordered products.

Reply with only a JSON array with one object per rubric, in rubric order, and nothing else:
[{"rubric_idx": 1, "rubric": "<the rubric text>", "justification": "<why>", "met": false}]""",
    "zh": """你负责检查一次服务对话的结果：助手最后一次下单、预订或预约所选择的对象
（商家、门店、酒店、航班、火车或景点）及商品。下面给出评分项、目标对象（预期的选择及其目标商品）以及实际选择的对象和所订商品。
请严格按字面，逐条对照实际选择的对象和所订商品判断每个评分项。

只输出一个 JSON 数组，按评分项顺序每项一个对象，不要输出其他内容：
[{"rubric_idx": 1, "rubric": "<评分项原文>", "justification": "<理由>", "met": false}]""",
}

REPAIR = {
    "en": ("Your previous reply could not be read as JSON ({problem}). Reply again with only the JSON array "
           "described above: no other text, no code fences."),
    "zh": ("你上一条回复无法解析为 JSON（{problem}）。请重新回复，只输出上面要求的 JSON 数组："
           "不要任何其他文字，也不要代码块标记。"),
}

HEADINGS = {
    "en": {
        "time": "## Current time", "request": "## The user's request", "records": "## Final records",
        "records_note": ("Orders, bookings and reservations created or changed during the conversation, as "
                         "they stand in the database at its end (facts, not claims):"),
        "no_records": "(none: nothing was created or changed)",
        "rubrics": "## Rubrics", "state": "## Rubrics and their state so far",
        "window": "## Conversation, window {i} of {n} (messages [{a}] to [{b}] of {total})",
        "conversation": "## Conversation ({total} messages)", "action": "## The outcome to check",
        "no_time": "(unknown)", "target": "## Target entity (the expected choice)",
        "chosen": "## Chosen entity (the assistant's last write call)",
    },
    "zh": {
        "time": "## 当前时间", "request": "## 用户的请求", "records": "## 最终记录",
        "records_note": "对话过程中创建或变更的订单、预订和预约，在对话结束时数据库中的状态（事实，而非声称）：",
        "no_records": "（无：没有创建或变更任何记录）",
        "rubrics": "## 评分项", "state": "## 评分项及其目前状态",
        "window": "## 对话，第 {i}/{n} 个窗口（共 {total} 条消息中的 [{a}] 至 [{b}]）",
        "conversation": "## 对话（共 {total} 条消息）", "action": "## 需要检查的结果",
        "no_time": "（未知）", "target": "## 目标对象（预期的选择）",
        "chosen": "## 实际选择的对象（助手最后一次写操作）",
    },
}


def lang(language: str) -> str:
    """``en`` or ``zh`` (anything else falls back to English)."""
    return language if language in ("en", "zh") else "en"


#: Sentences about the final records, left out when the judge is not shown them (``--vita-deviation
# judge-records=off``).
_RECORD_SENTENCES = {
    "en": [" (the final records below show what exists)",
           "\n- The final records are the state after the whole conversation: credit an action in the window "
           "where the\n  assistant performed it, not before."],
    "zh": ["（下方的最终记录显示实际存在的内容）",
           "\n- 最终记录是整段对话结束后的状态：在助手实际执行操作的那个窗口给分，不要提前。"],
}


def rubric_system(template: dict[str, str], language: str, records: bool) -> str:
    """The system prompt of the rubric judge (:data:`WINDOW_SYSTEM` or :data:`FULL_SYSTEM`)."""
    language = lang(language)
    text = template[language].format(rules=_COMMON_RULES[language], output=_OUTPUT[language])
    if not records:
        for sentence in _RECORD_SENTENCES[language]:
            text = text.replace(sentence, "")
    return text
