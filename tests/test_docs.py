"""The documentation shows only what exists.

Every ``python -m seqlab`` command that README.md and docs/ show (in code blocks and inline code) parses with
the CLI's own parser; a listing command runs, and a ``train`` command passes every check the CLI makes before it
trains (dataset, model, preset, each ``--set`` key and value). A fragment such as ``predict --trust`` names an
option of its command, every ``--set KEY=`` names a setting, every ``python -m bench.NAME`` a script in bench/,
and every relative link a file (and heading) that exists. docs/cli.md is compared with its generator in
tests/test_cli_reference.py.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import os
import re
import shlex
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from seqlab import cli
from seqlab.cli_reference import subcommands
from seqlab.data import list_datasets
from seqlab.models import list_architectures
from seqlab.training import ExperimentSpec, jobs

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), REPO / "bench" / "README.md"]
GENERATED = REPO / "docs" / "cli.md"  # the parser rendered (its synopses hold metavars): see tests/test_cli_reference.py

FENCE = re.compile(r"^ *```[^\n]*\n(.*?)^ *```", re.M | re.S)
INLINE = re.compile(r"(`+)(.+?)\1", re.S)
SEQLAB = re.compile(r"python(?: -X \S+)* -m seqlab(?=\s|$)(.*)")
BENCH = re.compile(r"python(?: -\S+)* -m bench\.(\w+)")
SHELL = re.compile(r"\s(?:\d?>&?\d?|\\?\||;|&&)(?:\s.*)?$")  # a pipe or redirection ends the command
SETTING = re.compile(r"--set[ =]+([^\s=\]]+)=")
PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*")  # RUN_ID, PATH, N, KEY: stands for a value the reader gives
GIVEN = "1"  # what a placeholder becomes: any option's type takes it, and it names no dataset, model or preset
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
LISTING = {"datasets", "models", "presets", "runs"}  # run for real: they answer at once, without TensorFlow


def snippets(text: str) -> list[str]:
    """A Markdown text's code: each line of a fenced block (``\\`` continuations joined), and each inline span."""
    found = []
    for block in FENCE.findall(text):
        found += block.replace("\\\n", " ").splitlines()
    found += [" ".join(m.group(2).split()) for m in INLINE.finditer(FENCE.sub("", text))]
    return found


def prose(text: str) -> str:
    return INLINE.sub("", FENCE.sub("", text))


def argv_variants(command: str) -> list[list[str]]:
    """The argv a shown command stands for: ``[--opt X]`` as given, ``a|b|c`` once per alternative, placeholders
    (``RUN_ID``, ``N``) as ``1``, a ``# comment`` dropped."""
    words = [w.strip("[]") for w in shlex.split(SHELL.sub("", command), comments=True)]
    words = [GIVEN if PLACEHOLDER.fullmatch(w) else w for w in words if w]
    choices = [w.split("|") if "|" in w and " " not in w else [w] for w in words]
    return [list(argv) for argv in itertools.product(*choices)]


class Checked(Exception):
    """Raised where ``train`` would start TensorFlow: every check before it passed."""


def stop_before_training() -> None:
    raise Checked


def command_problem(argv: list[str], monkeypatch, tmp_path) -> str | None:
    """Why the CLI would refuse ``argv`` (None: it would not)."""
    if not argv or argv[0] == GIVEN or (len(argv) == 1 and argv[0] in subcommands(cli.build_parser()).choices):
        return None  # named in a sentence: "`python -m seqlab generate` carries the state", "python -m seqlab COMMAND"
    stderr = io.StringIO()
    try:
        with redirect_stderr(stderr):
            args = cli.build_parser().parse_args(argv)
    except SystemExit:
        return stderr.getvalue().strip()
    if args.command not in LISTING | {"train"}:
        return None  # the rest need a trained run: parsed is all a document can promise
    if args.command == "train" and GIVEN in (args.preset, args.dataset, args.model):
        return None  # a placeholder (--preset NAME) names nothing to check
    monkeypatch.chdir(tmp_path)
    if args.command == "train" and args.dataset and ":" in args.dataset:  # your own file: a stand-in of it
        path = tmp_path / args.dataset.partition(":")[2]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    monkeypatch.setattr(cli, "quiet_tensorflow_import", stop_before_training)
    # This process runs Keras on TensorFlow already; argparse has checked --backend's value against BACKENDS.
    monkeypatch.setattr(cli, "choose_backend", lambda name: None)
    monkeypatch.setattr(jobs, "JobManager", lambda *args, **kwargs: stop_before_training())  # under jax: no TF start-up
    with redirect_stderr(stderr), redirect_stdout(io.StringIO()):
        try:
            code = cli.main([*argv, "--runs-dir", str(tmp_path / "runs")] if args.command in ("train", "runs") else argv)
        except Checked:
            return None
    return None if code == 0 else stderr.getvalue().strip()


def setting_names() -> set[str]:
    """Every name ``--set`` takes: a spec field, or any dataset's or architecture's option (also as data./model.)."""
    fields = {f.name for f in dataclasses.fields(ExperimentSpec)} - {"data_options", "model_options"}
    data = set().union(*(d.defaults for d in list_datasets()))
    model = set().union(*(a.defaults for a in list_architectures()))
    return fields | data | model | {f"data.{k}" for k in data} | {f"model.{k}" for k in model}


