"""The ``vitabench`` command line: :mod:`.cli` builds the parser from :data:`.cli.COMMANDS`; each other module
is one command (``judge_audit.py`` is ``vitabench judge-audit``) and declares its ``COMMAND`` beside the code that
does its work, except :mod:`.command`, the declaration itself."""
