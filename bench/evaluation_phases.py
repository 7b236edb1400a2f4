"""Where a language run's time goes after training: the seconds of each phase of ``run_experiment``.

    python -m bench.evaluation_phases [--model gpt|lstm] [--runs 2] [--steps 30]

``gpt``: the GPT lesson's run (``gpt-generation``: 1 M characters of Shakespeare, 2 blocks of width 64);
``lstm``: the ``shakespeare-char`` preset's LSTM (256 units, all of Shakespeare: 4.55 M training characters,
7,902 test windows of 64; the data limit is raised for it, as a server that runs that preset has it). Each
is trained ``--steps`` batches only (how long the evaluation takes does not depend on the weights), ``--runs``
times on the same data with another seed each, as a lesson's runs or a sweep's are. The baselines' cache
(``$SEQLAB_CACHE/baselines``) is emptied first, so the first run computes them.

Each phase is timed from the events as they arrive (the event that begins it to the one that begins the
next), so the script times code before the evaluation had its own events as well: loading and building
(first event to training's start), training, evaluation (its status to the next status), saving and export
(to the end); where the evaluation reports its progress, its predictions and its baselines too. Wall seconds
and this process's CPU seconds (all its threads): on a machine other work shares, the CPU seconds compare.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import replace

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("SEQLAB_MAX_DATA_MB", "2048")  # counting the Markov chains of all of Shakespeare: 521 MB

from seqlab.data.corpora.cache import cache_dir  # noqa: E402
from seqlab.lessons import LESSONS  # noqa: E402
from seqlab.runs import RunStore  # noqa: E402
from seqlab.training import ExperimentSpec, run_experiment  # noqa: E402
from seqlab.training.presets import PRESETS  # noqa: E402


def spec_of(model: str, steps: int) -> ExperimentSpec:
    if model == "gpt":
        spec = LESSONS.get("gpt-generation").preset.specs[0]
    else:
        spec = next(s for s in PRESETS["shakespeare-char"].specs if s.model == "lstm")
    return replace(spec, steps=steps, epochs=1, warmup_steps=0, steps_per_execution=1)


def phase_seconds(timed: list[tuple[int, float, dict]], clock: int) -> dict[str, float]:
    """Seconds of each phase from ``(index, wall, cpu, event)`` rows, by the ``clock``'th of the two."""
    def first(test, after=-1):
        return next(row for row in timed if row[0] > after and test(row[-1]))

    began, start = timed[0], first(lambda e: e["type"] == "start")
    evaluating = first(lambda e: e["type"] == "status" and e["message"].startswith("evaluating"))
    saving = first(lambda e: e["type"] == "status", after=evaluating[0])
    end = first(lambda e: e["type"] == "end")
    spans = {"load and build": (began, start), "train": (start, evaluating), "evaluate": (evaluating, saving),
             "save and export": (saving, end)}
    for part, message in (("predict", "predicting"), ("baselines", "computing the baselines")):
        rows = [row for row in timed if row[-1]["type"] == "progress" and row[-1]["message"].startswith(message)]
        if rows:
            spans[f"  of which {part}"] = (rows[0], rows[-1])
    return {phase: end[clock] - begin[clock] for phase, (begin, end) in spans.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("gpt", "lstm"), default="gpt")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    shutil.rmtree(cache_dir("baselines"), ignore_errors=True)
    spec = spec_of(args.model, args.steps)
    with tempfile.TemporaryDirectory() as root:
        for run in range(args.runs):
            timed = []
            run_experiment(replace(spec, seed=run), store=RunStore(root),
                           on_event=lambda e: timed.append((len(timed), time.monotonic(), time.process_time(), e)))
            print(f"{args.model}, run {run + 1} of {args.runs} on the same data:   wall s    CPU s", flush=True)
            for (phase, wall), cpu in zip(phase_seconds(timed, 1).items(), phase_seconds(timed, 2).values()):
                print(f"  {phase:<22} {wall:13.1f} {cpu:8.1f}", flush=True)


if __name__ == "__main__":
    main()
