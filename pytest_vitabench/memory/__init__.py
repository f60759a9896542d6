"""Memory backends: the protocol (:mod:`.base`), what a backend declares (:mod:`.spec`), the built-ins, one
module each (``none``, ``groundtruth``, ``full_context``, ``agentic``, ``rag``), name resolution incl.
``module:Class`` and the ``vitabench.memory`` entry points (:mod:`.registry`), and checkpoints for rebuilding a
late subtask's memory (:mod:`.snapshots`)."""
