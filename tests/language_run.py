"""One tiny language run (pydoc cut to 3,000 characters, 1 epoch, units 8), for the language tests."""

import tempfile
from pathlib import Path

from seqlab.runs import Run, RunStore

TINY_TEXT = {"characters": 3000, "lookback": 16, "stride": 16, "embedding_dim": 8}


# (model, layers, data options) -> that run, trained once per test process in a store of its own
_TRAINED: dict[tuple, Run] = {}
_STORE = tempfile.TemporaryDirectory(prefix="seqlab_language_runs_")  # removed when the process ends


def train_language_run(root: Path, model: str = "lstm", layers: int = 1, **data_options) -> Run:
    """The run in the store at ``root``: a signed copy of the one trained earlier in this process on the same
    settings, else trained now (a store that already holds that run gets a freshly trained one)."""
    from tests.cli_store import copy_run

    key = (model, layers, tuple(sorted(data_options.items())))
    if key not in _TRAINED:
        _TRAINED[key] = _train(Path(_STORE.name), model, layers, data_options)
    source = _TRAINED[key]
    if (Path(root) / source.run_id).exists():
        return _train(root, model, layers, data_options)
    return copy_run(Path(root), source, source.run_id)


def _train(root: Path, model: str, layers: int, data_options: dict) -> Run:
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec(
        "pydoc", model, data_options={**TINY_TEXT, **data_options}, model_options={"units": 8, "layers": layers},
        epochs=1, batch_size=32,
    )  # fmt: skip
    return run_experiment(spec, store=RunStore(root))