def fragment_problems(snippet: str) -> list[str]:
    """Options of a command written without ``python -m seqlab`` (``predict --trust``) that it does not have."""
    words = snippet.split()
    commands = subcommands(cli.build_parser()).choices
    if len(words) < 2 or words[0] not in commands or not words[1].startswith("--"):
        return []
    known = commands[words[0]]._option_string_actions
    return [f"{words[0]} has no option {w}" for w in words if w.startswith("--") and w.split("=")[0] not in known]


def shown_commands(text: str) -> list[str]:
    return [m.group(1) for s in snippets(text) if (m := SEQLAB.search(s))]


def problems_in(text: str, monkeypatch, tmp_path) -> list[str]:
    problems = []
    for command in shown_commands(text):
        for argv in argv_variants(command):
            problem = command_problem(argv, monkeypatch, tmp_path)
            if problem:
                problems.append(f"python -m seqlab {shlex.join(argv)}: {problem}")
    names = setting_names()
    for snippet in snippets(text):
        problems += fragment_problems(snippet)
        problems += [
            f"--set {key}=: no such setting" for key in SETTING.findall(snippet)
            if key not in names and not PLACEHOLDER.fullmatch(key)
        ]
        problems += [
            f"python -m bench.{name}: no bench/{name}.py" for name in BENCH.findall(snippet)
            if not (REPO / "bench" / f"{name}.py").is_file()
        ]
    return problems


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(h) for h in re.findall(r"^#+\s+(.+?)\s*#*$", text, re.M)}


def link_problems(path: Path) -> list[str]:
    problems = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no such heading in {os.path.relpath(linked, path.parent)}")
    return problems


@pytest.mark.parametrize("path", [p for p in DOCS if p != GENERATED], ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_option_setting_and_script_shown_exists(path, monkeypatch, tmp_path):
    problems = problems_in(path.read_text(encoding="utf-8"), monkeypatch, tmp_path)
    assert not problems, f"{path.relative_to(REPO)} shows what does not exist:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_somewhere(path):
    problems = link_problems(path)
    assert not problems, f"{path.relative_to(REPO)} links to what does not exist:\n" + "\n".join(problems)


def test_the_readme_links_to_every_document():
    readme = prose((REPO / "README.md").read_text(encoding="utf-8"))
    linked = {(REPO / t.partition("#")[0]).resolve() for t in LINK.findall(readme)}
    missing = [str(p.relative_to(REPO)) for p in DOCS if p != REPO / "README.md" and p not in linked]
    assert not missing, f"README.md does not link to {missing}"


# ---------------------------------------------------------------- the checks themselves catch what they should


@pytest.mark.parametrize(
    "text, expected",
    [
        ("```bash\npython -m seqlab train --dataset sine --model lstm --colour red\n```", "unrecognized arguments"),
        ("Run `python -m seqlab frobnicate RUN_ID`.", "invalid choice"),
        ("`python -m seqlab train --dataset sine --model lstm --set colour=red`", "Unknown setting 'colour'"),
        ("`python -m seqlab train --dataset sine --model lstm --set units=0`", "units"),
        ("`python -m seqlab train --preset no-such-lesson`", "no-such-lesson"),
        ("`python -m seqlab train --dataset csv:load.csv --model arx --set colour=red`", "Unknown setting"),
        ("`python -m seqlab export RUN_ID --format savedmodel|pickle --to PATH`", "invalid choice: 'pickle'"),
        ("```bash\npython -m seqlab forecast RUN_ID \\\n    --every-other 2\n```", "--every-other"),
        ("`python -m seqlab models --task nope`", "invalid choice"),
        ("Offline: `predict --trusted`.", "predict has no option --trusted"),
        ("Try `--set colour=red` on the dataset.", "--set colour=: no such setting"),
        ("`python -m bench.no_such_bench`", "no bench/no_such_bench.py"),
    ],
)
def test_a_document_that_shows_what_does_not_exist_is_caught(text, expected, monkeypatch, tmp_path):
    problems = problems_in(text, monkeypatch, tmp_path)
    assert any(expected in p for p in problems), problems


def test_what_exists_passes_the_checks(monkeypatch, tmp_path):
    text = (
        "```bash\npython -m seqlab train --dataset sine --model lstm --epochs 2 [--set units=32] [--json]"
        "   # a comment\npython -m seqlab export RUN_ID --format savedmodel|keras|zip --to PATH\n```\n"
        "and `python -X importtime -m seqlab runs 2>&1 \\| grep -c tensorflow`, `predict --trust`, "
        "`--set KEY=VALUE`, `python -m bench.energy_epoch`."
    )
    assert problems_in(text, monkeypatch, tmp_path) == []


def test_a_link_to_a_missing_file_or_heading_is_caught(tmp_path):
    (tmp_path / "a.md").write_text("# Runs and export\n\n[ok](b.md#the-heading) [ok](#runs-and-export) "
                                   "[gone](missing.md) [bad](b.md#nowhere) `[code](not-a-link.md)`\n")
    (tmp_path / "b.md").write_text("## The heading\n")
    assert link_problems(tmp_path / "a.md") == ["missing.md: no such file", "b.md#nowhere: no such heading in b.md"]
