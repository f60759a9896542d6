"""The pytest adapter: the ``pytest11`` entry point (:mod:`.plugin`), the session objects that
own a run's state in each process, the ``pytest_vitabench_*`` hook specs and the xdist helpers."""
