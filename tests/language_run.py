"""One tiny language run (pydoc cut to 3,000 characters, 1 epoch, units 8), for the language tests: trained without
its SavedModel, which a test that serves it makes (``seqlab.late_export.add_savedmodel``, as the Results page does)."""

from pathlib import Path

from seqlab.runs import Run

TINY_TEXT = {"characters": 3000, "lookback": 16, "stride": 16, "embedding_dim": 8}


def train_language_run(root: Path, model: str = "lstm", layers: int = 1, **data_options) -> Run:
    """The run in the store at ``root``: a signed copy of the one trained once this session on the same settings
    (``tests.shared_store``; a store that already holds that run gets a freshly trained one)."""
    from tests.cli_store import copy_run
    from tests.shared_store import SharedStore

    key = "-".join([model, str(layers), *(f"{k}={v}" for k, v in sorted(data_options.items()))])
    [source] = SharedStore("language_runs").once(key, lambda store: [_train(store.root, model, layers, data_options)])
    if (Path(root) / source.run_id).exists():
        return _train(root, model, layers, data_options)
    return copy_run(Path(root), source, source.run_id)


def _train(root: Path, model: str, layers: int, data_options: dict) -> Run:
    from seqlab.runs import RunStore
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec(
        "pydoc", model, data_options={**TINY_TEXT, **data_options}, model_options={"units": 8, "layers": layers},
        epochs=1, batch_size=32,
    )  # fmt: skip
    return run_experiment(spec, store=RunStore(root), savedmodel=False)
