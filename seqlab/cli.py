"""The command line: ``python -m seqlab <command> ...``.

Commands: datasets, models, presets, train, runs, export, predict, generate, fill, delete, bench.
Every error (a bad name or value, an unreadable file, a refused path) exits
with code 2 and one line on stderr, never a traceback. With ``--json`` the last
line on stdout is one strict JSON object (or list): NaN and infinities, e.g. of
a diverged run, are written as ``null``. Metrics print as the dashboard shows
them (``seqlab.tasks.metrics``): accuracy in %, errors in the target's unit.

The listing commands (datasets, models, presets, runs) never import
TensorFlow, so they answer at once; train and predict import it, muted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

from seqlab.backend import BACKEND_ENV, BACKENDS, choose_backend
from seqlab.data import TASKS, list_datasets
from seqlab.decoding.arguments import check_length_penalty, check_temperature, check_top_p
from seqlab.export import FORMATS, export_run, predict_frame, predict_texts, text_notes
from seqlab.forecasting.exogenous import FUTURE_INPUTS
from seqlab.forecasting.strategy_catalogue import STRATEGIES
from seqlab.inputs import read_csv
from seqlab.models import list_architectures
from seqlab.quiet import quiet_tensorflow_import
from seqlab.run_name import check_name
from seqlab.runs import Run, RunStore, json_safe
from seqlab.training.executors import EXECUTORS, RAY_ADDRESS_ENV, executor_from
from seqlab.tasks import get_metric, get_task, ordered_metrics, shown_metrics

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
RUN_ID_HELP = "a run's id, as python -m seqlab runs lists it"


class Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line like every other error of the CLI."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"error: {message} (see: {self.prog} --help)\n")


def checked_float(check):
    """An argparse type: a float that the library's own ``check`` accepts (finite, in range), refused when parsed.

    So a float option is refused before any run is read, whatever path the
    command takes later (greedy translation never reads the length penalty).
    """

    name = check.__name__.removeprefix("check_")

    def parse(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}.") from None
        try:
            return check(number)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.result_type = float  # what the reference (seqlab.cli_reference) calls it: a number
    return parse


def build_parser() -> argparse.ArgumentParser:
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable JSON")
    store = Parser(add_help=False)
    store.add_argument("--runs-dir", help="run store folder (default: $SEQLAB_RUNS_DIR or ./saved_models)")
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--executor", choices=EXECUTORS, help="where jobs train: local (this process, the default) "
                       f"or ray (a Ray cluster: --ray-address, default ${RAY_ADDRESS_ENV}; set, it picks ray)")
    where.add_argument("--ray-address", help="the Ray cluster to train on, e.g. 10.0.0.5:6379 ('auto': the one "
                       "this machine joined with ray start)")

    parser = Parser(prog="python -m seqlab", description="seqlab: sequence models on Keras 3.")
    sub = parser.add_subparsers(dest="command", required=True)

    for name, helptext in (("datasets", "list datasets"), ("models", "list architectures")):
        p = sub.add_parser(name, parents=[common], help=helptext)
        p.add_argument("--task", choices=TASKS, help="only those for this task kind")

    sub.add_parser("presets", parents=[common], help="list the named lessons (train them with --preset)")

    p = sub.add_parser("train", parents=[common, store, where],
                       help="train a model (or a preset's models) and write runs")
    p.add_argument(
        "--dataset",
        help="a dataset's name; text:PATH (a text file), pairs:PATH (tab-separated translation pairs), "
        "textcsv:PATH or csv:PATH (a series: --set target=COLUMN, time=COLUMN, exogenous=A,B, known=A) "
        "to train on your own file",
    )
    p.add_argument("--model", help="an architecture's name (python -m seqlab models lists those that fit each task)")
    p.add_argument("--preset", help="train every spec of this preset instead of --dataset/--model; a run trained "
                   "before with the same spec, seed, data and code is reused, not trained again")
    p.add_argument("--retrain", action="store_true",
                   help="with --preset: train every run again, even those trained before")
    p.add_argument("--backend", choices=BACKENDS,
                   help="Keras's backend to train with (default $KERAS_BACKEND, else tensorflow); under jax a "
                   "TensorFlow process writes the SavedModel, or python -m seqlab export RUN_ID later where "
                   "TensorFlow is missing")
    p.add_argument("--epochs", type=int, help="the same as --set epochs=N")
    p.add_argument("--devices", type=int, help="split every batch over N devices (data parallel: the GPUs, else "
                   "the CPUs made visible as several); the same as --set devices=N")
    p.add_argument("--name", help='your name for the run (each run of a --preset), e.g. "lstm 64 units, '
                   'lr 1e-3": one line, at most 80 characters; without it, a preset names each run by the '
                   'preset and the options that set the run apart')
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="a spec field, data option or model option, e.g. --set units=32 --set lookback=48 "
        "(with --preset: applied to each of its specs)",
    )
    p.add_argument("--no-savedmodel", dest="savedmodel", action="store_false",
                   help="leave each run's SavedModel for later, made when it is needed (python -m seqlab export "
                   "RUN_ID, or the Results page): a translator's or a GPT's export takes seconds of its own")

    p = sub.add_parser("sweep", parents=[common, store, where],
                       help="train one model at every point of a grid of settings; print the runs best first")
    p.add_argument("--dataset", required=True, help="a dataset's name (as train's --dataset)")
    p.add_argument("--model", required=True, help="an architecture's name")
    p.add_argument("--grid", action="append", required=True, metavar="KEY=V1,V2",
                   help="a setting and its values, e.g. --grid units=16,32 --grid learning_rate=1e-3,3e-3 "
                   "(every combination trains; each run is named by the settings that vary)")
    p.add_argument("--budget", action="append", default=[], metavar="KEY=VALUE",
                   help="a setting every point shares, e.g. --budget epochs=3 or --budget steps=200")
    p.add_argument("--no-savedmodel", dest="savedmodel", action="store_false",
                   help="leave each point's SavedModel for later: make the best one's with python -m seqlab "
                   "export RUN_ID")

    sub.add_parser("runs", parents=[common, store], help="list saved runs (broken ones with the reason)")

    p = sub.add_parser("export", parents=[store], help="export a run's model (or make the SavedModel it lacks)")
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--format", choices=FORMATS, help="with --to; without both, write the SavedModel into a run "
                   "that lacks it (trained with --no-savedmodel, or under jax where TensorFlow was missing)")
    p.add_argument("--to", help="destination path outside the run store (must not exist)")

    p = sub.add_parser(
        "predict", parents=[common, store], help="forecast from the last rows of a CSV, or classify a text"
    )
    p.add_argument("run_id", help=RUN_ID_HELP)
    given = p.add_mutually_exclusive_group(required=True)
    given.add_argument("--input", help="CSV with the model's feature columns (a forecast run)")
    given.add_argument("--text", action="append", help="a text to classify or tag (a text run); repeat for more")
    p.add_argument(
        "--trust", action="store_true",
        help="load the run's SavedModel even though seqlab did not write it (a SavedModel is code)",
    )

    p = sub.add_parser(
        "forecast", parents=[common, store],
        help="score a forecast run's multi-step strategy over its test period, beside the peers",
    )
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--strategy", default="direct", choices=list(STRATEGIES), help="default direct")
    p.add_argument("--horizon", type=int, help="steps ahead (default the model's own H; iterated ones go further)")
    p.add_argument("--future-inputs", default="known", choices=list(FUTURE_INPUTS),
                   help="the exogenous inputs after the origin: actual values, the training mean, or their own model")
    p.add_argument("--samples", type=int, default=200, help="sampled futures of a Monte-Carlo strategy")
    p.add_argument("--every", type=int, default=1, help="score every N-th test origin only (faster)")
    p.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo noise")

    p = sub.add_parser("generate", parents=[common, store], help="continue a prompt with a language run")
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--prompt", required=True, help="the text to continue")
    p.add_argument("--tokens", type=int, default=200, help="how many tokens to add (default 200)")
    p.add_argument("--temperature", type=checked_float(check_temperature), default=1.0,
                   help="below 1 sharper, above 1 flatter, 0 greedy")
    p.add_argument("--top-k", type=int, help="draw only from the K most probable tokens")
    p.add_argument("--top-p", type=checked_float(check_top_p),
                   help="draw only from the most probable tokens whose mass reaches P")
    p.add_argument("--seed", type=int, help="seed of the draws, for a repeatable sample")

    p = sub.add_parser("translate", parents=[common, store], help="translate texts with an encoder-decoder run")
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--text", action="append", required=True, help="a source text; repeat for more")
    p.add_argument("--beam", type=int, default=1, help="beam width (default 1: greedy)")
    p.add_argument("--length-penalty", type=checked_float(check_length_penalty), default=0.0,
                   help="GNMT's alpha for the beam (default 0)")

    p = sub.add_parser("fill", parents=[common, store], help="guess the [MASK] words of a text with a BERT run")
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--text", required=True, help="a text with [MASK] where a word is missing")
    p.add_argument("--top", type=int, default=5, help="guesses per [MASK] (default 5)")

    p = sub.add_parser("delete", parents=[store], help="delete a run, readable or broken")
    p.add_argument("run_id", help=RUN_ID_HELP)
    p.add_argument("--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)")

    p = sub.add_parser("bench", parents=[common], help="measure seqlab beside its peers (from the repository root)")
    p.add_argument("--quick", action="store_true", help="every row small: a smoke test, not figures to quote")
    p.add_argument("--only", help="one row by its name, e.g. hmm_baum_welch")
    p.add_argument("--results", help="folder for the CSV and JSON (default bench/results)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, OSError) as err:  # OSError: a file system refusal, e.g. permission denied
        print(f"error: {describe(err)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # Ctrl-C outside training (which handles it itself)
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


# ---------------------------------------------------------------- listing (no TensorFlow)


def cmd_datasets(args) -> int:
    rows = [d.as_dict() for d in list_datasets(args.task)]
    if args.json:
        print_json(rows)
    else:
        width = max((len(d["name"]) for d in rows), default=0)
        for d in rows:
            print(f"{d['name']:<{width}}  {d['task']:<10} {d['title']}")
    return 0


def cmd_models(args) -> int:
    rows = [a.as_dict() for a in list_architectures(args.task)]
    if args.json:
        print_json(rows)
    else:
        width = max((len(a["name"]) for a in rows), default=0)
        for a in rows:
            defaults = " ".join(f"{k}={v}" for k, v in a["options"].items())
            print(f"{a['name']:<{width}}  {','.join(a['tasks']):<10} {a['title']}  [{defaults}]")
    return 0


def cmd_presets(args) -> int:
    from seqlab.lessons import all_presets

    rows = [p.as_dict() for p in all_presets().values()]
    if args.json:
        print_json(rows)
    else:
        for p in rows:
            models = ", ".join(f"{s['model']} on {s['dataset']}" for s in p["specs"])
            print(f"{p['name']:<24} {p['title']}\n{'':<24} {models}")
    return 0


def cmd_runs(args) -> int:
    store = open_store(args)
    runs, broken = store.scan()
    if args.json:
        print_json({
            "runs": [{"run_id": r.run_id, "name": r.name, "imported": r.imported, "path": str(r.path),
                      "status": r.status, "task": r.meta.task, "spec": r.spec, "metrics": r.metrics} for r in runs],
            "broken": [{"run_id": name, "reason": reason} for name, reason in broken.items()],
        })
        return 0
    if not runs and not broken:
        print(f"no runs in {store.root}; train one with: python -m seqlab train --dataset energy --model lstm")
    for r in runs:
        named = f"  {r.name!r}" if r.name else ""  # quoted: a name may hold blanks
        badge = "  [imported]" if r.imported else ""
        print(f"{r.run_id:<40} {r.status:<10} {scores_line(r)}{skill_text(r)}{named}{badge}")
    for name, reason in broken.items():
        print(f"broken: {name}: {one_line(reason)} (remove it: python -m seqlab delete {shlex.quote(name)})",
              file=sys.stderr)
    return 0


# ---------------------------------------------------------------- training


def cmd_train(args) -> int:
    from seqlab.lessons import get_preset

    if args.preset is not None and (args.dataset or args.model):
        raise ValueError("--preset replaces --dataset and --model; give one or the other.")
    if args.preset is None and not (args.dataset and args.model):
        raise ValueError("give --dataset and --model, or --preset NAME (list them: python -m seqlab presets).")
    if args.retrain and args.preset is None:
        raise ValueError("--retrain applies to --preset, whose runs are otherwise reused; a plain train always trains.")
    backend = args.backend or os.environ.get(BACKEND_ENV) or "tensorflow"
    choose_backend(backend)  # before anything imports Keras: it picks its backend once
    overrides = training_overrides(args)
    name = check_name(args.name)
    if args.preset is None:
        specs, names = [dataset_spec(args.dataset, args.model)], [name]
    else:
        preset = get_preset(args.preset)
        specs, names = list(preset.specs), [name] * len(preset.specs) if name else preset.run_names()
    # Check every spec (and the store) before the first one trains, and before TensorFlow's start-up.
    specs = [spec.with_overrides(overrides).resolved() for spec in specs]
    store = open_store(args)
    store.check_writable()  # a read-only store, or one below a file, fails now rather than after training
    if backend == "tensorflow":  # under jax, training imports no TensorFlow
        quiet_tensorflow_import()
    from seqlab.training.jobs import JobManager

    manager = JobManager(store, executor_from(args.executor, args.ray_address))
    results = []
    with CtrlC() as ctrl_c:
        for spec, run_name in zip(specs, names):
            if ctrl_c.pressed:  # Ctrl-C between two runs of a preset: start no more
                break
            result = train_one(manager, spec, ctrl_c, args.json, run_name, reuse=args.preset is not None
                               and not args.retrain, savedmodel=args.savedmodel)
            if isinstance(result, int):  # failed: its exit code
                return result
            results.append(result)
            if result["status"] == "cancelled":  # Ctrl-C stops the whole preset
                break
        if args.json:  # still inside: a late Ctrl-C must not cut the one line of JSON
            print_json(results[0] if args.preset is None else {"preset": args.preset, "runs": results})
    if ctrl_c.pressed:  # cancelled and saved: the process only has to end, a late press must not fail it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return 0


def cmd_sweep(args) -> int:
    from seqlab.training.sweep import grid_specs, leaderboard, parse_grid

    budget = dict(parse_assignment(item, "--budget") for item in args.budget)
    specs = grid_specs(dataset_spec(args.dataset, args.model), parse_grid(args.grid), budget)
    store = open_store(args)
    store.check_writable()
    quiet_tensorflow_import()
    from seqlab.training.jobs import JobManager

    manager = JobManager(store, executor_from(args.executor, args.ray_address))
    results = []
    with CtrlC() as ctrl_c:
        for spec, name in specs:
            if ctrl_c.pressed:
                break
            result = train_one(manager, spec, ctrl_c, True, name, savedmodel=args.savedmodel)
            if isinstance(result, int):  # failed: its error is printed; the sweep goes on
                result = {"run_id": None, "name": name, "status": "failed", "metrics": {}}
            results.append(result)
            if result["status"] == "cancelled":  # Ctrl-C stops the whole sweep
                break
        board = leaderboard(results, specs[0][0].task)
        if args.json:
            print_json({"sweep": board})
        else:
            print(leaderboard_table(board, specs[0][0].task))
    return 0


def leaderboard_table(board: list[dict], task: str) -> str:
    """The sweep's runs best first: rank, name, status, the task's test metrics, run id."""
    keys = ordered_metrics({k for r in board for k in r["metrics"]}, task)
    width = max([4] + [len(r["name"] or "") for r in board])
    lines = [f"{'#':>2}  {'run':<{width}}  {'status':<10}" + "".join(f"{k:>10}" for k in keys) + "  run id"]
    for place, r in enumerate(board, start=1):
        values = "".join(f"{displayed(k, r['metrics'].get(k)):>10}" for k in keys)
        lines.append(f"{place:>2}  {r['name'] or '':<{width}}  {r['status']:<10}{values}  {r['run_id'] or '–'}")
    return "\n".join(lines)


def dataset_spec(dataset: str, model: str):
    """The spec of ``--dataset NAME``; ``NAME:PATH`` is a dataset that reads your own file (``text:PATH``,
    ``csv:PATH``), pinned to that file's SHA-256."""
    from seqlab.data.pinned_file import FILE_DEFAULTS, file_options
    from seqlab.training import ExperimentSpec

    name, sep, path = dataset.partition(":")
    if not sep:
        return ExperimentSpec(dataset, model)
    own = [d.name for d in list_datasets() if set(FILE_DEFAULTS) <= set(d.defaults)]
    if name not in own or not path:
        raise ValueError(
            f"--dataset {dataset!r}: give a dataset's name, or {' or '.join(f'{n}:PATH' for n in own)} "
            "for your own file."
        )
    return ExperimentSpec(name, model, file_options(path))


