"""Generate text from a language run: its tokeniser, a stateful ``next()`` over its layers, and ``seqlab.decoding``.

A recurrent language model is ``embedding -> RNN layers -> Dense(V, softmax)``.
``stateful_next`` steps that chain one token at a time
(``seqlab.models.stepper``): every RNN layer carries its cell's state (``h``,
or ``h`` and ``c``) between calls and reads only the new id, never the prompt
again; every other layer (embedding, dense head, dropout) acts on each step
alone. So 200 tokens cost 200 compiled cell steps, not 200 passes over a
growing context. The padding id is never generated.

A GPT (``seqlab.models.gpt``) keeps every block's keys and values in a cache
(``gpt_next``, ``seqlab.models.gpt_stepper``): the prompt is read once, then
each token is one compiled step over the cache. Its context is the window it
was trained on (``T`` ids): a longer prompt is cut to its last ``T`` ids
(``GeneratedText.notice`` says so), and when the cache is full it re-reads
the last ``T / 2`` ids and goes on.

``generate_text`` is what the CLI's ``generate`` and the dashboard call.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from seqlab import decoding
from seqlab.text import PAD_ID, UNK_ID, Tokenizer

if TYPE_CHECKING:
    import keras

    from seqlab.runs import Run

@dataclass(frozen=True)
class GeneratedText:
    """A continuation of a prompt.

    Attributes:
        prompt: the prompt as the tokeniser reads it (standardised).
        text: the generated text (the prompt not repeated).
        tokens: each generated token as text, in order.
        generated: the decoder's record: ids, and per id its probability and
            the top alternatives (``seqlab.decoding.Generated``).
        notice: what was done to the prompt, for the reader (a prompt longer
            than the model's context is cut to its end); ``None``: nothing.
    """

    prompt: str
    text: str
    tokens: tuple[str, ...]
    generated: decoding.Generated
    notice: str | None = None

    def as_dict(self, tokenizer: Tokenizer) -> dict:
        """JSON-ready: the text, and per token its text, id, probability and the alternatives."""
        return {
            "prompt": self.prompt,
            "text": self.text,
            "log_prob": self.generated.log_prob,
            "notice": self.notice,
            "tokens": [
                {
                    "token": token,
                    "id": choice.token,
                    "prob": choice.prob,
                    "alternatives": [{"token": tokenizer.vocab[i], "id": i, "prob": p} for i, p in choice.alternatives],
                }
                for token, choice in zip(self.tokens, self.generated.choices)
            ],
        }


# One stepper per loaded model: its predict function compiles on the first call (about a second), once.
_STEPPERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _stepper_of(model: keras.Model):
    from seqlab.models.stepper import RecurrentStepper

    if model not in _STEPPERS:
        _STEPPERS[model] = RecurrentStepper(model)
    return _STEPPERS[model]


def stateful_next(model: keras.Model) -> decoding.NextFn:
    """``next(tokens, state)`` for a chain of position-wise layers and RNN layers (module docstring).

    ``state`` is a tuple of the RNN layers' state arrays, in order (rows on
    axis 0, as beam search needs); ``None`` starts from the cells' initial
    states. Each id is one call of the compiled ``RecurrentStepper``.
    """
    import keras

    stepper = _stepper_of(model)
    cells = [layer.cell for layer in stepper.steps if isinstance(layer, keras.layers.RNN)]

    def next_fn(tokens, state):
        rows = tokens.shape[0]
        if state is None:
            state = tuple(np.asarray(s) for cell in cells for s in cell.get_initial_state(batch_size=rows))
        for t in range(tokens.shape[1]):  # the prompt once, then one id a step
            probabilities, *state = stepper.predict_on_batch([tokens[:, t].astype("int32"), *state])
        return _log_probs(probabilities), tuple(state)

    return next_fn


def window_next(model: keras.Model) -> decoding.NextFn:
    """``next(tokens, state)`` for a model that reads a context, not a carried state.

    A Markov chain reads its last k ids (``MarkovChain.next_fn``). A window
    model (the neural language model) reads its last ``T`` ids: the context,
    left-padded to ``T``, goes through the whole model and the last
    position's distribution is the next token's. The padding id is never
    generated.
    """
    import keras

    from seqlab.layers.markov import MarkovChain

    chains = [layer for layer in model.layers if isinstance(layer, MarkovChain)]
    lookback = chains[0].order if chains else int(model.inputs[0].shape[1])

    def log_probs_of(context: np.ndarray) -> np.ndarray:
        if chains:
            log_probs = chains[0].log_prob(context).astype("float64")  # (rows, V) from the last k ids
        else:
            padded = np.full((len(context), lookback), PAD_ID, dtype="int32")
            padded[:, lookback - context.shape[1] :] = context
            probabilities = keras.ops.convert_to_numpy(model(padded, training=False))[:, -1, :]
            log_probs = np.log(np.clip(probabilities.astype("float64"), 1e-12, 1.0))
        log_probs[:, PAD_ID] = -np.inf  # padding is never a next token
        return decoding.log_softmax(log_probs)

    return decoding.context_next(log_probs_of, window=lookback)


_GPT_STEPPERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def gpt_stepper_of(model: keras.Model):
    """The model's ``GPTStepper``, made (and compiled on its first call) once per loaded model."""
    from seqlab.models.gpt_stepper import GPTStepper

    if model not in _GPT_STEPPERS:
        _GPT_STEPPERS[model] = GPTStepper(model)
    return _GPT_STEPPERS[model]


def gpt_context(model: keras.Model) -> int | None:
    """A GPT's context (its window ``T``), or ``None`` for any other model."""
    from seqlab.layers.transformer import TransformerDecoderBlock

    if any(isinstance(layer, TransformerDecoderBlock) for layer in model.layers):
        return int(model.inputs[0].shape[1])
    return None


