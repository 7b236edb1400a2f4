"""One table of the benchmarks: ``python -m seqlab bench [--quick] [--only NAME]``.

Each row measures one figure of seqlab beside its peer on this machine, through
the function of the bench script that prints it in full (the row's ``command``
reproduces the figure with the same settings). ``--quick`` runs every row
small, for a smoke test of the table (under two minutes on a 2-core CPU); the
figures worth quoting come from the full settings. A row whose peer is not
installed is skipped, with the reason, never an error. The table is written as
CSV and JSON to ``bench/results/<UTC time>.csv|json``.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import platform
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

RESULTS = Path(__file__).resolve().parent / "results"
INSTALL_PEERS = "pip install -r bench/requirements.txt"


@dataclass(frozen=True)
class Row:
    """One figure: ``measure(quick)`` gives ``(seqlab's, the peer's, the script's options that reproduce them)``."""

    name: str
    what: str
    peer: str
    better: str  # "higher" or "lower"
    script: str
    measure: Callable[[bool], tuple[float, float, str]]
    needs: str | None = None  # the peer's package, when it is not one of seqlab's own requirements


@dataclass(frozen=True)
class Result:
    name: str
    what: str
    peer: str
    better: str
    seqlab: float | None
    peer_figure: float | None
    ratio: float | None  # seqlab / peer
    seconds: float
    command: str
    skipped: str | None = None


def lstm_throughput(quick: bool) -> tuple[float, float, str]:
    from bench.recurrent_throughput import samples_per_second

    batches, epochs = (2, 2) if quick else (5, 20)
    rate = samples_per_second("LSTM", batches, epochs)
    return rate["seqlab"], rate["keras"], f"--layers LSTM --batches {batches} --epochs {epochs}"


def hmm_training(quick: bool) -> tuple[float, float, str]:
    from bench.hmm_baum_welch import corpus_and_start, hmmlearn_fit, seqlab_fit

    states, chars, length, iterations = (8, 5000, 500, 5) if quick else (8, 50_000, 500, 50)
    sequences, hmm = corpus_and_start(states, chars, length)
    theirs = hmmlearn_fit(hmm.pi, hmm.A, hmm.B, sequences, iterations)
    ours = seqlab_fit(hmm, sequences, iterations)
    return ours[2], theirs[2], f"--states {states} --chars {chars} --length {length} --iterations {iterations}"


def esn_free_run(quick: bool) -> tuple[float, float, str]:
    import numpy as np

    from bench.esn_mackey_glass import HORIZON, SETTINGS, TRAIN, mackey_glass, reservoirpy_esn, seqlab_esn

    settings = {**SETTINGS, "units": 200 if quick else SETTINGS["units"]}
    series = np.tanh(mackey_glass(TRAIN + HORIZON + 1) - 1.0)
    ours, theirs = seqlab_esn(series, 0, **settings), reservoirpy_esn(series, 0, **settings)
    return ours["nrmse"], theirs["nrmse"], f"--units {settings['units']} --seeds 1"


def grad_norm_epoch(quick: bool) -> tuple[float, float, str]:
    from bench.grad_norm_overhead import plain_and_ours

    epochs = 2 if quick else 6
    plain, ours = plain_and_ours("lstm", epochs, "constant")
    return ours, plain, f"--epochs {epochs}"


ROWS = (
    Row("lstm_throughput", "LSTM training, samples/s (batch 64, T 100, 32 features, 128 units)",
        "keras.layers.LSTM", "higher", "bench.recurrent_throughput", lstm_throughput),
    Row("hmm_baum_welch", "HMM Baum-Welch on pydoc characters, training s (same start, same iterations)",
        "hmmlearn", "lower", "bench.hmm_baum_welch", hmm_training, needs="hmmlearn"),
    Row("esn_mackey_glass", "ESN on Mackey-Glass tau=17, 84-step free-run NRMSE (seed 0)",
        "reservoirpy", "lower", "bench.esn_mackey_glass", esn_free_run, needs="reservoirpy"),
    Row("grad_norm_overhead", "energy LSTM, s per epoch logging grad_norm and learning_rate",
        "keras.Model's train step", "lower", "bench.grad_norm_overhead", grad_norm_epoch),
)


def run_row(row: Row, quick: bool) -> Result:
    """The row measured, or skipped when its peer is not installed."""
    command = f"python -m {row.script}"
    if row.needs and importlib.util.find_spec(row.needs) is None:
        return Result(row.name, row.what, row.peer, row.better, None, None, None, 0.0, command,
                      skipped=f"{row.needs} is not installed ({INSTALL_PEERS})")
    started = time.perf_counter()
    ours, theirs, options = row.measure(quick)
    return Result(row.name, row.what, row.peer, row.better, ours, theirs, ours / theirs if theirs else None,
                  round(time.perf_counter() - started, 1), f"{command} {options}")


def select(only: str | None) -> tuple[Row, ...]:
    if only is None:
        return ROWS
    chosen = tuple(row for row in ROWS if row.name == only)
    if not chosen:
        raise ValueError(f"Unknown bench row {only!r}; rows: {', '.join(row.name for row in ROWS)}.")
    return chosen


def table(results: list[Result]) -> str:
    """The results as aligned text: seqlab's figure, the peer's, their ratio and the command behind them."""
    lines = [f"{'row':<20} {'seqlab':>10} {'peer':>10} {'ratio':>7}  {'better':<6}  peer / command"]
    for r in results:
        if r.skipped:
            lines.append(f"{r.name:<20} {'-':>10} {'-':>10} {'-':>7}  {r.better:<6}  skipped: {r.skipped}")
            continue
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        lines.append(f"{r.name:<20} {r.seqlab:>10.4g} {r.peer_figure:>10.4g} {ratio:>7}  {r.better:<6}  "
                     f"{r.peer}: {r.command}")
        lines.append(f"{'':<20} {r.what}")
    return "\n".join(lines)


def write(results: list[Result], quick: bool, folder: Path = RESULTS) -> tuple[Path, Path]:
    """``<UTC time>.csv`` and ``.json`` of ``results`` in ``folder``; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    rows = [asdict(r) for r in results]
    csv_path, json_path = folder / f"{stamp}.csv", folder / f"{stamp}.json"
    with open(csv_path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    machine = {"platform": platform.platform(), "python": platform.python_version(), "cpus": os.cpu_count(),
               "load_average": os.getloadavg()[0]}
    json_path.write_text(json.dumps({"created": stamp, "quick": quick, "machine": machine, "rows": rows}, indent=1))
    return csv_path, json_path
