r"""The state-space layers' probe: the state $x_t$ at every step, like a recurrent cell's $h_t$.

A traced ``DiagonalStateSpace``, ``SelectiveStateSpace`` or ``MambaBlock``
runs as it is (the same weights, so the same outputs) and its ``states(u)``
gives $x_t$ for every step: per channel $h$ a vector of $N$ modes, complex
for S4D-Lin (its real and imaginary parts), real otherwise; a Mamba block's
is its selective layer's, over the block's $E$ inner channels. Padded steps
keep the state (the layers' mask), so they are left out as a recurrent
cell's skipped steps are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from keras import ops

from seqlab.inspect.trace import LayerResult, _Tracer, register_probe
from seqlab.layers.docs import equations as doc_equations
from seqlab.layers.state_space import DiagonalStateSpace, MambaBlock, SelectiveStateSpace

STATE_AXES = ("time", "channel", "mode")


@dataclass(frozen=True, kw_only=True)
class StateSpaceTrace(LayerResult):
    """One state-space layer over one sequence (a ``LayerResult`` of kind ``DiagonalStateSpace``, ...).

    Attributes:
        arrays: the state's parts as the layer names them (``x_real`` and ``x_imag``, or ``x``), each
            ``(T, channels, N)``, axes ``("time", "channel", "mode")``.
        mask: ``(T,)`` booleans, ``False`` on padding; ``None`` without a mask.
        equations: the layer's docstring equations (a Mamba block's, then its selective layer's).
    """

    mask: np.ndarray | None = None

    @property
    def channels(self) -> int:
        return int(next(iter(self.arrays.values())).shape[1])

    @property
    def modes(self) -> int:
        return int(next(iter(self.arrays.values())).shape[2])

    @property
    def is_complex(self) -> bool:
        return "x_imag" in self.arrays

    @property
    def magnitude(self) -> np.ndarray:
        r"""$|x_t|$ per channel and mode, ``(T, channels, N)``; ``NaN`` at padded steps."""
        size = np.sqrt(sum(np.square(part) for part in self.arrays.values()))
        return size if self.mask is None else np.where(self.mask[:, None, None], size, np.nan)

    def channel(self, h: int, part: str = "magnitude") -> np.ndarray:
        """``(T, N)``: one channel's state, its ``magnitude`` or one part (``x``, ``x_real``, ``x_imag``); ``NaN``
        at padded steps."""
        if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or not 0 <= h < self.channels:
            raise ValueError(f"channel must be 0 to {self.channels - 1}; got {h!r}.")
        if part != "magnitude" and part not in self.arrays:
            raise ValueError(f"part must be 'magnitude' or one of {', '.join(self.arrays)}; got {part!r}.")
        values = self.magnitude if part == "magnitude" else self.arrays[part]
        values = values if self.mask is None else np.where(self.mask[:, None, None], values, np.nan)
        return values[:, h]

    def top_channels(self, k: int) -> np.ndarray:
        """The ``k`` channels with the largest mean $|x_t|$, most active first."""
        order = np.argsort(-np.nanmean(np.nan_to_num(self.magnitude), axis=(0, 2)), kind="stable")
        return order[: max(0, int(k))]


def _equations(layer) -> list[str]:
    own = doc_equations(layer)
    return own + doc_equations(layer.ssm) if isinstance(layer, MambaBlock) else own


@register_probe(DiagonalStateSpace)
@register_probe(SelectiveStateSpace)
@register_probe(MambaBlock)
def state_space_probe(tracer: _Tracer, layer) -> Callable:
    """Run the layer as it is, and keep its state $x_t$ at every step (``states``)."""
    equations = _equations(layer)

    def call(inputs, mask=None, training=None, **kwargs):
        inputs = ops.convert_to_tensor(inputs)
        parts = layer.states(inputs, mask=mask)

        def result(sample: int) -> StateSpaceTrace:
            arrays = {name: np.asarray(ops.convert_to_numpy(part))[sample]
                      for name, part in zip(layer.state_names[-len(parts):], parts)}
            real = None if mask is None else np.asarray(ops.convert_to_numpy(mask))[sample].astype(bool)
            return StateSpaceTrace(
                name=layer.name, kind=type(layer).__name__, arrays=arrays, axes={n: STATE_AXES for n in arrays},
                equations=equations, time_labels=list(tracer.time_labels), mask=real,
            )

        tracer.record(result)
        return layer(inputs, mask=mask, **kwargs)

    return call