def gpt_next(model: keras.Model, cache: bool = True) -> decoding.NextFn:
    """``next(tokens, state)`` for a GPT: with each block's key/value cache, or recomputing the whole context.

    With ``cache`` the state is ``{"context": ids (rows, n) in the cache, "cache": every block's keys and
    values (rows, blocks, 2, h, T, d_k)}``:
    new ids are one ``GPTStepper`` call at positions ``n ..``. The context never passes the
    window ``T`` the model was trained on: a prompt keeps its last ``T`` ids, and a full cache is
    rebuilt from the last ``T / 2`` ids (one pass over them, then single steps again).

    Without ``cache`` (the reference, and the cost the cache saves) every call runs the whole
    model on the last ``T`` ids, padded after their end: the mask keeps the padding unread.
    Both give the same log-probabilities while the context fits in ``T``.
    """
    if not cache:
        window = int(model.inputs[0].shape[1])

        def log_probs_of(context: np.ndarray) -> np.ndarray:
            padded = np.full((len(context), window), PAD_ID, dtype="int32")
            padded[:, : context.shape[1]] = context
            probabilities = model.predict_on_batch(padded)[:, context.shape[1] - 1]  # (rows, V) after the last id
            return _log_probs(probabilities)

        return decoding.context_next(log_probs_of, window=window)

    stepper = gpt_stepper_of(model)

    def next_fn(tokens, state):
        tokens = np.asarray(tokens, dtype="int32")
        context = tokens if state is None else np.concatenate([state["context"], tokens], axis=1)
        if state is None or context.shape[1] > stepper.max_length:
            keep = stepper.max_length if state is None else stepper.max_length // 2
            context = context[:, -keep:]
            probabilities, kv = stepper.prime(context)  # one pass over the window fills every cache
        else:
            probabilities, kv = stepper.step(tokens, state["cache"], state["context"].shape[1])
        # The cache stays a tensor between steps (beam search's row picking reads it as an array).
        return _log_probs(np.asarray(probabilities)), {"context": context, "cache": kv}

    return next_fn


def _log_probs(probabilities: np.ndarray) -> np.ndarray:
    """The head's probabilities as log-probabilities; padding is never a next token."""
    log_probs = np.log(np.clip(probabilities.astype("float64"), 1e-12, 1.0))
    log_probs[:, PAD_ID] = -np.inf
    return decoding.log_softmax(log_probs)


def hidden_state_next(hmm) -> decoding.NextFn:
    """An HMM's ``next()``: carries the forward state ``log p(z | x so far)``; padding is never generated."""

    def next_fn(tokens, state):
        log_probs, state = hmm.next_fn()(tokens, state)
        log_probs = np.array(log_probs, dtype="float64")
        log_probs[:, PAD_ID] = -np.inf
        return decoding.log_softmax(log_probs), state

    return next_fn


def next_of(model: keras.Model) -> decoding.NextFn:
    """The model's ``next()``: a carried state (recurrent models, HMMs, a GPT's key/value cache) or the context
    (Markov, window models)."""
    import keras

    from seqlab.models.hmm_next_token import HMMNextToken

    if any(isinstance(layer, keras.layers.RNN) for layer in model.layers):
        return stateful_next(model)
    if gpt_context(model) is not None:
        return gpt_next(model)
    hmms = [layer for layer in model.layers if isinstance(layer, HMMNextToken)]
    if hmms:
        return hidden_state_next(hmms[0].hmm)
    return window_next(model)


def check_language_run(run: Run) -> None:
    if run.meta.task != "language":
        raise ValueError(f"Run {run.run_id} is a {run.meta.task} run; only language runs generate text.")


def run_tokenizer(run: Run) -> Tokenizer:
    """The tokeniser saved with a language run (``tokenizer.json``)."""
    check_language_run(run)
    return run.load_tokenizer()


def prompt_ids(tokenizer: Tokenizer, prompt: str) -> list[int]:
    """The prompt's ids; a prompt the tokeniser reads as nothing, or as unknown tokens only, is refused."""
    ids = tokenizer.encode(prompt)
    if not ids:
        raise ValueError("The prompt is empty after standardisation: give a prompt with some text.")
    if all(i == UNK_ID for i in ids):
        raise ValueError(
            f"Every token of the prompt {prompt!r} is unknown to this run's {tokenizer.kind} tokeniser "
            "(none was seen in training): use characters or words of the training text."
        )
    return ids


def generate_text(
    run: Run,
    prompt: str,
    tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    model: keras.Model | None = None,
    tokenizer: Tokenizer | None = None,
) -> GeneratedText:
    """Continue ``prompt`` by ``tokens`` tokens of a language run (``temperature=0``: greedy).

    ``model`` and ``tokenizer`` default to the run's own (pass them to reuse loaded ones).
    """
    check_language_run(run)
    tokenizer = tokenizer or run_tokenizer(run)
    ids = prompt_ids(tokenizer, prompt)
    model = model or run.load_model()
    notice, context = None, gpt_context(model)
    if context is not None and len(ids) > context:
        notice = (
            f"The prompt has {len(ids):,} tokens, more than this model's context of {context}: "
            f"it reads only the last {context}."
        )
        ids = ids[-context:]
    next_fn = next_of(model)
    [generated] = decoding.sample(
        next_fn, [ids], max_new_tokens=tokens, temperature=temperature, top_k=top_k, top_p=top_p, seed=seed
    )
    pieces = tuple(tokenizer.vocab[i] for i in generated.tokens)
    return GeneratedText(
        prompt=tokenizer.standardize(prompt),
        text=tokenizer.decode(generated.tokens),
        tokens=pieces,
        generated=generated,
        notice=notice,
    )
