"""Every run writes TensorBoard event files inside its folder, read back here with TensorBoard's own reader."""

import zipfile
from io import BytesIO

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.util.tensor_util import make_ndarray

from seqlab.export import zip_bytes
from seqlab.manifest import verify_folder
from seqlab.run_import import import_run
from seqlab.runs import RunStore
from seqlab.training import ExperimentSpec, run_experiment
from seqlab.training.tensorboard_logs import PROJECTOR_CONFIG

TINY = dict(model_options={"units": 4}, data_options={"length": 400, "lookback": 12, "horizon": 4}, batch_size=32)


@pytest.fixture(scope="module")
def forecast_run(tmp_path_factory):
    return run_experiment(ExperimentSpec("sine", "gru", epochs=2, **TINY),
                          store=RunStore(tmp_path_factory.mktemp("tb_runs")), savedmodel=False)


def scalars(folder) -> dict[str, list]:
    """tag -> [(step, value)] of the event files in ``folder`` (TensorBoard 2's scalars are tensors)."""
    events = EventAccumulator(str(folder), size_guidance={"tensors": 0})  # 0: keep every point, not a sample
    events.Reload()
    return {tag: [(e.step, float(make_ndarray(e.tensor_proto))) for e in events.Tensors(tag)]
            for tag in events.Tags()["tensors"]}


def test_batch_and_epoch_curves_match_the_history(forecast_run):
    train = scalars(forecast_run.path / "tensorboard" / "train")
    validation = scalars(forecast_run.path / "tensorboard" / "validation")
    batches, epochs = forecast_run.history["batch"], forecast_run.history["epoch"]
    assert set(train) == {"batch_loss", "batch_grad_norm", "batch_learning_rate", "epoch_loss", "epoch_mae",
                          "epoch_learning_rate"}
    assert [step for step, _ in train["batch_loss"]] == [b["global_step"] for b in batches]
    np.testing.assert_allclose([v for _, v in train["batch_loss"]], [b["batch_loss"] for b in batches], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in train["batch_grad_norm"]], [b["grad_norm"] for b in batches],
                               rtol=1e-6)
    assert [step for step, _ in train["epoch_loss"]] == [1, 2]
    assert "epoch_val_loss" not in train and [step for step, _ in validation["epoch_loss"]] == [1, 2]
    np.testing.assert_allclose([v for _, v in validation["epoch_loss"]], [e["val_loss"] for e in epochs], rtol=1e-6)
    np.testing.assert_allclose([v for _, v in train["epoch_mae"]], [e["mae"] for e in epochs], rtol=1e-6)


def test_event_files_are_signed_and_stay_out_of_the_zip(forecast_run, tmp_path):
    assert verify_folder(forecast_run.path) is None  # the manifest covers the event files
    data = zip_bytes(forecast_run)
    assert not any("tensorboard/" in name for name in zipfile.ZipFile(BytesIO(data)).namelist())
    imported = import_run(RunStore(tmp_path / "other"), "run.zip", data)
    assert imported.metrics == forecast_run.metrics and not (imported.path / "tensorboard").exists()
    event_file = next((forecast_run.path / "tensorboard" / "train").glob("events.out.tfevents.*"))
    with open(event_file, "ab") as file:
        file.write(b"\0")
    assert "changed after seqlab wrote it" in verify_folder(forecast_run.path)


def test_an_embedding_goes_to_the_projector_labelled_with_its_tokens(tiny_language_run):
    train = tiny_language_run.path / "tensorboard" / "train"
    config = (train / PROJECTOR_CONFIG).read_text()
    assert 'tensor_path: "embedding_0.tsv"' in config and 'metadata_path: "embedding_0_labels.tsv"' in config
    matrix = np.loadtxt(train / "embedding_0.tsv", delimiter="\t", ndmin=2)
    vocab = tiny_language_run.load_tokenizer().vocab
    assert matrix.shape == (len(vocab), 8)  # TINY_TEXT's embedding_dim
    assert len((train / "embedding_0_labels.tsv").read_text(encoding="utf-8").splitlines()) == len(vocab)
    weights = {w.path: w for w in tiny_language_run.load_model().weights}
    name = config.split('tensor_name: "')[1].split('"')[0]
    np.testing.assert_allclose(matrix, np.asarray(weights[name]), rtol=1e-5, atol=1e-6)
