"""Register seqlab's Keras classes as soon as Keras is imported, and not before.

A saved ``.keras`` file names seqlab's classes (``seqlab>LSTM``, ``seqlab>TaskModel``);
``keras.saving.load_model`` resolves those names only once the modules that
define them have run. ``import seqlab`` alone must make loading work, in either
order (``import seqlab; import keras`` or ``import keras; import seqlab``), yet
importing Keras costs seconds of TensorFlow start-up that the listing commands
(``python -m seqlab datasets``) must not pay.

So: if Keras is already imported, register now. Otherwise a one-shot finder on
``sys.meta_path`` waits for ``import keras`` (also when TensorFlow imports it),
lets the normal path finder load it, and registers right after Keras's own
module has run. Nothing else is ever imported because of it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys


# The modules that define seqlab's Keras classes (their decorators register them).
MODULES = (
    "seqlab.layers",  # the recurrent layers and cells, attention, the decoder
    "seqlab.models.bert_layers",  # BERT's segments, sentence form, heads, pre-training model
    "seqlab.models.hmm_next_token",  # the HMM language model's head
    "seqlab.models.task_model",  # TaskModel, the class of every run's model
)
# The tokenisers inside text runs' SavedModels: string tensors exist only under the TensorFlow backend.
TENSORFLOW_MODULES = ("seqlab.text.layers",)


def register_classes() -> None:
    """Import the modules that define seqlab's Keras classes (the TensorFlow-only ones under that backend)."""
    import keras

    for name in MODULES + (TENSORFLOW_MODULES if keras.backend.backend() == "tensorflow" else ()):
        importlib.import_module(name)


class _AfterKeras(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "keras":
            return None
        # The spec the normal path finder gives; a probe (TensorFlow calls find_spec("keras"))
        # that never loads it registers nothing, and the finder stays for the real import.
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        run_keras = spec.loader.exec_module

        def run_then_register(module):
            run_keras(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            register_classes()

        spec.loader.exec_module = run_then_register  # this spec's own loader object, not a shared one
        return spec


def install() -> None:
    """Register now if Keras is loaded, else right after it is (called by ``import seqlab``)."""
    if "keras" in sys.modules:
        register_classes()
    elif not any(isinstance(finder, _AfterKeras) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterKeras())