def training_overrides(args) -> dict:
    """The ``--set`` pairs, with ``--epochs`` and ``--devices`` as theirs; a setting given twice must agree with
    itself."""
    from seqlab.training.spec import parse_value

    overrides = {}
    for key, value in map(parse_assignment, args.set):  # a key given twice must not be settled by its order
        if key in overrides and parse_value(overrides[key]) != parse_value(value):
            raise ValueError(f"--set {key}={overrides[key]} and --set {key}={value} disagree; give {key} only once.")
        overrides[key] = value
    for field in ("epochs", "devices"):
        given = getattr(args, field, None)
        if given is None:
            continue
        if field in overrides and parse_value(overrides[field]) != given:
            raise ValueError(
                f"--{field} {given} and --set {field}={overrides[field]} disagree; give only one of them."
            )
        overrides[field] = given
    return overrides


class CtrlC:
    """While training, Ctrl-C cancels cleanly, however often it is pressed.

    The first press cancels the job after its current batch; the run is then
    evaluated and written, marked ``cancelled``. Further presses only print
    "still saving the cancelled run, please wait": they can neither kill the
    process in the middle of that write nor lose the run. The signal handler
    only counts presses; the polling loop (``news``) acts and prints, so nothing
    is printed from inside a handler.
    """

    def __init__(self):
        self.presses = 0
        self.answered = 0
        self._previous = None

    @property
    def pressed(self) -> bool:
        return self.presses > 0

    def __enter__(self) -> "CtrlC":
        if threading.current_thread() is threading.main_thread():  # only it may set handlers
            self._previous = signal.signal(signal.SIGINT, self._count)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _count(self, signum, frame) -> None:
        self.presses += 1

    def news(self, job) -> None:
        """Cancel ``job`` at the first press; answer every later one."""
        while self.answered < self.presses:
            self.answered += 1
            if not job.cancel_flag.is_set():
                print("\ncancelling after the current batch ...", file=sys.stderr)
                job.cancel()
            else:
                print("\nstill saving the cancelled run, please wait", file=sys.stderr)


