"""Looking at a saved run: the one place runs are read (:mod:`.source`), the catalogue of names behind ids
(:mod:`.catalogue`) and the self-contained HTML viewer (:mod:`.html`)."""
