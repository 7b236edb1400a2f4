"""The Generate page's parts: which runs generate, the decoding controls, samples coloured by probability."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from seqlab.app import cache
from seqlab.plots import probability_legend, token_spans
from seqlab.plots.generated import shown_token
from seqlab.runs import Run
from seqlab.tasks import task_can

# Bounds of the controls: a few hundred tokens generate in a second or two on a CPU.
MAX_TOKENS = 500
MAX_SAMPLES = 4
TOP_ALTERNATIVES = 5


@dataclass(frozen=True)
class Decoding:
    """The page's decoding settings (``temperature=0``: greedy; ``top_k=0`` / ``top_p=1``: off)."""

    tokens: int
    temperature: float
    top_k: int
    top_p: float
    seed: int
    samples: int

    def options(self, sample: int) -> dict:
        """``generate_text`` keywords of sample ``sample`` (its seed is ``seed + sample``, so samples differ)."""
        return {
            "temperature": self.temperature,
            "top_k": self.top_k or None,
            "top_p": self.top_p if self.top_p < 1 else None,
            "seed": self.seed + sample,
        }


def language_runs(runs: list[Run]) -> list[Run]:
    return [r for r in runs if task_can(r.meta.task, "generate")]


def explain_no_language_runs() -> None:
    with st.container(border=True):
        st.markdown("#### No language runs yet")
        st.markdown(
            "Generating text needs a trained language model. On the **Train** page pick the **pydoc** dataset "
            "(Python's own help text, always here), the **LSTM** or a **Markov** model, a few epochs, and press "
            "**Train**. Or from a terminal: `python -m seqlab train --dataset pydoc --model lstm --epochs 2`."
        )
        st.page_link("pages/train.py", label="Train a language model", icon=":material/model_training:")


def tokenizer_caption(run: Run) -> None:
    """The run's tokeniser in a caption; an unreadable one ends the page with the reason (nothing can be generated)."""
    try:
        facts = cache.tokenizer_facts(run)
    except ValueError as err:
        st.error(f"Cannot read the tokeniser of run `{run.run_id}`: {err}")
        st.stop()
    st.caption(f"{facts['kind']} tokeniser, vocabulary of {facts['vocab_size']:,} tokens")


def controls(key: str = "generate") -> Decoding:
    """The decoding controls, bounded; ``key`` prefixes their widget keys."""
    a, b, c = st.columns(3)
    tokens = a.number_input("Tokens to generate", 1, MAX_TOKENS, 120, key=f"{key}.tokens")
    temperature = b.number_input("Temperature", 0.0, 5.0, 0.8, step=0.1, key=f"{key}.temperature",
                                 help="Divides the log-probabilities before sampling: 0 is greedy (always the most "
                                      "probable token), 1 the model's own distribution, above 1 flatter.")  # fmt: skip
    samples = c.number_input("Samples", 1, MAX_SAMPLES, 2, key=f"{key}.samples",
                             help="Samples side by side; sample i draws with seed + i.")  # fmt: skip
    d, e, f = st.columns(3)
    top_k = d.number_input("Top-k (0 = off)", 0, 1000, 0, key=f"{key}.top_k",
                           help="Sample only among the k most probable tokens.")  # fmt: skip
    top_p = e.number_input("Top-p (1 = off)", 0.01, 1.0, 1.0, step=0.05, key=f"{key}.top_p",
                           help="Sample only among the most probable tokens whose probabilities add up to p.")
    seed = f.number_input("Seed", 0, 2**31 - 1, 0, key=f"{key}.seed")
    return Decoding(int(tokens), float(temperature), int(top_k), float(top_p), int(seed), int(samples))


def show_samples(run: Run, prompt: str, settings: Decoding) -> None:
    """``settings.samples`` continuations of ``prompt`` side by side, or the reason there are none."""
    vocab = cache.tokenizer_facts(run)["vocab"]
    try:
        with st.spinner(f"Generating with {run.run_id}…"):
            outputs = [cache.sample_text(run, prompt, settings.tokens, **settings.options(i))
                       for i in range(settings.samples)]  # fmt: skip
    except ValueError as err:
        st.error(f"Cannot generate from this prompt: {err}")
        return
    if outputs[0].notice:
        st.info(outputs[0].notice, icon=":material/content_cut:")
    for i, (column, out) in enumerate(zip(st.columns(settings.samples), outputs)):
        choices = out.generated.choices
        with column:
            st.markdown(f"**Sample {i + 1}** (seed {settings.options(i)['seed']}, "
                        f"log-probability {out.generated.log_prob:.1f} nats)")  # fmt: skip
            alternatives = [[(vocab[t], p) for t, p in c.alternatives[:TOP_ALTERNATIVES]] for c in choices]
            st.html(token_spans(out.prompt, out.tokens, [c.prob for c in choices], alternatives))
            # A hover title never shows on a touch screen: the same figures in a table, opened by a tap.
            with st.expander("Each step's alternatives", icon=":material/list:"):
                st.dataframe(alternatives_table(out.tokens, [c.prob for c in choices], alternatives),
                             hide_index=True, width="stretch",
                             column_config={"p": st.column_config.NumberColumn(format="%.3f")})


def alternatives_table(tokens: list[str], probs: list[float], alternatives: list[list[tuple[str, float]]]
                       ) -> pd.DataFrame:
    """One row per generated token: its step, the token and its probability, the most probable tokens there."""
    return pd.DataFrame({
        "step": range(1, len(tokens) + 1),
        "token": [shown_token(t) for t in tokens],
        "p": probs,
        "most probable there": [" · ".join(f"{shown_token(t)} {p:.3f}" for t, p in top) for top in alternatives],
    })  # fmt: skip


def legend() -> None:
    st.html(probability_legend())
    st.caption("Grey: your prompt. Hover a token, or open a sample's alternatives, for its probability and the five "
               "most probable tokens at that step.")
