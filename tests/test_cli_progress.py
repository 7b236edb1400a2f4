import io

from seqlab.cli_progress import ProgressBar


def batch(step, global_step, loss=0.5):
    return {"type": "batch", "epoch": 1, "step": step, "global_step": global_step, "loss": loss, "elapsed": float(global_step)}


def test_bar_draws_the_latest_batch_once_per_update_and_ends_epochs_on_their_own_line():
    stream = io.StringIO()
    bar = ProgressBar(stream)
    seen = bar.update([{"type": "start", "epochs": 2, "steps_per_epoch": 4, "device": "CPU (2 cores)"}], 0)
    seen = bar.update([batch(1, 1), batch(2, 2, loss=0.25)], seen)
    assert seen == 3
    out = stream.getvalue()
    assert "training on CPU (2 cores)" in out
    assert out.count("\r[") == 1 and "25.0%" in out and "loss 0.25" in out  # only the newest batch drawn
    bar.update([{"type": "epoch", "epoch": 1, "loss": 0.3, "val_loss": 0.2}], seen)
    bar.close()
    assert "\nepoch 1/2  loss 0.3  val_loss 0.2\n" in stream.getvalue()