def train_one(manager, spec, ctrl_c: CtrlC, quiet: bool, name: str | None = None, reuse: bool = False,
              savedmodel: bool = True) -> dict | int:
    """Train ``spec`` (the run named ``name``; its SavedModel left for later unless ``savedmodel``) with a progress
    bar on stderr: the result, or an exit code on failure. With ``reuse``, a run of the same identity trained before
    is reused instead (``JobManager.submit``)."""
    from seqlab.cli_progress import ProgressBar

    job = manager.submit(spec, name, reuse=reuse, savedmodel=savedmodel)
    if job.reused:  # nothing trains: no progress bar
        print(f"reusing run {job.run.run_id} (trained {job.run.meta.created}; same spec, seed, data and code): "
              "--retrain trains it again", file=sys.stderr)
    else:
        bar = ProgressBar(sys.stderr)
        seen = 0
        while not job.done:
            ctrl_c.news(job)
            seen = bar.update(job.events_since(seen), seen)
            time.sleep(0.2)
        ctrl_c.news(job)
        bar.update(job.events_since(seen), seen)
        bar.close()
    if job.status == "failed":
        print(f"error: {one_line(job.error)}", file=sys.stderr)
        return EXIT_USAGE if job.invalid else 1
    run = job.run
    if run is None:  # cancelled before its first batch: nothing to write
        print("cancelled before training started: no run written", file=sys.stderr)
        return {"run_id": None, "name": name, "path": None, "status": job.status, "task": None, "metrics": {},
                "baselines": {}, "reused": False}
    if not quiet:
        named = f" {run.name!r}" if run.name else ""
        print(f"run {run.run_id}{named} ({run.status}) {'reused from' if job.reused else 'written to'} {run.path}")
        print(metrics_table(run))
    return {
        "run_id": run.run_id,
        "name": run.name,
        "path": str(run.path),
        "status": run.status,
        "task": run.meta.task,
        "metrics": run.metrics["model"],
        "baselines": run.metrics["baselines"],
        "reused": job.reused,
    }


