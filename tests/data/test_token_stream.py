"""Language data keeps its token stream: memory O(text), windows drawn at seeded random offsets, epochs as the
stride counts them, and a model still learns from it."""

import math
import tracemalloc

import keras
import numpy as np

from seqlab.data.corpora import Corpus
from seqlab.data.text_windows import TEXT_DEFAULTS, text_data
from seqlab.data.token_stream import TokenStream
from seqlab.training.stream_batches import StreamBatches


def toy_text(characters: int) -> Corpus:
    rng = np.random.default_rng(0)
    words = ["the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "dog ", "ran "]
    text = "".join(rng.choice(words, characters // 3))[:characters]
    return Corpus(text, "toy", "test", "public domain")


def load(corpus: Corpus, lookback: int, stride: int):
    return text_data("toy", corpus, **{**TEXT_DEFAULTS, "lookback": lookback, "stride": stride})


def test_the_training_split_holds_the_stream_not_its_windows():
    corpus, lookback = toy_text(60_000), 256
    tracemalloc.start()
    data = load(corpus, lookback, stride=1)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    train = data.splits["train"]
    assert isinstance(train, TokenStream)
    windows_bytes = len(train) * lookback * 4  # what cutting the training inputs alone would take (int32)
    assert peak < windows_bytes / 2  # cutting x and y took over twice this
    for views in (train.x, train.y):  # the windows are views of the stream, which holds each id once
        assert np.shares_memory(views, train.ids) and not views.flags.owndata and not views.flags.writeable
    assert train.ids.nbytes == 4 * len(train.ids) and train.ids.flags.owndata  # the one array it owns: int32 ids
    s = int(train.origin[1234])
    np.testing.assert_array_equal(train.x[1234], train.ids[s:s + lookback])
    np.testing.assert_array_equal(train.y[1234], train.ids[s + 1:s + lookback + 1])
    assert len(train) == len(train.ids) - lookback  # stride 1: every start that has a next id
    assert isinstance(data.splits["val"], TokenStream) and not data.splits["val"].x.flags.owndata


def test_the_same_seed_draws_the_same_batches_of_true_windows():
    train = load(toy_text(3000), 16, stride=4).splits["train"]
    first = StreamBatches(train, batch_size=8, batches=3, seed=7)
    x, y = first[0]
    again = StreamBatches(train, batch_size=8, batches=3, seed=7)
    np.testing.assert_array_equal(again[0][0], x)
    np.testing.assert_array_equal(again[0][1], y)
    assert not np.array_equal(StreamBatches(train, 8, 3, seed=8)[0][0], x)
    assert not np.array_equal(first[1][0], x)  # each batch of an epoch is drawn anew
    first.on_epoch_end()
    assert not np.array_equal(first[0][0], x)  # and each epoch
    stream = train.ids.tolist()
    for row_x, row_y in zip(x, y):
        np.testing.assert_array_equal(row_x[1:], row_y[:-1])  # the targets are the next ids
        starts = [s for s in range(len(stream) - 16) if stream[s:s + 16] == row_x.tolist()]
        assert any(stream[s + 16] == row_y[-1] for s in starts)  # a window of the stream, with its next id


def test_an_epoch_draws_the_windows_of_the_stride_and_the_loss_falls():
    from seqlab.models import build_model
    from seqlab.training import ExperimentSpec
    from seqlab.training.experiment import gradient_fit
    from seqlab.training.optimizer import compile_model

    data = load(toy_text(3000), 16, stride=4)
    spec = ExperimentSpec("pydoc", "lstm", {}, {"units": 32}, epochs=4, batch_size=16, learning_rate=1e-2).resolved()
    keras.utils.set_random_seed(0)
    model = compile_model(build_model("lstm", data, {"units": 32}), spec, data)
    batches, history = [], keras.callbacks.History()

    class Count(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            batches.append(batch)

    gradient_fit(model, data, spec, [Count(), history])
    per_epoch = math.ceil(len(data.splits["train"]) / spec.batch_size)  # as many windows as stride 4 cuts
    assert len(batches) == spec.epochs * per_epoch
    losses = history.history["loss"]
    assert losses[-1] < 0.8 * losses[0] and history.history["val_loss"][-1] < history.history["val_loss"][0]
