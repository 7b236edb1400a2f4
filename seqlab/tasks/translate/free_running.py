"""The free-running validation loss: the decoder fed its own previous tokens, as it is when it translates.

Logged at every epoch's end as ``val_free_running_loss`` beside Keras's
teacher-forced ``val_loss``; the gap between them is the exposure bias that
scheduled sampling (``teacher_forcing`` below 1) narrows.
"""

from __future__ import annotations

from seqlab.data.sequence_data import SequenceData
from seqlab.data.text_pairs import START_ID

FREE_RUNNING = "val_free_running_loss"


def free_running_callbacks(data: SequenceData) -> list:
    """A callback that logs ``val_free_running_loss`` at every epoch's end, beside Keras's teacher-forced
    ``val_loss`` (``seqlab.tasks.translate.translation.free_running_loss`` on the validation pairs)."""
    import keras

    from seqlab.tasks.translate.translation import free_running_loss

    val = data.splits["val"]

    class FreeRunningLoss(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if logs is not None and len(val):
                logs[FREE_RUNNING] = free_running_loss(self.model, val.x, val.y, START_ID)

    return [FreeRunningLoss()]
