"""Which Keras backend trains: TensorFlow (the default) or JAX, chosen before Keras is first imported.

Keras reads ``KERAS_BACKEND`` once, when it is first imported, so
``python -m seqlab train --backend jax`` sets it before anything imports Keras
(``seqlab.__main__`` reads ``--backend`` before the CLI's modules load). Under JAX the
training path imports no TensorFlow; the run's SavedModel, a TensorFlow
format, is then written by a fresh TensorFlow-backend process from the saved
``model.keras`` (``seqlab.late_export``), or later, where TensorFlow is missing.
"""

from __future__ import annotations

import importlib.util
import os
import sys

BACKENDS = ("tensorflow", "jax")
BACKEND_ENV = "KERAS_BACKEND"


def choose_backend(name: str) -> None:
    """Train with Keras's ``name`` backend; ``ValueError`` if it is unknown, not installed, or Keras already runs
    on another one in this process."""
    if name not in BACKENDS:
        raise ValueError(f"Unknown backend {name!r}; choose one of {', '.join(BACKENDS)}.")
    if not installed(name):
        raise ValueError(f"The {name} backend needs the {name} package, which is not installed here: "
                         f"pip install {name}, or train with --backend tensorflow.")
    keras = sys.modules.get("keras")
    if keras is not None and keras.backend.backend() != name:
        raise ValueError(f"Keras already runs on {keras.backend.backend()} in this process, and picks its backend "
                         f"only when first imported: start a new process (python -m seqlab train --backend {name}) "
                         f"or set {BACKEND_ENV}={name} before Python starts.")
    os.environ[BACKEND_ENV] = name


def backend_from_argv(argv: list[str]) -> str | None:
    """The ``--backend NAME`` (or ``--backend=NAME``) of a command line, read before the CLI's modules are imported
    (some import Keras); ``None`` when it names none. argparse checks the value later."""
    for n, arg in enumerate(argv):
        if arg == "--backend" and n + 1 < len(argv):
            return argv[n + 1]
        if arg.startswith("--backend="):
            return arg.partition("=")[2]
    return None


def installed(package: str) -> bool:
    """Whether ``package`` can be imported here, without importing it (a module blocked in ``sys.modules`` is not)."""
    if package in sys.modules:
        return sys.modules[package] is not None
    return importlib.util.find_spec(package) is not None


def backend_versions() -> dict[str, str]:
    """The running backend and its package's version, for a run's ``meta.json``: ``{"backend": "jax", "jax": ...}``."""
    import keras

    name = keras.backend.backend()
    return {"backend": name, name: importlib.import_module(name).__version__}
