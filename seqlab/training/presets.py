"""Presets: named experiments, each a few ExperimentSpecs run one after the other.

The presets here are the longer experiments (up to several minutes each on 2 CPU
cores, with the SavedModel export of every run included); each lesson of
``seqlab.lessons`` has its own preset of at most a minute, and
``seqlab.lessons.all_presets`` lists both. ``python -m seqlab presets`` lists
them all; ``python -m seqlab train --preset NAME`` runs one.
"""

from __future__ import annotations

from dataclasses import dataclass

from seqlab.run_name import MAX_LENGTH
from seqlab.training.spec import ExperimentSpec


def differing_options(options: dict, others: list[dict]) -> str:
    """``"k=v, ..."``: the options in which ``options`` differs from any of ``others`` (runs of one model)."""
    return ", ".join(f"{k}={v}" for k, v in options.items() if any(o.get(k) != v for o in others))


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    specs: tuple[ExperimentSpec, ...]

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "specs": [spec.to_dict() for spec in self.specs],
        }

    def differences(self) -> list[str]:
        """For each spec, the options in which it differs from the preset's other specs of its model
        (``"positions=none"``; ``""`` for a spec whose model tells it apart)."""
        options = [{**spec.data_options, **spec.model_options} for spec in self.specs]
        models = [spec.model for spec in self.specs]
        return [differing_options(own, [o for j, o in enumerate(options) if models[j] == models[i] and j != i])
                for i, own in enumerate(options)]

    def run_names(self) -> list[str]:
        """A name for each spec's run: the preset's name and ``differences`` (``"positional-encoding ·
        positions=none"``), so that Models and Compare tell a preset's runs apart."""
        return [f"{self.name}{f' · {extra}' if extra else ''}"[:MAX_LENGTH] for extra in self.differences()]


def _adding(model: str) -> ExperimentSpec:
    # At T = 50 the Elman RNN stays at the constant baseline (MSE ≈ 0.17) for these 12 epochs
    # while LSTM and GRU fall below 0.01 (LSTM from epoch 7, GRU from epoch 3, seed 0).
    return ExperimentSpec(
        "adding", model, data_options={"length_T": 50, "samples": 3000}, model_options={"units": 32},
        epochs=12, batch_size=32, learning_rate=1e-2,
    )


def _day_ahead(model: str, known_future: bool = True, **training) -> ExperimentSpec:
    # Every window starts at midnight (a stride of one day), as the day-ahead forecast is made.
    return ExperimentSpec(
        "energy", model, data_options={"known_future": known_future, "stride": 48}, **training,
    )


def _sentiment(model: str, **model_options) -> ExperimentSpec:
    # One budget for every model: at most 8 epochs, stopped when the validation loss has not improved for 2.
    return ExperimentSpec(
        "movie_sentiment", model, model_options=model_options, epochs=8, batch_size=64, learning_rate=2e-3,
        early_stopping=2,
    )


def _numbers(attention: str, **model_options) -> ExperimentSpec:
    # English number words 0..999 to German, a tenth of them held out: one budget for every decoder.
    return ExperimentSpec(
        "numbers_en_de", "seq2seq", data_options={"last": 999},
        model_options={"units": 64, "attention": attention, **model_options}, epochs=25, batch_size=32,
        learning_rate=5e-3,
    )


def _shakespeare(model: str, **model_options) -> ExperimentSpec:
    # Character level on all of Shakespeare (4.5 M training characters): one epoch is the lesson's length.
    return ExperimentSpec(
        "shakespeare", model, data_options={"tokenizer": "char"}, model_options=model_options,
        epochs=1, batch_size=64, learning_rate=3e-3,
    )


def _digits(model: str, **model_options) -> ExperimentSpec:
    # One budget for both: at most 60 epochs, stopped when the validation loss has not improved for 10.
    return ExperimentSpec(
        "digits", model, model_options=model_options, epochs=60, batch_size=32, learning_rate=2e-3,
        early_stopping=10,
    )