# ---------------------------------------------------------------- one run


def cmd_export(args) -> int:
    store = open_store(args)
    if args.format is None and args.to is None:
        from seqlab.late_export import add_savedmodel

        quiet_tensorflow_import()
        print(f"wrote the SavedModel of {args.run_id} to {add_savedmodel(store.read(args.run_id))}")
        return 0
    if args.format is None or args.to is None:
        raise ValueError("give --format and --to together (or neither, to make the SavedModel a run lacks).")
    path = export_run(store.read(args.run_id), args.format, args.to, runs_root=store.root)
    print(f"exported {args.run_id} as {args.format} to {path}")
    return 0


def cmd_predict(args) -> int:
    run = open_store(args).read(args.run_id)
    if args.text is not None:
        quiet_tensorflow_import()
        table = predict_texts(run, args.text, trust=args.trust)
        notes = text_notes(run, args.text)
        if args.json:
            print_json({"run_id": run.run_id, "predictions": table.to_dict(orient="records"), "notes": notes})
        else:
            print(table.to_string(index=False))
            for note in notes:
                print(f"note: {note}", file=sys.stderr)
        return 0
    frame = read_csv(args.input)
    quiet_tensorflow_import()
    forecast = predict_frame(run, frame, trust=args.trust)
    target = run.meta.target
    if args.json:
        print_json({"run_id": run.run_id, "target": target, "unit": unit_of(run),
                    "forecast": forecast[target].tolist()})
    else:
        print(forecast.to_string(index=False))
    return 0


