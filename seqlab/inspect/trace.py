r"""Trace a model's layers from the inside: probes per layer type, each returning named arrays with axes.

``trace(model, window)`` runs the model once through a copy of its graph that
shares its layers (``keras.models.clone_model(call_function=...)``, public
Keras API); every layer that has a **probe** runs through it. A probe is
registered per layer class (``register_probe``) and records named arrays with
declared axes: ``("time", "unit")`` for a recurrent cell's internals,
``("state", "time")`` for an HMM's posteriors (``seqlab.inspect.hmm``); next,
``("query", "key")`` for attention weights. Every probe's result is a
``LayerResult`` (name, kind, arrays, axes, equations); a recurrent layer's is
its subclass ``LayerTrace``. The recurrent probe runs every recurrent layer by calling
its cell's own ``step`` at each time step,
collecting the internals that ``step`` returns (LSTM: ``i, f, o, c_tilde, c,
h``; GRU: ``z, r, h_tilde, h``; Elman: ``pre_activation, h``; ESN:
``h_tilde, h``). The maths exists once, in the cell: the trace and the layer
run the same function, so the traced states are the states the layer computed
(a test checks the traced output against the layer's own to 1e-5).

The inputs are one sequence of floats ``(T, F)`` or, for a model that reads
token ids (an ``int`` input), one sequence of ids ``(T,)``; the traced copy of
the graph is built on inputs of exactly that shape, so a token model reads a
text of any length up to the one it was built for.

Layers without a probe (the input ``Normalization``, the head) run as
they are, so a second recurrent layer is traced on the first one's traced
output sequence. ``keras.layers.Bidirectional`` wrappers are traced in both
directions, each labelled. Masks carried by the inputs are honoured as
``keras.layers.RNN`` does: a masked step keeps the state.

Time order: every array is indexed by the input's time step ``t`` (row ``t``
belongs to ``x_t``), also for a backward direction, whose row ``t`` is the
state after reading ``x_T, ..., x_t``; its final state is therefore row 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

import keras
import numpy as np
from keras import ops
# Private Keras, kept on purpose (pinned by tests/test_private_keras.py): Keras 3 carries a mask as an
# attribute of the tensor, and reads and writes it only through these two. Its public route, the `mask`
# argument that Layer.__call__ fills, reaches a layer only when it is called with one tensor, and a probe
# also runs outside any Layer.__call__ (an unbuilt Sequential's chain), where nothing attaches its mask.
from keras.src import backend  # get_keras_mask / set_keras_mask

from seqlab.layers.docs import equations as doc_equations, own_convention

Perturb = Callable[[str, int, object], object]  # (key, t, h_t) -> h_t' (used by the gradient pass)


# ---------------------------------------------------------------- results


def layer_key(name: str, direction: str) -> str:
    """``lstm_1`` or ``bidirectional_1/backward``: unique within a trace."""
    return name if direction == "forward" else f"{name}/{direction}"


class Directional:
    """``key`` and ``label`` of a result for one direction of a layer (its ``name`` and ``direction``)."""

    name: str
    direction: str

    @property
    def key(self) -> str:
        """``lstm_1`` or ``bidirectional_1/backward``: unique within a trace."""
        return layer_key(self.name, self.direction)

    @property
    def label(self) -> str:
        """A readable title: ``lstm_1`` or ``bidirectional_1 (backward)``."""
        return self.name if self.direction == "forward" else f"{self.name} ({self.direction})"


@dataclass(frozen=True, kw_only=True)
class LayerResult(Directional):
    """What a probe recorded for one layer (one direction of it) over one sequence.

    Attributes:
        name: the layer's name in the model (a bidirectional wrapper's name for both directions).
        kind: what computed the arrays: the cell's class name (``LSTMCell``), ``HMM``, ...
        arrays: name -> NumPy array, each with its axes named in ``axes``.
        axes: array name -> the names of its axes, e.g. ``("time", "unit")`` or ``("state", "time")``.
        equations: the LaTeX blocks of the docstring of what computed them (``seqlab.layers.docs``).
        time_labels: one label per time step (token, timestamp or step number).
        direction: ``"forward"`` or ``"backward"``.
    """

    name: str
    kind: str
    arrays: dict[str, np.ndarray]
    axes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    equations: list[str] = field(default_factory=list)
    time_labels: list = field(default_factory=list)
    direction: str = "forward"


@dataclass(frozen=True, kw_only=True)
class LayerTrace(LayerResult):
    """One recurrent layer (one direction of it) over one sequence: a cell's ``LayerResult``.

    Attributes:
        name, kind, direction, time_labels, equations: as in ``LayerResult``; ``kind`` is the
            cell's class name (``LSTMCell``, ``GRUCell``, ``SimpleRNNCell``, ``ESNCell``).
        arrays: the cell's internals, name -> ``(T, units)``, in the cell's ``internal_names``
            order; ``h`` is always there (for an ESN it is the reservoir state).
        axes: ``("time", "unit")`` for every cell internal.
        inputs: ``(T, features)``, the sequence this layer read (the previous layers' output).
        mask: ``(T,)`` booleans, ``False`` where the step was skipped; ``None`` without a mask.
        output: what the layer returned for this direction (``(T, units)`` or ``(units,)``).
        variant: the LSTM variant, when there is one.
    """

    inputs: np.ndarray
    mask: np.ndarray | None = None
    output: np.ndarray | None = None
    variant: str | None = None

    @property
    def units(self) -> int:
        return int(self.arrays["h"].shape[-1])

    @property
    def final_state(self) -> np.ndarray:
        """``h`` after the last step read: row ``T - 1`` forwards, row 0 backwards (mask aware)."""
        h = self.arrays["h"]
        valid = np.arange(len(h)) if self.mask is None else np.flatnonzero(self.mask)
        if len(valid) == 0:
            return np.zeros(h.shape[-1], dtype=h.dtype)
        return h[valid[0] if self.direction == "backward" else valid[-1]]

    @property
    def gates(self) -> list[str]:
        """The internals other than the states ``h`` and ``c``, e.g. ``i, f, o, c_tilde``."""
        return [k for k in self.arrays if k not in ("h", "c")]

    def top_units(self, k: int, of: str = "h") -> np.ndarray:
        """Indices of the ``k`` units with the largest mean ``|of|`` over time, most active first."""
        values = np.nan_to_num(np.abs(self.arrays[of]))
        order = np.argsort(-values.mean(axis=0), kind="stable")
        return order[: max(0, int(k))]


@dataclass(frozen=True)
class Trace:
    """Every probed layer of a model over one input sequence.

    Attributes:
        layers: one ``LayerResult`` per probed layer and direction, in the order they ran:
            a ``LayerTrace`` per recurrent layer and direction, an ``HMMTrace`` per HMM.
        inputs: ``(T, F)`` (the sequence given to the model, in its own units) or ``(T,)`` token ids.
        outputs: the model's output for it, computed along the traced path.
        time_labels: one label per input step.
    """

    layers: list[LayerResult]
    inputs: np.ndarray
    outputs: object
    time_labels: list = field(default_factory=list)

    @property
    def cells(self) -> list[LayerTrace]:
        """The recurrent layers' traces (no other probe's results)."""
        return self.of(LayerTrace)

    def of(self, result_type: type) -> list:
        """The results of one type (``LayerTrace``, ``HMMTrace``), in order."""
        return [layer for layer in self.layers if isinstance(layer, result_type)]

    def layer(self, name: str, direction: str = "forward") -> LayerResult:
        """The trace of layer ``name`` (and ``direction``); ``name`` may also be a ``key``."""
        for layer in self.layers:
            if layer.name == name and layer.direction == direction:
                return layer
        for layer in self.layers:
            if layer.key == name:
                return layer
        known = ", ".join(layer.key for layer in self.layers) or "none"
        raise KeyError(f"No traced layer {name!r} ({direction}); traced layers: {known}.")

    def __iter__(self):
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)


# ---------------------------------------------------------------- probes, per layer class

# (tracer, layer) -> a function with the layer's call arguments that runs the
# layer while recording its internals on the tracer.
Probe = Callable[["_Tracer", object], Callable]
PROBES: dict[type, Probe] = {}
CELL_AXES = ("time", "unit")  # row t: the step that read x_t; column: one unit of the cell


def register_probe(layer_class: type) -> Callable[[Probe], Probe]:
    """Decorator: ``probe`` traces every layer of ``layer_class`` (and its subclasses)."""

    def register(probe: Probe) -> Probe:
        PROBES[layer_class] = probe
        return probe

    return register


def probe_for(layer) -> Probe | None:
    """The probe of the nearest class of ``layer`` that has one (``None``: the layer runs as it is)."""
    if isinstance(layer, keras.layers.Bidirectional) and not isinstance(layer.forward_layer, keras.layers.RNN):
        return None  # a wrapper around a layer that is not recurrent has no cell to step
    return next((PROBES[cls] for cls in type(layer).__mro__ if cls in PROBES), None)


def is_recurrent(layer) -> bool:
    """A ``keras.layers.RNN`` (any cell) or a ``Bidirectional`` wrapper around one."""
    if isinstance(layer, keras.layers.Bidirectional):
        return isinstance(layer.forward_layer, keras.layers.RNN)
    return isinstance(layer, keras.layers.RNN)


def recurrent_layers(model) -> list:
    """The recurrent layers of ``model`` (nested models included), in order."""
    found = []
    for layer in getattr(model, "layers", []):
        if is_recurrent(layer):
            found.append(layer)
        elif isinstance(layer, keras.Model):
            found.extend(recurrent_layers(layer))
    return found


def cell_equations(cell) -> list[str]:
    r"""The cell's equations; for an LSTM variant, the gate equations and that variant's line.

    The LSTM cell documents all the notes' variants (``\text{gates\_only:}``
    ...): a variant shows the common blocks and its own, the full LSTM the
    common blocks only. The GRU cell documents both ``reset_after``
    conventions: the cell's own is kept.
    """
    blocks = doc_equations(cell)
    reset_after = getattr(cell, "reset_after", None)
    if reset_after is not None:  # the GRU documents both conventions: keep the cell's own
        blocks = own_convention(blocks, own=r"\text{reset\_after=" + str(reset_after) + r":}\quad",
                                other=r"\text{reset\_after=" + str(not reset_after))
    variant = getattr(cell, "variant", None)
    if variant is None:
        return blocks
    tagged = [b for b in blocks if re.match(r"\\text\{[a-z\\_]+:\}", b)]  # "\text{feedback:} ..."
    own = [b for b in tagged if b.startswith(r"\text{" + variant.replace("_", r"\_") + ":}")]
    common = [b for b in blocks if b not in tagged]
    if variant == "full":
        return common
    # The gate/candidate blocks that the variant lacks would mislead: keep i, o, c~, h and its own c_t.
    keep = [b for b in common if not b.startswith("f_t") and not b.startswith("c_t")]
    last = [b for b in keep if b.startswith("h_t")]  # c_t before h_t, as the step computes them
    return [b for b in keep if b not in last] + own + last


# ---------------------------------------------------------------- the traced run


class _StandIn(keras.layers.Layer):
    """Stands for ``layer`` in a copy of a graph: its outputs computed by ``run`` (a probe, a scaled embedding)."""

    def __init__(self, layer, run: Callable):
        super().__init__(name=f"traced_{layer.name}", dtype=layer.dtype_policy)
        self.traced, self.run = layer, run
        self.supports_masking = True
        self.built = True

    def call(self, inputs, *args, **kwargs):  # inputs named: Keras reads the mask to carry on from the first
        return self.run(inputs, *args, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        kwargs.pop("training", None)
        kwargs.pop("mask", None)
        return self.traced.compute_output_spec(*args, **kwargs)

    def compute_mask(self, inputs, previous_mask=None):
        return self.traced.compute_mask(inputs, previous_mask)


def run_with_stand_ins(model, inputs, stand_in: Callable[[keras.layers.Layer], Callable | None]):
    """Run ``model`` on ``inputs`` through a copy of its graph that shares its layers; every layer for
    which ``stand_in(layer)`` gives a function has its outputs computed by that function instead.

    The copy is ``keras.models.clone_model(call_function=...)`` built on inputs of
    the batch's shape; masks leave a stand-in as they would leave the layer.
    Called eagerly, so a stand-in may read tensors watched by a gradient tape.
    """
    if isinstance(model, keras.Sequential):
        model = keras.Model(model.inputs, model.outputs, name=model.name)  # its graph, same layers

    def call(layer, *args, **kwargs):
        run = stand_in(layer)
        return layer(*args, **kwargs) if run is None else _StandIn(layer, run)(*args, **kwargs)

    try:
        copy = keras.models.clone_model(
            model, input_tensors=_placeholder(model, inputs), clone_function=lambda layer: layer,
            call_function=call, recursive=True,
        )
    except ValueError:
        raise ValueError(
            f"Cannot trace a {type(model).__name__}: pass a functional or Sequential model, "
            "or a recurrent layer."
        ) from None
    return copy(inputs, training=False)  # inference: dropout off, as predict


class _Tracer:
    """Runs a model with every layer that has a probe stepped through it."""

    def __init__(self, time_labels: list, perturb: Perturb | None = None):
        self.time_labels = time_labels
        self.perturb = perturb
        self.cells: list[dict] = []  # recurrent layers' raw records (tensors), whose h the gradient pass perturbs
        self.results: list[Callable[[int], LayerResult]] = []  # one per probed layer, in the order they ran

    def record(self, result: Callable[[int], LayerResult]) -> None:
        """A probe's result, built later from its tensors for one sample of the batch (``to_numpy``)."""
        self.results.append(result)

    # -- graph

    def run(self, model, inputs):
        probe = probe_for(model)
        if probe is not None:
            return probe(self, model)(inputs)
        if isinstance(model, keras.Sequential) and not model.built:  # no graph yet: its layers form a chain
            x = inputs
            for layer in model.layers:
                x = self.run(layer, x) if isinstance(layer, keras.Model) or probe_for(layer) else layer(x)
            return x
        if not isinstance(model, keras.Model):
            raise ValueError(
                f"Cannot trace a {type(model).__name__}: pass a functional or Sequential model, "
                "or a recurrent layer."
            )
        return run_with_stand_ins(model, inputs, self._stand_in)

    def _stand_in(self, layer) -> Callable | None:
        """What computes a probed layer's outputs in the traced copy (``None``: the layer itself)."""
        probe = probe_for(layer)
        return None if probe is None else probe(self, layer)

    def _layer(self, layer):
        def call(sequences, initial_state=None, mask=None, training=None, **_):
            sequences = ops.convert_to_tensor(sequences)
            if mask is None:
                mask = backend.get_keras_mask(sequences)  # private: see the import
            if isinstance(layer, keras.layers.Bidirectional):
                out = self._bidirectional(layer, sequences, initial_state, mask)
            else:
                out = self._rnn(layer, layer.name, "forward", sequences, initial_state, mask)
            if mask is not None and getattr(layer, "return_sequences", False):
                first = out[0] if isinstance(out, (list, tuple)) else out
                backend.set_keras_mask(first, mask)  # the next layer sees the mask, as after the layer (private)
            return out

        return call

    def _bidirectional(self, wrapper, sequences, initial_state, mask):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self._rnn(wrapper.forward_layer, wrapper.name, "forward", sequences, forward_state, mask)
        y_rev = self._rnn(wrapper.backward_layer, wrapper.name, "backward", sequences, backward_state, mask)
        states = ()
        if wrapper.return_state:
            states = tuple(y[1:]) + tuple(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        # Keras's own merge (keras.layers.Bidirectional.call): the backward sequence is flipped back.
        if wrapper.return_sequences:
            y_rev = ops.flip(y_rev, axis=1)
        merge = wrapper.merge_mode
        if merge == "concat":
            output = ops.concatenate([y, y_rev], axis=-1)
        elif merge == "sum":
            output = y + y_rev
        elif merge == "ave":
            output = (y + y_rev) / 2
        elif merge == "mul":
            output = y * y_rev
        elif merge is None:
            output = [y, y_rev]
        else:
            raise ValueError(f"Unknown merge_mode {merge!r} of {wrapper.name}.")
        if states:
            return [*(output if merge is None else [output]), *states]
        return output

    def _rnn(self, layer, name, direction, sequences, initial_state, mask):
        """``keras.layers.RNN.call`` unrolled in Python around ``cell.step`` (or ``cell.call``)."""
        cell = layer.cell
        sequences = ops.convert_to_tensor(sequences)
        batch, steps = sequences.shape[0], sequences.shape[1]
        if initial_state is None:
            states = layer.get_initial_state(batch_size=batch)
        else:
            states = initial_state
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        states = [ops.cast(s, cell.compute_dtype) for s in states]
        key = layer_key(name, direction)
        order = range(steps - 1, -1, -1) if layer.go_backwards else range(steps)
        record: dict[str, list] = {}
        outputs = []
        previous = None
        for t in order:  # t: the input's own time index
            x_t = sequences[:, t, :]  # (B, F)
            output, new_states, internals = _step(cell, x_t, states)
            new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
            # Which internals are states (h, c): at a masked step they keep their value.
            state_of = {n: k for n, v in internals.items() for k, s in enumerate(new_states) if v is s}
            if self.perturb is not None:
                # d L / d h_t: perturb the state where it leaves the step, in every use of it.
                shared = [k for k, s in enumerate(new_states) if s is output] or [0]
                output = self.perturb(key, t, output)
                for k in shared:
                    new_states[k] = output
            if mask is not None:
                keep = ops.expand_dims(ops.cast(mask[:, t], "bool"), -1)  # (B, 1)
                new_states = [ops.where(keep, n, s) for n, s in zip(new_states, states)]
                fallback = ops.zeros_like(output) if (layer.zero_output_for_mask or previous is None) else previous
                output = ops.where(keep, output, fallback)
            internals = {n: new_states[state_of[n]] if n in state_of else v for n, v in internals.items()}
            internals.setdefault("h", output)
            for n, value in internals.items():
                record.setdefault(n, [None] * steps)[t] = value
            outputs.append(output)
            previous = output
            states = new_states
        sequence = ops.stack(outputs, axis=1)  # (B, T, units), in processing order as keras.layers.RNN
        output = sequence if layer.return_sequences else outputs[-1]
        raw = {
            "layer": layer, "name": name, "direction": direction, "inputs": sequences,
            "record": record, "mask": mask, "states": set(state_of) | {"h"}, "output": output,
        }
        self.cells.append(raw)
        self.record(lambda sample: self._cell_result(raw, sample))
        if layer.return_state:
            return [output, *states]
        return output

    def to_numpy(self, sample: int = 0) -> list[LayerResult]:
        """Every probe's result for one sample of the batch, as NumPy arrays."""
        return [result(sample) for result in self.results]

    def _cell_result(self, raw: dict, sample: int) -> LayerTrace:
        cell = raw["layer"].cell
        names = list(getattr(cell, "internal_names", ())) or list(raw["record"])
        names = [n for n in names if n in raw["record"]] + [n for n in raw["record"] if n not in names]
        arrays = {n: np.stack([_row(v, sample) for v in raw["record"][n]]) for n in names}  # (T, units)
        mask = None if raw["mask"] is None else np.asarray(ops.convert_to_numpy(raw["mask"]))[sample].astype(bool)
        if mask is not None:
            for n in arrays:
                if n not in raw["states"]:
                    arrays[n] = np.where(mask[:, None], arrays[n], np.nan)  # a skipped step has no gates
        return LayerTrace(
            name=raw["name"],
            kind=type(cell).__name__,
            direction=raw["direction"],
            arrays=arrays,
            inputs=_row(raw["inputs"], sample),
            time_labels=list(self.time_labels),
            equations=cell_equations(cell),
            mask=mask,
            output=_row(raw["output"], sample),
            variant=getattr(cell, "variant", None),
            axes={n: CELL_AXES for n in arrays},
        )


@register_probe(keras.layers.RNN)
@register_probe(keras.layers.Bidirectional)
def recurrent_probe(tracer: _Tracer, layer) -> Callable:
    """Every step of a recurrent layer (both directions of a ``Bidirectional``) through its cell's ``step``."""
    return tracer._layer(layer)


def _placeholder(model, inputs):
    """The copy's input, shaped as the traced batch (a token model reads a text shorter than its window).

    ``None`` (Keras's own placeholders) for a model with several inputs.
    """
    if len(model.inputs) != 1:
        return None
    [original] = model.inputs
    placeholder = keras.Input(batch_shape=(None, *inputs.shape[1:]), dtype=original.dtype, name=original.name)
    return [placeholder] if isinstance(model.input, (list, tuple)) else placeholder  # model.input's structure


def _step(cell, x_t, states):
    """The cell's own step: ``step`` (with internals) for seqlab cells, ``call`` for any other cell."""
    if hasattr(cell, "step"):
        return cell.step(x_t, states, training=False)
    state_arg = states if len(states) > 1 else states[0]
    output, new_states = cell(x_t, state_arg, training=False)
    new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
    internals = {"h": output}
    if len(new_states) == 2:  # Keras's LSTMCell: [h, c]
        internals["c"] = new_states[1]
    return output, new_states, internals


def _row(value, sample):
    return np.asarray(ops.convert_to_numpy(value))[sample]


# ---------------------------------------------------------------- public entry


def reads_token_ids(model) -> bool:
    """The model's (first) input is integer token ids ``(B, T)``, not float windows."""
    try:
        dtype = model.inputs[0].dtype if isinstance(model, keras.Model) else None
    except (AttributeError, IndexError, TypeError, ValueError):
        return False
    return dtype is not None and "int" in keras.backend.standardize_dtype(dtype)


def as_batch(inputs, model=None) -> np.ndarray | list[np.ndarray]:
    """One sequence ``(T, F)`` or ``(1, T, F)`` as a float32 batch of one ``(1, T, F)``;
    for a model that reads token ids, ``(T,)`` or ``(1, T)`` ids as an int32 batch ``(1, T)``.

    A model with several inputs (a forecaster given the known future) takes a
    list: the sequence first, then its other inputs, each made a batch of one.
    """
    others = len(model.inputs) - 1 if isinstance(model, keras.Model) else 0
    if others or isinstance(inputs, (list, tuple)):
        return _several(inputs, model, others)
    return _sequence(inputs, model)


def _sequence(inputs, model) -> np.ndarray:
    """``as_batch`` of the model's first input."""
    if reads_token_ids(model):
        ids = np.asarray(inputs)
        ids = ids[None] if ids.ndim == 1 else ids
        if ids.ndim != 2 or ids.shape[0] != 1 or ids.shape[1] == 0 or not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(
                f"inputs must be one sequence of token ids, shape (T,) or (1, T), at least one id; got shape "
                f"{np.shape(inputs)} of {ids.dtype}: encode the text with the run's tokeniser."
            )
        longest = model.inputs[0].shape[1]
        if longest is not None and ids.shape[1] > longest:
            raise ValueError(f"inputs has {ids.shape[1]} token ids; this model reads at most {longest}.")
        return ids.astype("int32")
    x = np.asarray(inputs, dtype="float32")
    if x.ndim == 2:
        x = x[None]
    if x.ndim != 3 or x.shape[0] != 1:
        raise ValueError(
            f"inputs must be one sequence of shape (T, F) or (1, T, F), got shape {np.shape(inputs)}."
        )
    expected = _expected_shape(model)
    if expected is not None and any(e is not None and e != g for e, g in zip(expected, x.shape[1:])):
        raise ValueError(f"inputs must have shape (T, F) = {tuple(expected)}, got {x.shape[1:]}.")
    return x


def _several(inputs, model, others: int) -> list[np.ndarray]:
    names = [i.name for i in model.inputs] if isinstance(model, keras.Model) else ["inputs"]
    if not isinstance(inputs, (list, tuple)) or len(inputs) != others + 1:
        raise ValueError(f"This model takes {others + 1} input(s), {names}: pass a list [{', '.join(names)}].")
    first, *rest = inputs
    batch = [_sequence(first, model)]
    for given, symbolic in zip(rest, model.inputs[1:]):
        x = np.asarray(given, dtype="float32")
        x = x[None] if x.ndim == len(symbolic.shape) - 1 else x
        if x.shape[0] != 1 or any(e is not None and e != g for e, g in zip(symbolic.shape[1:], x.shape[1:])):
            raise ValueError(f"{symbolic.name} must have shape {tuple(symbolic.shape[1:])}, got {np.shape(given)}.")
        batch.append(x)
    return batch


def sequence_of(x):
    """The sequence of a batch made by ``as_batch`` (the first input of several)."""
    return x[0] if isinstance(x, list) else x


def _expected_shape(model):
    try:
        shape = model.inputs[0].shape[1:] if isinstance(model, keras.Model) else None
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return tuple(shape) if shape is not None and len(shape) == 2 else None


def resolve_model(model_or_run):
    """A saved run (``seqlab.runs.Run``) stands for its Keras model."""
    if not isinstance(model_or_run, keras.layers.Layer) and hasattr(model_or_run, "load_model"):
        return model_or_run.load_model()
    return model_or_run


def default_time_labels(steps: int) -> list[int]:
    """Time steps numbered as the notes do: ``1 .. T``."""
    return list(range(1, steps + 1))


def run_traced(model_or_layer, x, time_labels: Sequence, perturb: Perturb | None = None):
    """Run ``model_or_layer`` on the batch ``x`` along the traced path: ``(outputs, tracer)``.

    The building block of ``trace`` and of the gradient through time (which
    passes ``perturb`` to add a watched zero to every ``h_t``).
    """
    target = model_or_layer
    if not getattr(target, "built", True) and is_recurrent(target):
        target(x)  # build the weights once, as a first call would
    tracer = _Tracer(list(time_labels), perturb=perturb)
    tensors = [ops.convert_to_tensor(i) for i in x] if isinstance(x, list) else ops.convert_to_tensor(x)
    outputs = tracer.run(target, tensors)
    return outputs, tracer


def trace(model_or_layer, inputs, time_labels: Sequence | None = None) -> Trace:
    """Trace every probed layer of a model (or one recurrent layer) over one sequence.

    Args:
        model_or_layer: a functional or Sequential Keras model, a saved run
            (``seqlab.runs.Run``: its model), or a recurrent layer (``seqlab.layers``
            ``SimpleRNN``, ``LSTM``, ``GRU``, ``ESN``, any ``keras.layers.RNN``,
            or a ``keras.layers.Bidirectional`` around one).
        inputs: one sequence, ``(T, F)`` or ``(1, T, F)``, in the model's own
            input units (a model scales its inputs itself); for a model that reads
            token ids, ``(T,)`` ids (``T`` up to the model's window); for a
            model with several inputs, a list, the sequence first (a
            forecaster's ``[window, future]``).
        time_labels: one label per step (tokens, timestamps); default ``1 .. T``.

    Returns:
        A ``Trace``: ``layers`` (one ``LayerTrace`` per recurrent layer and
        direction, with the cell's internals as ``(T, units)`` arrays; one
        ``HMMTrace`` per hidden Markov model), and the model's ``outputs``
        computed along the same path. A model without a probed layer gives a
        trace with no layers.

    Example:

    ```python
    run = RunStore().list()[0]
    tr = trace(run.load_model(), window)  # window: (T, F)
    tr.layers[0].arrays["f"]  # the forget gate f_t, (T, units)
    ```
    """
    model_or_layer = resolve_model(model_or_layer)
    x = as_batch(inputs, model_or_layer)
    steps = sequence_of(x).shape[1]
    labels = list(time_labels) if time_labels is not None else default_time_labels(steps)
    if len(labels) != steps:
        raise ValueError(f"time_labels has {len(labels)} labels for {steps} time steps.")
    outputs, tracer = run_traced(model_or_layer, x, labels)
    if isinstance(outputs, (list, tuple)):
        outputs = [np.asarray(ops.convert_to_numpy(o))[0] for o in outputs]
    else:
        outputs = np.asarray(ops.convert_to_numpy(outputs))[0]
    return Trace(layers=tracer.to_numpy(), inputs=sequence_of(x)[0], outputs=outputs, time_labels=labels)