# nanoGPT's CPU configuration of its character-level Shakespeare (the peer of bench/gpt_shakespeare.py),
# with twice its rate over 1,500 steps instead of 2,000: on this text that reaches 1.92 nats in 1,000 steps.
GPT_SHAKESPEARE = ExperimentSpec(
    "shakespeare", "gpt",
    data_options={"tokenizer": "char", "lookback": 64, "stride": 64, "embedding_dim": 128},
    model_options={"layers": 4, "heads": 4, "width": 128, "dropout": 0.0},
    epochs=6, batch_size=12, optimizer="adamw", learning_rate=2e-3, weight_decay=0.1, schedule="cosine",
    warmup_steps=100, steps=1500, jit_compile=True, steps_per_execution=50,
)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            name="adding-elman-vs-gates",
            title="Long memory: the Elman RNN fails the adding problem, LSTM and GRU solve it",
            description=(
                "The adding problem with T = 50: sum the two marked values of a random sequence. The "
                "same budget (32 units, 12 epochs of 2,400 sequences) for the Elman RNN, the LSTM and "
                "the GRU. The Elman RNN's gradient vanishes over the 25+ steps between the first marker "
                "and the answer and it stays at the constant baseline (MSE ≈ 0.17); the gated cells "
                "carry the value and reach MSE below 0.01. Open each run on Inspect to see why: ‖∂L/∂h_t‖ through time."
            ),
            specs=(_adding("simple_rnn"), _adding("lstm"), _adding("gru")),
        ),
        Preset(
            name="esn-mackey-glass",
            title="Echo state network on Mackey-Glass: a closed-form fit against an LSTM",
            description=(
                "Forecast the chaotic Mackey-Glass series (τ = 17) 20 steps ahead from the last 100. The "
                "echo state network keeps its random reservoir fixed and fits only the readout by ridge "
                "regression, in one step; an LSTM of 32 units trains for 10 epochs by gradient descent "
                "beside it. Compare the training time and the test MAE."
            ),
            specs=(
                ExperimentSpec(
                    "mackey_glass", "esn",
                    model_options={
                        "units": 300, "spectral_radius": 1.25, "leak_rate": 0.3, "input_scaling": 0.5,
                        "connectivity": 0.1, "ridge": 1e-8,
                    },
                ),
                ExperimentSpec(
                    "mackey_glass", "lstm", model_options={"units": 32}, epochs=10, learning_rate=1e-2,
                ),
            ),
        ),
        Preset(
            name="energy-day-ahead",
            title="Tomorrow's electricity demand, with and without tomorrow's weather",
            description=(
                "The lecture's opening example: at midnight, forecast the next 48 half-hours of Victoria's "
                "demand from the last two days. The linear ARX, fitted in closed form, once with the next "
                "day's temperature and working days given as known future inputs and once without them; and "
                "a GRU given them too. Compare the test MAE with the seasonal naive and Holt-Winters peers "
                "(MAPE too, on Models), "
                "then open Forecast and change tomorrow's temperature."
            ),
            specs=(
                _day_ahead("arx", model_options={"ridge": 10.0}),
                _day_ahead("arx", known_future=False, model_options={"ridge": 10.0}),
                _day_ahead("gru", model_options={"units": 32}, epochs=40, learning_rate=3e-3, early_stopping=5),
            ),
        ),
        Preset(
            name="sentiment-rnn-vs-cnn",
            title="Sentiment of movie reviews: an RNN against a CNN, and the mean of the embeddings",
            description=(
                "The notes' exercise: replace the recurrent network of a text classifier by a 1-D CNN and "
                "compare. On 10,568 rated movie-review sentences (positive or negative), the same budget for "
                "a GRU (64 units), a CNN (64 filters of widths 3, 4 and 5, max pooling over time) and the "
                "bag-of-words baseline (the mean of the token embeddings). Measured on 2 CPU cores: the mean "
                "of the embeddings 0.80 test accuracy in 5 s, the CNN 0.77 in 8 s, the GRU 0.76 in 14 s; "
                "TF-IDF with logistic regression reaches 0.81 (python -m bench.movie_sentiment). Open "
                "Inspect with the GRU and type a sentence."
            ),
            specs=(_sentiment("gru", units=64), _sentiment("cnn"), _sentiment("mean_embedding")),
        ),
        Preset(
            name="attention-numbers",
            title="Numbers into German: an encoder-decoder without attention, with Bahdanau's and with Luong's",
            description=(
                "English number words to German ones, character by character: \"twenty-one\" is "
                "\"einundzwanzig\", the units before the tens, so the decoder must look back and forth in the "
                "source. The numbers 0 to 999, a tenth of them never seen in training; the same GRU encoder-"
                "decoder (64 units, 25 epochs) with no attention (the last encoder state is the only context), "
                "Bahdanau's additive attention and Luong's general score. Measured on 2 CPU cores (about 3.5 "
                "minutes in all): without attention 2 % of the 100 held-out numbers come out exactly right "
                "(57 % of their characters), Bahdanau 100 % (61 s of training), Luong 98 % (58 s). Open "
                "Translate with an "
                "attention run and type \"four hundred and twenty-one\": the map crosses where the units come "
                "first."
            ),
            specs=(_numbers("none"), _numbers("bahdanau"), _numbers("luong", score="general")),
        ),
        Preset(
            name="shakespeare-char",
            title="Shakespeare, character by character: Markov chains against LSTM and GRU",
            description=(
                "A language model of Shakespeare's works, one character at a time, judged in bits per "
                "character on the last 10 % of the text. The Markov chain of order 4 (the best of orders 1 "
                "to 5 here, about 2.42 bits) counts the training text in seconds; an LSTM and a GRU of 256 "
                "units train for one epoch each (1,111 batches of 64 windows of 64 characters). Measured on "
                "2 CPU cores: after that epoch the GRU is near 2.37 bits per character, below the chain, the "
                "LSTM near 2.48, still above it (it passes the chain after about 1,500 batches; rerun: "
                "python -m bench.shakespeare_char). Several "
                "minutes in all: every run is also scored against Markov chains of orders 1 to 5. Open "
                "Generate to read what each one writes."
            ),
            specs=(
                ExperimentSpec("shakespeare", "markov", data_options={"tokenizer": "char"},
                               model_options={"order": 4}),
                _shakespeare("lstm", units=256),
                _shakespeare("gru", units=256),
            ),
        ),
        Preset(
            name="gpt-shakespeare",
            title="A small GPT on Shakespeare, character by character, trained like nanoGPT",
            description=(
                "nanoGPT's CPU network: 4 decoder blocks of 4 heads, width 128, a context of 64 characters, "
                "batches of 12, AdamW (weight decay 0.1) with 100 steps of warm-up and a cosine decay, no "
                "dropout; at 2e-3 over 1,500 steps (nanoGPT: 1e-3 over 2,000). Each step is one XLA-compiled "
                "program and 50 of them run per call, on shuffled windows prepared ahead. On 2 CPU cores the "
                "held-out loss passes 1.92 nats per character by step 1,000 (about 68 s from launch, as PyTorch "
                "nanoGPT on the same text) and ends near 1.78 (rerun: python -m bench.gpt_shakespeare; the "
                "peer: python -m bench.nanogpt_peer). Open Generate to read what it writes: the key/value "
                "cache makes each new character one small step."
            ),
            specs=(GPT_SHAKESPEARE,),
        ),
        Preset(
            name="vit-digits",
            title="Digits as patches: a vision transformer against an LSTM reading rows",
            description=(
                "An 8x8 digit cut into 4 patches of 4x4 pixels, read by 2 encoder blocks with a [CLS] token "
                "and learned positions, against an LSTM reading the 8 rows. Measured on 2 shared CPU cores: the "
                "vision transformer 0.96 test accuracy in 53 s, the LSTM 0.97 in 44 s: on 1,257 training "
                "images the transformer, which must learn where each patch sits, gains nothing from attention."
            ),
            specs=(_digits("vit", patch_size=4), _digits("lstm")),
        ),
    )
}