def cmd_forecast(args) -> int:
    run = open_store(args).read(args.run_id)
    if not get_task(run.meta.task).series:
        raise ValueError(f"Run {run.run_id!r} is a {run.meta.task} run; forecast scores forecast runs only.")
    quiet_tensorflow_import()
    from seqlab.data import load_dataset
    from seqlab.forecasting.scoring import score_strategy

    data = load_dataset(run.spec["dataset"], **run.spec.get("data_options", {}))
    scores = score_strategy(
        run.load_model(), data, args.strategy, args.horizon, args.future_inputs, args.samples, args.every, args.seed
    )
    if args.json:
        print_json({"run_id": run.run_id, **scores.as_dict()})
        return 0
    print(f"{args.strategy} from {len(scores.origins)} test origins, {scores.horizon} steps ahead, "
          f"future inputs {scores.mode}" + (f", {scores.samples} samples" if scores.bands else ""))
    print(metrics_table(run, {"model": scores.model, "baselines": scores.baselines}))
    for level, band in scores.bands.items():
        print(f"{level} % band: holds {100 * band['coverage']:.1f} % of the actual values, "
              f"mean width {band['width']:.4g} {unit_of(run)}".rstrip())
    return 0


def cmd_generate(args) -> int:
    run = open_store(args).read(args.run_id)
    quiet_tensorflow_import()
    from seqlab.tasks.language.generate import generate_text, run_tokenizer

    tokenizer = run_tokenizer(run)
    out = generate_text(
        run, args.prompt, args.tokens, temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
        seed=args.seed, tokenizer=tokenizer,
    )  # fmt: skip
    if out.notice:
        print(out.notice, file=sys.stderr)
    if args.json:
        print_json({"run_id": run.run_id, **out.as_dict(tokenizer)})
    else:
        print(out.prompt + tokenizer.joiner + out.text)
    return 0


