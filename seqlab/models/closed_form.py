"""A closed-form fit shown as one epoch of one batch, so the live view and the history treat it like any run.

The echo state network (ridge regression), the Markov chain (counting) and the
hidden Markov model (Baum-Welch) are fitted without gradient descent; each
passes its solve to ``fit_in_closed_form``, which reports the training and
validation losses after it through the usual Keras callbacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import keras

    from seqlab.data.sequence_data import SequenceData


def fit_in_closed_form(
    model: keras.Model, data: SequenceData, callbacks: list, solve: Callable[[], None] | None = None
) -> None:
    """Run ``solve()`` (``None``: the model was fitted when built) between the callbacks of one batch."""
    import keras

    from seqlab.models.task_model import EVAL_BATCH_SIZE

    train, val = data.splits["train"], data.splits["val"]
    callbacks = keras.callbacks.CallbackList(callbacks, model=model, epochs=1, steps=1)
    model.stop_training = False
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    callbacks.on_train_batch_begin(0)
    if solve is not None:
        solve()
    logs = model.evaluate(train.inputs, train.y, batch_size=EVAL_BATCH_SIZE, return_dict=True, verbose=0)
    callbacks.on_train_batch_end(0, logs)
    val_logs = model.evaluate(val.inputs, val.y, batch_size=EVAL_BATCH_SIZE, return_dict=True, verbose=0)
    callbacks.on_epoch_end(0, {**logs, **{f"val_{k}": v for k, v in val_logs.items()}})
    callbacks.on_train_end()
