"""Every private Keras name seqlab uses, pinned to the Keras version that requirements.txt names.

seqlab keeps to Keras's public API except where none serves; each such use says why in a comment at
the line. Keras may move or change its private names in any release, so ``PRIVATE_USES`` lists them all,
a Keras other than the pinned one fails here (check each use again, then move the pin), and a private
use that is not listed fails here too.
"""

import ast
import importlib
import inspect
import re
from pathlib import Path

import keras
import pytest

ROOT = Path(__file__).resolve().parents[1]

# seqlab file -> the private Keras names it uses: "module:attribute" -> parameters seqlab calls it with
# (for a class: the methods Keras's own code calls on it).
PRIVATE_USES = {
    "seqlab/layers/recurrent/sequence.py": {
        "keras.src.backend:cudnn_ok": ("activation", "recurrent_activation", "unroll", "use_bias", "reset_after"),
    },
    "seqlab/layers/recurrent/lstm.py": {
        "keras.src.backend:lstm": (
            "inputs", "initial_state_h", "initial_state_c", "mask", "kernel", "recurrent_kernel", "bias",
            "activation", "recurrent_activation", "return_sequences", "go_backwards", "unroll",
        ),
        "keras.src.layers.rnn.dropout_rnn_cell:DropoutRNNCell": (
            "get_dropout_mask", "get_recurrent_dropout_mask", "reset_dropout_mask", "reset_recurrent_dropout_mask",
        ),
    },
    "seqlab/layers/recurrent/gru.py": {
        "keras.src.backend:gru": (
            "inputs", "initial_state", "mask", "kernel", "recurrent_kernel", "bias", "activation",
            "recurrent_activation", "return_sequences", "go_backwards", "unroll", "reset_after",
        ),
        "keras.src.layers.rnn.dropout_rnn_cell:DropoutRNNCell": (
            "get_dropout_mask", "get_recurrent_dropout_mask", "reset_dropout_mask", "reset_recurrent_dropout_mask",
        ),
    },
    "seqlab/layers/recurrent/simple_rnn.py": {
        "keras.src.layers.rnn.dropout_rnn_cell:DropoutRNNCell": (
            "get_dropout_mask", "get_recurrent_dropout_mask", "reset_dropout_mask", "reset_recurrent_dropout_mask",
        ),
    },
    "seqlab/inspect/trace.py": {
        "keras.src.backend:get_keras_mask": ("x",),
        "keras.src.backend:set_keras_mask": ("x", "mask"),
    },
    "seqlab/inspect/attention.py": {
        "keras.src.backend:get_keras_mask": ("x",),
    },
}

# Private members of Keras's own classes, reached without any keras.src import: none may be used.
PRIVATE_MEMBERS = re.compile(r"\._compute_loss\b|\._loss_tracker\b")


def pinned_keras() -> str:
    pins = re.findall(r"^keras==(\S+)", (ROOT / "requirements.txt").read_text(), flags=re.MULTILINE)
    assert len(pins) == 1, "requirements.txt pins keras exactly once"
    return pins[0]


def private_uses(source: str) -> set[str]:
    """The ``module:attribute`` names a source file takes from ``keras.src``: each name imported from it
    and, for an imported module (``from keras.src import backend``), each attribute read from that module."""
    tree = ast.parse(source)
    uses, modules = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert not alias.name.startswith("keras.src"), f"import {alias.name}: import names from it instead"
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("keras.src"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                try:
                    is_module = inspect.ismodule(importlib.import_module(full))
                except ImportError:
                    is_module = False
                if is_module:
                    modules[alias.asname or alias.name] = full
                else:
                    uses.add(f"{node.module}:{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            uses.add(f"{modules[node.value.id]}:{node.attr}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) >= 2:
            target, name = node.args[0], node.args[1]
            if isinstance(target, ast.Name) and target.id in modules and isinstance(name, ast.Constant):
                uses.add(f"{modules[target.id]}:{name.value}")
    return uses


def test_keras_is_the_version_the_private_uses_were_checked_against():
    assert keras.__version__ == pinned_keras(), (
        f"Keras {keras.__version__} is installed, requirements.txt pins {pinned_keras()}: check every use in "
        "PRIVATE_USES against the new Keras, then move the pin"
    )


@pytest.mark.parametrize(
    "name, parameters",
    sorted({(name, params) for uses in PRIVATE_USES.values() for name, params in uses.items()}),
)
def test_each_private_name_still_exists_with_the_parameters_seqlab_uses(name, parameters):
    module, attribute = name.split(":")
    obj = getattr(importlib.import_module(module), attribute, None)
    assert obj is not None, f"{name} is gone"
    if inspect.isclass(obj):
        missing = [method for method in parameters if not callable(getattr(obj, method, None))]
    else:
        assert callable(obj), f"{name} is not callable"
        missing = [p for p in parameters if p not in inspect.signature(obj).parameters]
    assert not missing, f"{name} lacks {missing}"


def test_keras_rnn_still_draws_the_dropout_masks_of_the_private_mixin_only():
    # Why the cells keep the mixin: keras.layers.RNN prepares and clears the masks of its instances alone.
    from keras.src.layers.rnn import rnn
    from keras.src.layers.rnn.dropout_rnn_cell import DropoutRNNCell

    assert rnn.DropoutRNNCell is DropoutRNNCell
    assert "isinstance(cell, DropoutRNNCell)" in inspect.getsource(rnn.RNN)


def test_the_private_mask_functions_read_and_write_the_mask_keras_layers_see():
    from keras.src import backend

    x = keras.ops.ones((2, 3, 1))
    mask = keras.ops.convert_to_tensor([[True, True, False], [True, False, False]])
    backend.set_keras_mask(x, mask)
    assert backend.get_keras_mask(x) is mask

    class MaskOf(keras.layers.Layer):
        def call(self, inputs, mask=None):
            return mask

        def compute_mask(self, inputs, previous_mask=None):
            return None

    assert MaskOf()(x) is mask  # what Layer.__call__ hands to a layer's ``mask`` argument


def test_every_private_keras_use_in_seqlab_is_listed():
    found = {}
    for path in sorted((ROOT / "seqlab").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT).as_posix()
        assert not PRIVATE_MEMBERS.search(source), f"{where} uses a private member of a Keras class"
        uses = private_uses(source) if "keras.src" in source else set()  # no keras.src import: nothing to read
        if uses:
            found[where] = uses
    assert found == {where: set(uses) for where, uses in PRIVATE_USES.items()}


def test_the_listing_catches_each_kind_of_private_use():
    assert private_uses("from keras.src import backend\nbackend.lstm(x)\ngetattr(backend, 'gru', None)\n") == {
        "keras.src.backend:lstm", "keras.src.backend:gru",
    }
    assert private_uses("from keras.src.losses.loss import unscale_loss_for_distribution\n") == {
        "keras.src.losses.loss:unscale_loss_for_distribution",
    }
    assert private_uses("from keras.src.losses import loss as loss_module\nloss_module.scale(1)\n") == {
        "keras.src.losses.loss:scale",
    }
    assert PRIVATE_MEMBERS.search("self._compute_loss(x=x)") and PRIVATE_MEMBERS.search("m._loss_tracker.update")