def cmd_translate(args) -> int:
    run = open_store(args).read(args.run_id)
    if any(not text.strip() for text in args.text):
        raise ValueError("A --text is empty: give every source text some words.")
    quiet_tensorflow_import()
    from seqlab.tasks.translate.translation import translate_run

    found = translate_run(run, args.text, width=args.beam, length_penalty=args.length_penalty)
    notes = text_notes(run, args.text)
    if args.json:
        print_json({"run_id": run.run_id, "notes": notes, "translations": [
            {"source": text, "translation": t.text, "log_prob": t.log_prob, "score": t.score,
             "finished": t.finished} for text, t in zip(args.text, found)]})
    else:
        for text, t in zip(args.text, found):
            print(f"{text}\t{t.text}" + ("" if t.finished else "\t(no [EOS]: cut at the maximum length)"))
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
    return 0


def cmd_fill(args) -> int:
    run = open_store(args).read(args.run_id)
    quiet_tensorflow_import()
    from seqlab.tasks.masked_lm.fill_in import fill_in

    filled = fill_in(run, args.text, top_k=args.top)
    if args.json:
        print_json({"run_id": run.run_id, **filled.as_dict()})
    else:
        print(filled.text())
        for n, blank in enumerate(filled.blanks, start=1):
            guesses = "  ".join(f"{t} {100 * p:.1f} %" for t, p in zip(blank.tokens, blank.probabilities))
            print(f"[MASK] {n}: {guesses}")
        for note in filled.notes:
            print(f"note: {note}", file=sys.stderr)
    return 0


