"""The command line: ``python -m seqlab <command> ...``.

Commands: datasets, models, presets, train, runs, export, predict. Errors in
names or values exit with code 2 and one line on stderr, never a traceback.
With ``--json`` the last line on stdout is one JSON object (or list).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from seqlab.data import TASKS, list_datasets
from seqlab.export import FORMATS
from seqlab.models import list_architectures
from seqlab.runs import RunStore

EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument("--runs-dir", help="run store folder (default: $SEQLAB_RUNS_DIR or ./saved_models)")

    parser = argparse.ArgumentParser(prog="python -m seqlab", description="seqlab: sequence models on Keras 3.")
    sub = parser.add_subparsers(dest="command", required=True)

    for name, helptext in (("datasets", "list datasets"), ("models", "list architectures")):
        p = sub.add_parser(name, parents=[common], help=helptext)
        p.add_argument("--task", choices=TASKS, help="only those for this task kind")

    sub.add_parser("presets", parents=[common], help="list the named lessons (train them with --preset)")

    p = sub.add_parser("train", parents=[common, store], help="train a model (or a preset's models) and write runs")
    p.add_argument("--dataset")
    p.add_argument("--model")
    p.add_argument("--preset", help="train every spec of this preset instead of --dataset/--model")
    p.add_argument("--epochs", type=int)
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a spec field, data option or model option, e.g. --set units=32 --set lookback=48 "
        "(with --preset: applied to each of its specs)",
    )

    sub.add_parser("runs", parents=[common, store], help="list saved runs")

    p = sub.add_parser("export", parents=[store], help="export a run's model")
    p.add_argument("run_id")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--to", required=True, help="destination path (must not exist)")

    p = sub.add_parser("predict", parents=[common, store], help="forecast from the last rows of a CSV")
    p.add_argument("run_id")
    p.add_argument("--input", required=True, help="CSV with the model's feature columns")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_USAGE


def cmd_datasets(args) -> int:
    rows = [d.as_dict() for d in list_datasets(args.task)]
    if args.json:
        print(json.dumps(rows))
    else:
        for d in rows:
            print(f"{d['name']:<12} {d['task']:<10} {d['title']}")
    return 0


def cmd_models(args) -> int:
    rows = [a.as_dict() for a in list_architectures(args.task)]
    if args.json:
        print(json.dumps(rows))
    else:
        for a in rows:
            defaults = " ".join(f"{k}={v}" for k, v in a["options"].items())
            print(f"{a['name']:<12} {','.join(a['tasks']):<10} {a['title']}  [{defaults}]")
    return 0


def cmd_presets(args) -> int:
    from seqlab.training.presets import PRESETS

    rows = [p.as_dict() for p in PRESETS.values()]
    if args.json:
        print(json.dumps(rows))
    else:
        for p in rows:
            models = ", ".join(f"{s['model']} on {s['dataset']}" for s in p["specs"])
            print(f"{p['name']:<24} {p['title']}\n{'':<24} {models}")
    return 0


def cmd_train(args) -> int:
    from seqlab.training import ExperimentSpec
    from seqlab.training.jobs import JobManager
    from seqlab.training.presets import get_preset

    if args.preset is not None and (args.dataset or args.model):
        raise ValueError("--preset replaces --dataset and --model; give one or the other.")
    if args.preset is None and not (args.dataset and args.model):
        raise ValueError("give --dataset and --model, or --preset NAME (list them: python -m seqlab presets).")
    overrides = dict(parse_assignment(s) for s in args.set)
    if args.epochs is not None:
        overrides["epochs"] = args.epochs
    if args.preset is None:
        specs = [ExperimentSpec(args.dataset, args.model)]
    else:
        specs = list(get_preset(args.preset).specs)
    # Check every spec before the first one trains.
    specs = [spec.with_overrides(overrides).resolved() for spec in specs]
    manager = JobManager(RunStore(args.runs_dir))
    results = []
    for spec in specs:
        result = train_one(manager, spec, args.json)
        if isinstance(result, int):  # failed: its exit code
            return result
        results.append(result)
        if result["status"] == "cancelled":  # Ctrl-C stops the whole preset
            break
    if args.json:
        print(json.dumps(results[0] if args.preset is None else {"preset": args.preset, "runs": results}))
    return 0


def train_one(manager, spec, quiet: bool) -> dict | int:
    """Train ``spec`` with a progress bar on stderr: the result, or an exit code on failure."""
    from seqlab.cli_progress import ProgressBar

    job = manager.submit(spec)
    bar = ProgressBar(sys.stderr)
    seen = 0
    try:
        while not job.done:
            seen = bar.update(job.events_since(seen), seen)
            time.sleep(0.2)
    except KeyboardInterrupt:  # Ctrl-C cancels cleanly: the run is written, marked cancelled
        print("\ncancelling after the current batch ...", file=sys.stderr)
        job.cancel()
        manager.wait(job)
    bar.update(job.events_since(seen), seen)
    bar.close()
    if job.status == "failed":
        print(f"error: {job.error}", file=sys.stderr)
        return EXIT_USAGE if job.invalid else 1
    run = job.run
    if not quiet:
        print(f"run {run.run_id} ({run.status}) written to {run.path}")
        print(format_metrics(run.metrics))
    return {
        "run_id": run.run_id,
        "path": str(run.path),
        "status": run.status,
        "task": run.meta["task"],
        "metrics": run.metrics["model"],
        "baselines": run.metrics["baselines"],
    }


def cmd_runs(args) -> int:
    store = RunStore(args.runs_dir)
    runs = store.list()
    if args.json:
        print(json.dumps([{"run_id": r.run_id, "path": str(r.path), "status": r.status,
                           "spec": r.spec, "metrics": r.metrics} for r in runs]))
        return 0
    if not runs:
        print(f"no runs in {store.root}; train one with: python -m seqlab train --dataset energy --model lstm")
    for r in runs:
        figures = "  ".join(f"{k} {v:.4g}" for k, v in r.metrics["model"].items())
        print(f"{r.run_id:<40} {r.status:<10} {figures}")
    for name, reason in store.broken().items():
        print(f"warning: {name}: {reason}", file=sys.stderr)
    return 0


def cmd_export(args) -> int:
    from seqlab.export import export_run

    path = export_run(RunStore(args.runs_dir).read(args.run_id), args.format, args.to)
    print(f"exported {args.run_id} as {args.format} to {path}")
    return 0


def cmd_predict(args) -> int:
    from seqlab.export import predict_frame, read_csv

    run = RunStore(args.runs_dir).read(args.run_id)
    forecast = predict_frame(run, read_csv(args.input))
    if args.json:
        print(json.dumps({"run_id": run.run_id, "target": run.meta["target"],
                          "forecast": forecast[run.meta["target"]].tolist()}))
    else:
        print(forecast.to_string(index=False))
    return 0


def parse_assignment(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--set expects KEY=VALUE, got {text!r}.")
    return key.strip(), value.strip()


def format_metrics(metrics: dict) -> str:
    """The model and its baselines as rows, the task's metrics as columns."""
    rows = {"model": metrics["model"], **metrics["baselines"]}
    names = list(metrics["model"])
    lines = [f"{'':<22}" + "".join(f"{n:>15}" for n in names)]
    for row, m in rows.items():
        lines.append(f"{row:<22}" + "".join(f"{m[n]:>15.4f}" for n in names))
    return "\n".join(lines)


COMMANDS = {
    "datasets": cmd_datasets,
    "models": cmd_models,
    "presets": cmd_presets,
    "train": cmd_train,
    "runs": cmd_runs,
    "export": cmd_export,
    "predict": cmd_predict,
}
