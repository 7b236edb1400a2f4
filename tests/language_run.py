"""One tiny language run (pydoc cut to 3,000 characters, 1 epoch, units 8), for the language tests."""

from pathlib import Path

from seqlab.runs import Run, RunStore

TINY_TEXT = {"characters": 3000, "lookback": 16, "stride": 16, "embedding_dim": 8}


def train_language_run(root: Path, model: str = "lstm", layers: int = 1, **data_options) -> Run:
    from seqlab.training import ExperimentSpec, run_experiment

    spec = ExperimentSpec(
        "pydoc", model, data_options={**TINY_TEXT, **data_options}, model_options={"units": 8, "layers": layers},
        epochs=1, batch_size=32,
    )  # fmt: skip
    return run_experiment(spec, store=RunStore(root))