def cmd_delete(args) -> int:
    store = open_store(args)
    broken = store.broken()
    if args.run_id in broken:  # a broken run can only be cleaned up by deleting it
        what = f"broken run {args.run_id} ({one_line(broken[args.run_id])})"
    else:
        what = f"run {args.run_id} ({store.read(args.run_id).status})"  # an unknown one fails here
    if not args.yes:
        if not sys.stdin.isatty():
            raise ValueError(f"not deleting {args.run_id} without confirmation: stdin is not a terminal; add --yes.")
        try:
            answer = input(f"delete {what} from {store.root}? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            print("not deleted")
            return 0
    store.delete(args.run_id)
    print(f"deleted {args.run_id}")
    return 0


def cmd_bench(args) -> int:
    try:
        from bench import run as bench
    except ImportError:
        raise ValueError("python -m seqlab bench runs the bench/ scripts: run it from the repository root.") from None
    rows = bench.select(args.only)
    quiet_tensorflow_import()
    results = []
    for row in rows:
        print(f"measuring {row.name} ...", file=sys.stderr, flush=True)
        results.append(bench.run_row(row, args.quick))
    paths = bench.write(results, args.quick, *([Path(args.results)] if args.results else []))
    if args.json:
        print_json({"rows": [vars(r) for r in results], "written": [str(p) for p in paths]})
    else:
        print(bench.table(results))
        print(f"written to {paths[0]} and {paths[1]}")
    return 0


# ---------------------------------------------------------------- helpers


def open_store(args) -> RunStore:
    store = RunStore(args.runs_dir)
    if store.root.exists() and not store.root.is_dir():
        raise ValueError(f"the run store {store.root} is a file, not a folder; give --runs-dir a folder.")
    return store


def parse_assignment(text: str, option: str = "--set") -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"{option} expects KEY=VALUE, got {text!r}.")
    return key.strip(), value.strip()


