"""Generate text from a language run: its tokeniser, its model's steps, and ``seqlab.decoding``.

The run's architecture says how its model goes one token at a time
(``seqlab.models.steps``): a recurrent model carries every cell's state and
reads only the new id, never the prompt again (so 200 tokens cost 200
compiled cell steps, not 200 passes over a growing context); a GPT keeps every
block's keys and values in a cache; an HMM carries its forward state; a
Markov chain and the window model re-read their last ids. ``generate_text``
runs greedy decoding or sampling through the compiled loop over those steps
(``compiled_generate``: ``seqlab.decoding.while_loop``, the loop the
SavedModel's ``generate`` runs too); ``language_next`` turns them into the
NumPy decoders' ``next`` (beam search, the cache's timing against
recomputing). The padding id is never generated.

A model with a context (a GPT's window of ``T`` ids) reads at most that many:
a longer prompt is cut to its last ``T`` ids (``GeneratedText.notice`` says
so).

``generate_text`` is what the CLI's ``generate`` and the dashboard call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from keras import ops

from seqlab import decoding
from seqlab.decoding.arguments import check_max_new_tokens, check_temperature, check_top_k, check_top_p, rng_of
from seqlab.decoding.while_loop import as_generated, compiled, continuation, steps_decoder
from seqlab.models.recomputed_steps import recomputed_steps
from seqlab.models.steps import Steps
from seqlab.models.registry import steps_of
from seqlab.text import PAD_ID, UNK_ID, Tokenizer

if TYPE_CHECKING:
    import keras

    from seqlab.runs import Run

# The most probable ids listed beside each generated one (the dashboard's alternatives).
ALTERNATIVES = 5


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


def language_next(steps: Steps) -> decoding.NextFn:
    """``next(tokens, state)`` of ``seqlab.decoding`` from a language model's steps (``seqlab.models.steps``).

    The prompt is read once (``steps.read``), then one id a step
    (``steps.next``); the state is the model's own, beside how many ids it has
    read. The padding id is never generated.
    """

    def next_fn(tokens, state):
        tokens = np.asarray(tokens, dtype="int64")
        rows, n = tokens.shape
        if state is None or n > 1:
            inner, read = (steps.start(rows), 0) if state is None else (state[0], int(state[1][0]))
            probabilities, inner = steps.read(tokens, inner)
            probabilities = np.asarray(probabilities)[:, -1]
        else:
            inner, read = state[0], int(state[1][0])
            probabilities, inner = steps.next(tokens[:, 0], inner, read)
        return _log_probs(np.asarray(probabilities)), (inner, np.full(rows, read + n))

    return next_fn


def language_decoder(steps: Steps, vocabulary: int, sampling: bool = False, alternatives: int = ALTERNATIVES):
    """``run(buffer, buffer, lengths, new_tokens, uniforms)``: the compiled loop's decoder of a language model
    (``seqlab.decoding.while_loop.steps_decoder``), from an empty state, the padding id never generated: what
    ``generate_text`` compiles (``sampling``: the settings are its inputs too) and the SavedModel's greedy
    ``generate`` traces."""
    return steps_decoder(steps, lambda prompts: steps.initial(ops.shape(prompts)[0]), never=PAD_ID,
                         sampling=sampling, alternatives=min(alternatives, vocabulary))


def compiled_generate(steps: Steps, ids: list[int], tokens: int, vocabulary: int, temperature: float = 0.0,
                      top_k: int | None = None, top_p: float | None = None, seed=None) -> decoding.Generated:
    """``tokens`` ids after ``ids`` through the compiled loop (per model and vocabulary, one graph for greedy and
    one for sampling, whatever its settings); the same ids as ``decoding.sample`` with the same ``seed`` (its
    draws are ``rng.random`` of the seed too)."""
    tokens = check_max_new_tokens(tokens)
    temperature, top_k, top_p = check_temperature(temperature), check_top_k(top_k), check_top_p(top_p)
    if not steps.in_graph:
        raise ValueError(f"{type(steps).__name__} has no step in keras.ops (Steps.step): it cannot generate.")
    made = vars(steps).setdefault("_decoders", {})  # compiled once per steps (so once per model)
    sampling = temperature > 0  # greedy's graph is the smaller: no sort of the vocabulary at every step
    key = (vocabulary, sampling)
    if key not in made:
        made[key] = compiled(language_decoder(steps, vocabulary, sampling), [
            ((None, None), "int32"), ((None, None), "int32"), ((None,), "int32"), ((), "int32"),
            ((None, None), "float32"), *([((), "float32"), ((), "int32"), ((), "float32")] if sampling else [])],
            xla=steps.xla)
    # The buffer's width in powers of two (64 at least): an XLA-compiled loop compiles once per width.
    width = max(64, 1 << (len(ids) + tokens - 1).bit_length())
    buffer, uniforms = np.zeros((1, width), dtype="int32"), np.zeros((1, width), dtype="float32")
    buffer[0, : len(ids)] = ids
    uniforms[0, len(ids) : len(ids) + tokens] = rng_of(seed).random(tokens)  # one draw per step, as sample()'s
    buffer, lengths = ops.convert_to_tensor(buffer), ops.convert_to_tensor([len(ids)], "int32")
    settings = (ops.convert_to_tensor(temperature, "float32"), ops.convert_to_tensor(top_k or 0, "int32"),
                ops.convert_to_tensor(1.0 if top_p is None else top_p, "float32")) if sampling else ()
    decoded = made[key](buffer, buffer, lengths, ops.convert_to_tensor(tokens, "int32"),
                        ops.convert_to_tensor(uniforms), *settings)
    [generated] = as_generated(continuation(decoded, lengths, tokens))
    return generated


def recomputed_next(model: keras.Model) -> decoding.NextFn:
    """``next(tokens, state)`` of a causal model that reads its last ``T`` ids again for every token
    (``seqlab.models.context_steps.recomputed_steps``): the reference for a GPT's key/value cache."""
    return language_next(recomputed_steps(model))


def _log_probs(probabilities: np.ndarray) -> np.ndarray:
    """The head's probabilities as log-probabilities; padding is never a next token."""
    log_probs = np.log(np.clip(probabilities.astype("float64"), 1e-12, 1.0))
    log_probs[:, PAD_ID] = -np.inf
    return decoding.log_softmax(log_probs)


def check_language_run(run: Run) -> None:
    """Refuse a run whose task does not generate text, naming what it does instead."""
    from seqlab.tasks import task_for

    task_for("generate", run.meta.task, run.run_id)


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
    steps = steps_of(model)
    notice, context = None, steps.context
    if context is not None and len(ids) > context:
        notice = (
            f"The prompt has {len(ids):,} tokens, more than this model's context of {context}: "
            f"it reads only the last {context}."
        )
        ids = ids[-context:]
    generated = compiled_generate(steps, ids, tokens, tokenizer.vocab_size, temperature, top_k, top_p, seed)
    pieces = tuple(tokenizer.vocab[i] for i in generated.tokens)
    return GeneratedText(
        prompt=tokenizer.standardize(prompt),
        text=tokenizer.decode(generated.tokens),
        tokens=pieces,
        generated=generated,
        notice=notice,
    )
