"""Running many episodes at once in one process: the scheduler and its xdist helpers."""