def print_json(value) -> None:
    """One line of strict JSON on stdout (RFC 8259): NaN and infinities print as null (``json_safe``)."""
    print(json.dumps(json_safe(value), allow_nan=False))


def one_line(message) -> str:
    return " ".join(str(message).split())


def describe(err: Exception) -> str:
    """The error as one line; a file system error as ``PATH: reason`` (``/tmp/x: Permission denied``)."""
    if isinstance(err, OSError) and err.strerror:
        return one_line(f"{err.filename}: {err.strerror}" if err.filename else err.strerror)
    return one_line(err)


def unit_of(run: Run) -> str:
    """The unit of the run's target (``GW``), ``""`` when it has none."""
    return run.meta.units.get(run.meta.target, "")


def displayed(key: str, value) -> str:
    """A stored metric as the dashboard shows it: ``6.39``, accuracy ``93.1``; ``–`` when missing."""
    number = get_metric(key).display(value)
    return f"{number:.4g}" if math.isfinite(number) else "–"


def scores_line(run: Run) -> str:
    """``MAE 0.2134 GW  RMSE 0.2871 GW  MAPE 6.39 %``: the run's test metrics with their units."""
    unit, model = unit_of(run), run.metrics["model"]
    parts = []
    for key in shown_metrics(model, run.meta.task):  # no sMAPE where the truth crosses zero
        metric = get_metric(key)
        parts.append(f"{metric.name} {displayed(key, model[key])} {metric.unit_for(unit)}".rstrip())
    return "  ".join(parts)


def skill_text(run: Run) -> str:
    """``  skill +3.7 points over unigram_and_majority``: the headline metric against its best baseline, as the
    dashboard reads it (``Metric.skill``: % for an error, points for an accuracy); ``""`` without a baseline."""
    model = run.metrics["model"]
    keys = shown_metrics(model, run.meta.task)
    if not keys:
        return ""
    metric = get_metric(keys[0])
    baselines = run.metrics.get("baselines", {})
    best = metric.best({name: values.get(metric.key) for name, values in baselines.items()})
    gain = metric.skill(model.get(metric.key), baselines[best].get(metric.key)) if best else math.nan
    if not math.isfinite(gain):
        return ""
    return f"  skill {gain:+.1f} {'points' if metric.higher_is_better else '%'} over {best}"


def metrics_table(run: Run, metrics: dict | None = None) -> str:
    """The model and its baselines as rows, the task's metrics as columns headed with their units.

    ``metrics``: ``{"model": ..., "baselines": ...}`` to show instead of the run's test metrics.
    """
    unit, metrics = unit_of(run), metrics or run.metrics
    rows = {"model": metrics["model"], **metrics["baselines"]}
    keys = ordered_metrics(metrics["model"], run.meta.task)
    labels = [get_metric(k).label(unit) for k in keys]
    width = max([15] + [len(label) + 2 for label in labels])
    lines = [f"{'':<22}" + "".join(f"{label:>{width}}" for label in labels)]
    for row, values in rows.items():
        lines.append(f"{row:<22}" + "".join(f"{displayed(k, values.get(k)):>{width}}" for k in keys))
    return "\n".join(lines)


COMMANDS = {
    "datasets": cmd_datasets,
    "models": cmd_models,
    "presets": cmd_presets,
    "train": cmd_train,
    "sweep": cmd_sweep,
    "runs": cmd_runs,
    "export": cmd_export,
    "predict": cmd_predict,
    "forecast": cmd_forecast,
    "generate": cmd_generate,
    "translate": cmd_translate,
    "fill": cmd_fill,
    "delete": cmd_delete,
    "bench": cmd_bench,
}
