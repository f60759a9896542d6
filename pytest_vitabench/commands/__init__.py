"""The ``vitabench`` command line: :mod:`.cli` builds the parser, each other module declares its
commands beside the code that does their work."""
