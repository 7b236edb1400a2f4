r"""Gradient through time: how strongly the loss still depends on the state h_t, for every t.

For one sample and its target, with the run's loss L, this computes

$$ g_t = \left\lVert \frac{\partial L}{\partial h_t} \right\rVert_2, \quad t = 1, \dots, T $$

the total derivative through everything that h_t influences: the later steps
(h_{t+1}, ..., h_T and, in an LSTM, the cell states) and, for a layer that
returns sequences, the layers above. BPTT multiplies these by the Jacobians
$\partial h_{t+1} / \partial h_t$, so a g_t that falls by orders of magnitude
towards t = 1 is the notes' vanishing gradient, one that grows is the
exploding gradient.

How: the model runs along the traced path of ``seqlab.inspect.trace`` (each
recurrent layer through its cell's own ``step``), with a zero tensor
$\varepsilon_t$ added to every h_t where it leaves the step; the backend's
automatic differentiation gives $\partial L / \partial \varepsilon_t =
\partial L / \partial h_t$. Nothing is differentiated by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import keras
import numpy as np
from keras import ops

from seqlab.inspect.trace import (
    Directional, as_batch, default_time_labels, layer_key, resolve_model, run_traced, sequence_of,
)


@dataclass(frozen=True)
class LayerGradient(Directional):
    """``||dL/dh_t||`` of one recurrent layer (one direction), indexed by the input's time t.

    Attributes:
        name, direction, kind: as in ``LayerTrace``.
        norms: ``(T,)``, the Euclidean norm of dL/dh_t over the layer's units.
        gradients: ``(T, units)``, dL/dh_t itself.
    """

    name: str
    direction: str
    kind: str
    norms: np.ndarray
    gradients: np.ndarray


@dataclass(frozen=True)
class GradientTrace:
    """The gradient through time of every recurrent layer for one sample.

    Attributes:
        layers: one ``LayerGradient`` per recurrent layer and direction.
        loss: the value of L for this sample.
        loss_name: the loss used (``"mse"``, ``"sparse_categorical_crossentropy"``, ...).
        time_labels: one label per input step.
    """

    layers: list[LayerGradient]
    loss: float
    loss_name: str
    time_labels: list = field(default_factory=list)

    def layer(self, key: str) -> LayerGradient:
        for layer in self.layers:
            if layer.key == key:
                return layer
        raise KeyError(f"No layer {key!r}; layers: {', '.join(g.key for g in self.layers) or 'none'}.")


def _loss_function(model, loss):
    """A loss callable and its name: ``loss`` if given, else the model's compiled loss, else MSE."""
    if loss is None:
        loss = getattr(model, "loss", None) or "mse"
    name = loss if isinstance(loss, str) else getattr(loss, "name", None) or getattr(loss, "__name__", "loss")
    return keras.losses.get(loss) if isinstance(loss, str) else loss, name


