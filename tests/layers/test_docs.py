import inspect
import re
import textwrap

import keras
import numpy as np
import pytest

import seqlab.layers
from seqlab.layers.docs import equations

PUBLIC_LAYERS = [
    obj
    for obj in (getattr(seqlab.layers, name) for name in seqlab.layers.__all__)
    if inspect.isclass(obj) and issubclass(obj, keras.layers.Layer)
]


def test_there_are_layers_to_check():
    assert len(PUBLIC_LAYERS) >= 9


@pytest.mark.parametrize("layer_cls", PUBLIC_LAYERS, ids=lambda cls: cls.__name__)
def test_every_public_layer_has_its_equations(layer_cls):
    blocks = equations(layer_cls)
    assert blocks, f"{layer_cls.__name__} has no $$ ... $$ block in an Equations: section"
    assert all(block and "$" not in block for block in blocks)
    doc = inspect.cleandoc(layer_cls.__doc__)
    summary, blank, section = doc.splitlines()[:3]
    assert summary and not blank and section == "Equations:"
    for heading in ("Args:", "Call arguments:", "Returns:", "Example:"):
        assert f"\n{heading}\n" in doc, f"{layer_cls.__name__} lacks {heading}"


def test_equations_come_from_the_equations_section_only():
    class Documented:
        r"""One line.

        Equations:
            $$ z_t = \mathrm{sig}(B z_{t-1}
               + V x_t) $$

            Some words, then $$ y_t = W z_t $$

        Args:
            x: not an equation $$ a = b $$
        """

    assert equations(Documented) == [r"z_t = \mathrm{sig}(B z_{t-1} + V x_t)", "y_t = W z_t"]
    assert equations(Documented()) == equations(Documented)


def test_no_section_no_equations():
    class Undocumented:
        """Just words $$ a = b $$."""

    class Child(seqlab.layers.LSTM):
        """A subclass does not inherit its parent's equations."""

    assert equations(Undocumented) == [] and equations(Child) == []


@pytest.mark.parametrize("layer_cls", PUBLIC_LAYERS, ids=lambda cls: cls.__name__)
def test_docstring_examples_run(layer_cls):
    blocks = re.findall(r"```python\n(.*?)```", layer_cls.__doc__, re.DOTALL)
    assert blocks
    names = {name: getattr(seqlab.layers, name) for name in seqlab.layers.__all__}
    for block in blocks:
        exec(textwrap.dedent(block), {"np": np, "keras": keras, **names})
