r"""The temporal convolutional network's probe: each block's output per step, and which inputs an output reads.

A traced ``seqlab.layers.tcn.TemporalConvNet`` runs block by block (the same
blocks, so the same numbers); the probe keeps each block's output
$\mathbf{z}^{(l)}_t$ and what the receptive field needs: the kernel size $k$
and the dilations $d_l$. ``ReceptiveFieldTrace.taps(t)`` follows output $t$
down through every convolution, as in the WaveNet diagram: level 0 is the
input, then each block's two convolutions; a step at one level reads the
steps $s, s - d, \dots, s - (k-1)d$ of the level below (the residual
connection reads $s$, which the convolution reads too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from keras import ops

from seqlab.inspect.trace import CELL_AXES, LayerResult, _Tracer, register_probe
from seqlab.layers.docs import equations as doc_equations
from seqlab.layers.tcn import TemporalConvNet

CONVOLUTIONS_PER_BLOCK = 2  # a TemporalBlock's two causal convolutions (Bai et al. 2018)


@dataclass(frozen=True, kw_only=True)
class ReceptiveFieldTrace(LayerResult):
    """One TCN over one sequence (a ``LayerResult`` of kind ``"TemporalConvNet"``).

    Attributes:
        arrays: ``block_1 .. block_L``, each block's output ``(T, filters)``, axes ``("time", "unit")``.
        kernel_size: $k$ of every convolution.
        dilations: $d_1, \\dots, d_L$, one per block.
        equations: the network's docstring equations, then its block's.
    """

    kernel_size: int
    dilations: tuple[int, ...]

    @property
    def levels(self) -> list[str]:
        """Names of the levels, bottom up: ``input``, then ``block l, conv 1`` and ``block l, conv 2`` per block."""
        return ["input"] + [f"block {l}, conv {c} (d = {d})" for l, d in enumerate(self.dilations, start=1)
                            for c in range(1, CONVOLUTIONS_PER_BLOCK + 1)]

    @property
    def receptive_field(self) -> int:
        r"""$R = 1 + 2(k-1)\sum_l d_l$."""
        return 1 + CONVOLUTIONS_PER_BLOCK * (self.kernel_size - 1) * sum(self.dilations)

    def taps(self, t: int) -> list[list[tuple[int, int]]]:
        """For output step ``t`` (0-based): per level, bottom up, the edges ``(s, source)`` by which step ``s`` of
        that level reads step ``source`` of the level below; the top level's only step is ``t``. Level 0 (the
        input) has none. Steps before the sequence (the zeros of the causal padding) are left out."""
        steps = len(self.time_labels)
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < steps:
            raise ValueError(f"t must be a step of the traced sequence, 0 to {steps - 1}; got {t!r}.")
        dilations = [d for d in self.dilations for _ in range(CONVOLUTIONS_PER_BLOCK)]
        edges: list[list[tuple[int, int]]] = [[] for _ in range(len(dilations) + 1)]
        reached = {int(t)}
        for level in range(len(dilations), 0, -1):  # top down
            d = dilations[level - 1]
            edges[level] = sorted({(s, s - d * i) for s in reached for i in range(self.kernel_size) if s - d * i >= 0})
            reached = {source for _, source in edges[level]}
        return edges

    def read_steps(self, t: int) -> list[int]:
        """The input steps (0-based, ascending) that output ``t`` reads: the sources of level 1's edges."""
        return sorted({source for _, source in self.taps(t)[1]})


@register_probe(TemporalConvNet)
def tcn_probe(tracer: _Tracer, layer: TemporalConvNet) -> Callable:
    """Run the network's blocks in order, keeping each block's output; then its last real step if it keeps one."""
    equations = doc_equations(layer) + doc_equations(layer.blocks[0])  # the stack, then one block of it

    def call(inputs, mask=None, training=None, **kwargs):
        z, outputs = inputs, []
        for block in layer.blocks:
            z = block(z, mask=mask, training=False)
            outputs.append(z)

        def result(sample: int) -> ReceptiveFieldTrace:
            arrays = {f"block_{l}": np.asarray(ops.convert_to_numpy(o))[sample] for l, o in enumerate(outputs, 1)}
            return ReceptiveFieldTrace(
                name=layer.name, kind="TemporalConvNet", arrays=arrays, axes={n: CELL_AXES for n in arrays},
                equations=equations, time_labels=list(tracer.time_labels), kernel_size=layer.kernel_size,
                dilations=tuple(layer.dilations),
            )

        tracer.record(result)
        return z if layer.return_sequences else layer.last_step(z, mask=mask)

    return call
