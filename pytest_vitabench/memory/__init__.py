"""Memory backends: the protocol (:mod:`.base`), what a backend declares (:mod:`.spec`), one module per
built-in, name resolution (:mod:`.registry`) and checkpoints of a chain's state (:mod:`.snapshots`)."""
