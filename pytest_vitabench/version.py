"""The plugin's version, in a module of its own so that any module can read it without importing the
package's ``__init__`` (which would make every such module part of an import circle through it)."""

__version__ = "0.1.0"
