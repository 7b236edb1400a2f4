"""A model one step at a time: the protocol that generation, forecasting, TBPTT, translation and serving ask for.

Each architecture that can be stepped declares how (``Architecture.steps``,
``(model) -> Steps``); ``seqlab.models.registry.steps_of(model)`` asks the
architecture the model was built or loaded as (``built_as``). The callers never look inside the
model: which layers carry a state, where a cache lives or which decoder a
translation model has is known only to the family's own ``Steps``::

    state = steps.start(inputs)               # the state before the first step
    output, state = steps.next(x, state, t)   # read x at step t (0, 1, ...)
    outputs, state = steps.read(xs, state)    # several steps at once (a prompt, a TBPTT span)

What ``inputs``, ``x`` and ``output`` are is the task's; an output is the
model's own output at that step. A language model starts from a number of
rows, reads token ids ``(B,)`` and gives the next token's probabilities
``(B, V)``; a translation decoder starts from the source and reads the
previous target ids; a forecaster reads the window's rows before its last,
then one row (with the known future inputs) per step, giving its outputs
``(B, H)``. The state has rows on axis 0 (beam
search reorders them); ``carried()`` names what a serving signature passes
from step to step, with its shape per row.

The same step in ``keras.ops``, for a loop compiled into one graph (the CLI's
and the SavedModel's decoding, ``seqlab.decoding.while_loop``)::

    state = steps.initial(rows)                 # a dict of tensors, named as carried()
    output, state = steps.step(x, state, t)     # traceable; the state keeps its shapes
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import keras


class Steps:
    """The protocol (module docstring); a family's steps subclass it and define ``start`` and ``next``."""

    # The most prompt tokens the model reads at once (a GPT's window); ``None``: any number.
    context: int | None = None
    # Whether a forecast may run it on its own predictions from the window's end (the ESN's free run).
    free_runs: bool = False
    # Whether ``initial`` and ``step`` are written, so a compiled loop can run it (``seqlab.decoding.while_loop``).
    in_graph: bool = False
    # Whether its compiled loop runs under XLA (a step of many small ops, as a GPT's: one fused call a token).
    xla: bool = False

    def start(self, inputs) -> Any:
        """The state before the first step."""
        raise NotImplementedError

    def next(self, x, state, t) -> tuple[Any, Any]:
        """``(output, state)`` after reading ``x`` at step ``t``."""
        raise NotImplementedError

    def read(self, xs, state) -> tuple[Any, Any]:
        """``(outputs, state)`` after ``xs`` (one entry per step on axis 1): the outputs of the steps read, on
        axis 1, the last one after ``xs`` (a family that reads only its last ids gives only theirs). One
        ``next`` a step unless the family reads them faster in one pass."""
        outputs = []
        for t in range(xs.shape[1]):
            output, state = self.next(xs[:, t], state, t)
            outputs.append(np.asarray(output))
        return np.stack(outputs, axis=1), state

    def initial(self, rows) -> dict:
        """The state before the first ``step``: ``{name: tensor (rows, *shape)}`` as ``carried()`` names them."""
        raise NotImplementedError(f"{type(self).__name__} is not compiled one step at a time.")

    def step(self, x, state: dict, t) -> tuple[Any, dict]:
        """``next`` in ``keras.ops`` on a dict of tensors: traceable inside a compiled loop."""
        raise NotImplementedError(f"{type(self).__name__} is not compiled one step at a time.")

    def carried(self) -> dict[str, tuple[int, ...]]:
        """``{name: shape per row}`` of the tensors that pass from one step to the next: the signature of a
        serving endpoint that steps the model (a translation decoder's ``decode_step``)."""
        raise NotImplementedError(f"{type(self).__name__} is not served one step at a time.")


class OneStepSteps(Steps):
    """The steps of a chain of layers whose carried state is a tuple of tensors (``start``; ``initial`` names them
    ``state_0, state_1, ...``), run by one Keras model ``[x, *state] -> [output, *state]`` that a family builds
    (``build_one_step``), compiled on the first step."""

    in_graph = True
    _one_step = None

    def build_one_step(self) -> keras.Model:
        raise NotImplementedError

    @property
    def one_step(self) -> keras.Model:
        if self._one_step is None:
            self._one_step = self.build_one_step()
        return self._one_step

    def next(self, x, state, t):
        output, *state = self.one_step.predict_on_batch([np.asarray(x), *state])
        return output, tuple(state)

    def carried(self) -> dict:
        """``state_0 ..``: the parts of ``start`` in order (a recurrent cell's ``h`` and ``c``), shape per row."""
        return {f"state_{i}": tuple(s.shape[1:]) for i, s in enumerate(self.start(1))}

    def step(self, x, state, t):
        output, *new = self.one_step([x, *(state[f"state_{i}"] for i in range(len(state)))])
        return output, {f"state_{i}": s for i, s in enumerate(new)}