def autodiff(function, zeros: list):
    """``(value, [dF/dz for z in zeros])`` of a scalar ``function(zeros)``, with the backend's autodiff."""
    name = keras.backend.backend()
    if name == "tensorflow":
        import tensorflow as tf  # autodiff is backend machinery: the one place a tape is needed

        variables = [tf.convert_to_tensor(z) for z in zeros]
        with tf.GradientTape() as tape:
            tape.watch(variables)
            value = function(variables)
        return value, tape.gradient(value, variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    if name == "jax":
        import jax

        value, grads = jax.value_and_grad(lambda zs: function(list(zs)))(tuple(zeros))
        return value, list(grads)
    if name == "torch":
        import torch

        variables = [torch.as_tensor(np.asarray(z)).requires_grad_(True) for z in zeros]
        value = function(variables)
        grads = torch.autograd.grad(value, variables, allow_unused=True)
        return value, [torch.zeros_like(v) if g is None else g for v, g in zip(variables, grads)]
    raise NotImplementedError(f"Gradient through time is not implemented for the {name!r} backend.")


def gradient_through_time(
    model_or_layer, inputs, target, loss=None, time_labels: Sequence | None = None
) -> GradientTrace:
    r"""``||dL/dh_t||`` for every time step t of every recurrent layer, for one sample.

    Args:
        model_or_layer: a model, a saved run or a recurrent layer, as for ``trace``.
        inputs: one sequence, ``(T, F)`` or ``(1, T, F)``, in the model's input units
            (token ids ``(T,)`` for a model that reads them; a list, the
            sequence first, for a model with several inputs; as for ``trace``).
        target: the sample's target, as the model is trained on it (with or
            without the batch axis), e.g. the next H values of a forecast, a
            class id, or the next token id at every position of a language window.
        loss: a Keras loss name or callable; default the model's compiled
            loss, else ``"mse"``. Reduced to a mean over the sample's outputs.
        time_labels: one label per step; default ``1 .. T``.

    Returns:
        A ``GradientTrace`` with one ``LayerGradient`` per recurrent layer and direction.

    Example:

    ```python
    g = gradient_through_time(run.load_model(), test.x[0], test.y[0], loss="mse")
    g.layers[0].norms  # (T,): ||dL/dh_t||, small far back when gradients vanish
    ```
    """
    model_or_layer = resolve_model(model_or_layer)
    x = as_batch(inputs, model_or_layer)
    steps = sequence_of(x).shape[1]
    labels = list(time_labels) if time_labels is not None else default_time_labels(steps)
    loss_fn, loss_name = _loss_function(model_or_layer, loss)

    # A first pass finds the recurrent layers and their state sizes.
    _, probe = run_traced(model_or_layer, x, labels)
    keys = [_key(raw) for raw in probe.cells]
    shapes = {_key(raw): ops.shape(raw["record"]["h"][0]) for raw in probe.cells}  # (1, units)
    if not keys:
        return GradientTrace([], float("nan"), loss_name, labels)
    dtype = probe.cells[0]["record"]["h"][0].dtype
    zeros = [np.zeros((steps, *shapes[k]), dtype=keras.backend.standardize_dtype(dtype)) for k in keys]
    slot = {k: i for i, k in enumerate(keys)}
    y_true = ops.convert_to_tensor(np.asarray(target))

    def loss_of(epsilons):
        def perturb(key, t, h):
            return h + epsilons[slot[key]][t]  # + 0, watched: d L / d eps_t = d L / d h_t

        outputs, _ = run_traced(model_or_layer, x, labels, perturb=perturb)
        y_pred = outputs[0] if isinstance(outputs, (list, tuple)) else outputs
        y = ops.reshape(ops.cast(y_true, y_pred.dtype) if _is_float(y_true) else y_true, _target_shape(y_true, y_pred))
        return ops.mean(loss_fn(y, y_pred))

    value, grads = autodiff(loss_of, zeros)
    layers = []
    for raw, key, grad in zip(probe.cells, keys, grads):
        g = np.asarray(ops.convert_to_numpy(grad))[:, 0, :]  # (T, 1, units) -> (T, units)
        layers.append(
            LayerGradient(
                name=raw["name"], direction=raw["direction"], kind=type(raw["layer"].cell).__name__,
                norms=np.linalg.norm(g, axis=-1), gradients=g,
            )
        )
    return GradientTrace(layers, float(ops.convert_to_numpy(value)), loss_name, labels)


def _key(raw: dict) -> str:
    return layer_key(raw["name"], raw["direction"])


def _is_float(tensor) -> bool:
    return "float" in keras.backend.standardize_dtype(tensor.dtype)


def _target_shape(y_true, y_pred) -> tuple:
    """The target with a batch axis of one: ``(H,)`` -> ``(1, H)``, a class id -> ``(1,)``."""
    shape = tuple(ops.shape(y_true))
    return shape if len(shape) == len(ops.shape(y_pred)) else (1, *shape)
