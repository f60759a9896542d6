"""Memory backends: the protocol (:mod:`.base`), the built-ins (``none``, ``groundtruth``, ``full_context``,
``agentic``, ``rag``), name resolution incl. ``module:Class`` and the ``vitabench.memory`` entry points
(:mod:`.registry`), and checkpoints for rebuilding a late subtask's memory (:mod:`.snapshots`)."""
