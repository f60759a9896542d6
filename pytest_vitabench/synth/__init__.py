"""English VitaBench 2.0 suites: a deterministic generator, a validator and statistics.

The generator reproduces the paper's controlled synthesis (appendix A.1-A.3, section C.2) with templates
and seeded randomness instead of an LLM; :mod:`.generator` assembles the pieces, :mod:`.curated` expands a
hand-written :mod:`.spec` (the demo suite), :mod:`.validator` checks what ``vitabench validate`` checks.
"""
