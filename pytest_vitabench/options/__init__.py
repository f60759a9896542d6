"""The run's settings: every ``--vita-*`` option declared once, its parsers, and the validated
:class:`~pytest_vitabench.options.config.RunConfig`. Standard library only: the plugin loads it in
every pytest session."""
