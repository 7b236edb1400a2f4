"""The family's layers against tests/layers/test_docs.py's checks, until seqlab.layers lists them."""

import inspect
import re
import textwrap

import keras
import numpy as np
import pytest

import seqlab.layers.state_space
from tests.layers.test_docs import test_every_public_layer_has_its_equations as check_equations

LAYERS = [
    obj
    for obj in (getattr(seqlab.layers.state_space, name) for name in seqlab.layers.state_space.__all__)
    if inspect.isclass(obj) and issubclass(obj, keras.layers.Layer)
]


def test_the_family_has_its_layers():
    assert [cls.__name__ for cls in LAYERS] == ["DiagonalStateSpace", "MambaBlock", "SelectiveStateSpace"]


@pytest.mark.parametrize("layer_cls", LAYERS, ids=lambda cls: cls.__name__)
def test_every_layer_has_its_equations_and_sections(layer_cls):
    check_equations(layer_cls)


@pytest.mark.parametrize("layer_cls", LAYERS, ids=lambda cls: cls.__name__)
def test_docstring_examples_run(layer_cls):
    blocks = re.findall(r"```python\n(.*?)```", layer_cls.__doc__, re.DOTALL)
    assert blocks
    names = {name: getattr(seqlab.layers.state_space, name) for name in seqlab.layers.state_space.__all__}
    for block in blocks:
        exec(textwrap.dedent(block), {"np": np, "keras": keras, **names})
