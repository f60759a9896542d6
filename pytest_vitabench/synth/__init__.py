"""English VitaBench 2.0 suites: a deterministic generator, a validator and statistics.

The generator reproduces the paper's controlled synthesis (appendix A.1-A.3, section C.2) with templates
and seeded randomness instead of an LLM:

* :mod:`.config` - the size knobs and the ``paper`` / ``small`` presets;
* :mod:`.profiles` - users with the paper's population structure;
* :mod:`.catalog` and :mod:`.vocab` - what can be preferred and asked for, and the words for it;
* :mod:`.plan` - each user's subtasks and preference timeline (additions, modifications, deletions);
* :mod:`.history` - dialogues and behaviour logs with fragmented evidence and about 20% noise;
* :mod:`.environment` and :mod:`.rubrics` - candidate spaces with one target and rubric machine checks;
* :mod:`.generator` - assembly in the official ``tasks.json`` shape and byte-identical writing;
* :mod:`.validator` and :mod:`.stats` - the rules ``vitabench validate`` checks and the paper comparison;
* :mod:`.spec` and :mod:`.curated` - a hand-written suite declared as data and its expansion; :mod:`.demo` -
  the demo suite (``specs/demo.json``);
* :mod:`.commands` - the ``vitabench synth`` command.
"""
