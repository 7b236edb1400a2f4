"""Compare runs side by side: overlaid training curves, a table of final metrics, a leaderboard per dataset.

Like TensorBoard's and Weights & Biases' run comparison: pick runs, see their
curves on one chart, their test metric, size, training time and device in one
table, and per dataset the best run of each architecture. Runs compare fairly
only on one dataset and one budget (the same epochs, or the same steps), and
against one baseline: every run on a dataset is ranked by its skill over the
same named baseline (``shared_baseline``).
The functions that build tables and figures take runs and return data; the
``*_section`` functions put them on the page.
"""

from __future__ import annotations

import functools

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from seqlab.app import figures, projector_style
from seqlab.app.format import baseline_label, best_baseline, finite, higher_is_better, metric_label, metric_value, skill
from seqlab.app.results import loss_scale_of, model_title, target_unit
from seqlab.app.run_table import RUN_COLUMNS, runs_table
from seqlab.models import get_architecture
from seqlab.plots import validation_curves
from seqlab.runs import Run
from seqlab.tasks import get_metric

NOT_CURVES = ("type", "epoch", "elapsed")  # epoch log entries that are not a metric over training
ANY_BUDGET = "any (each architecture's best run)"
X_AXES = {"epoch": "epoch", "elapsed": "training time (s)"}
TABLE_COLUMNS = ["run", "name", "origin", "model", "family", "dataset", "status", "metric", "test", "baseline",
                 "best baseline", "skill", "best val loss", "params", "budget", "train s", "device", "created"]


def latest_dataset(runs: list[Run]) -> str | None:
    """The dataset of the most recently created run."""
    return max(runs, key=lambda r: r.meta.created).meta.dataset if runs else None


def filter_runs(runs: list[Run], datasets=(), tasks=()) -> list[Run]:
    """The runs on one of ``datasets`` and of one of ``tasks``; an empty filter keeps every run."""
    return [r for r in runs
            if (not datasets or r.meta.dataset in datasets) and (not tasks or r.meta.task in tasks)]


def family_of(name: str) -> str:
    try:
        return get_architecture(name).family
    except ValueError:
        return ""


def budget_of(run: Run) -> str:
    """What training was allowed: a step budget (nanoGPT's count) or the epochs it ran."""
    steps = run.spec.get("steps") or 0
    if steps:
        return f"{steps:,} steps"
    epochs = run.meta.epochs_run
    return f"{epochs} epoch{'s' if epochs != 1 else ''}"


# ---------------------------------------------------------------- curves


def shared_curves(runs: list[Run]) -> list[str]:
    """The per-epoch metrics every run logged: ``loss`` and ``val_loss`` first, then by name."""
    shared = None
    for run in runs:
        keys = {k for entry in run.history.get("epoch", []) for k in entry if k not in NOT_CURVES}
        shared = keys if shared is None else shared & keys
    order = {"loss": 0, "val_loss": 1}
    return sorted(shared or (), key=lambda k: (order.get(k, 2), k))


def x_axes(runs: list[Run]) -> list[str]:
    """``epoch``, and ``elapsed`` (seconds since training began) when every run logged it."""
    timed = runs and all(all("elapsed" in e for e in r.history.get("epoch", [])) for r in runs)
    return ["epoch", "elapsed"] if timed else ["epoch"]


def _is_loss(key: str) -> bool:
    return key.removeprefix("val_") == "loss"


def curve(run: Run, key: str, x: str = "epoch") -> tuple[list[float], list[float]]:
    """One run's ``key`` per epoch against ``x``, as drawn: a loss in its task's scale (bpc, perplexity),
    accuracy in %; epochs without a value (a diverged loss is stored as null) are left out."""
    scale = loss_scale_of(run).of if _is_loss(key) else functools.partial(metric_value, key.removeprefix("val_"))
    points = [(e[x], scale(e[key])) for e in run.history.get("epoch", [])
              if e.get(key) is not None and e.get(x) is not None]
    return [p[0] for p in points], [p[1] for p in points]


def curve_name(key: str) -> str:
    """``val_loss`` -> ``validation loss``, ``mae`` -> ``training MAE``."""
    name = metric_label(key.removeprefix("val_")).split(" (")[0]
    return f"{'validation' if key.startswith('val_') else 'training'} {name}"


def curve_title(runs: list[Run], key: str) -> str:
    """The y axis title with its unit (``MSE (GW²)``, ``validation MAE (GW)``); the key itself where runs differ."""
    if _is_loss(key):
        titles = {loss_scale_of(r).title for r in runs}
    else:
        titles = {metric_label(key.removeprefix("val_"), target_unit(r)[1]) for r in runs}
    title = titles.pop() if len(titles) == 1 else key.removeprefix("val_").replace("_", " ")
    return f"validation {title}" if key.startswith("val_") else title


def curves_figure(runs: list[Run], key: str, x: str = "epoch", log_y: bool = True) -> go.Figure:
    """One line per run of ``key`` over epochs or training seconds, coloured by run, named by the run's name
    (when it has one), model and id."""
    curves = {(f"{r.name} · " if r.name else "") + f"{model_title(r.meta.model)} · {r.run_id}": curve(r, key, x)
              for r in runs}
    title = curve_title(runs, key)
    positive = all(v > 0 for _, ys in curves.values() for v in ys)
    over = "per epoch" if x == "epoch" else "over training time"
    fig = validation_curves(curves, y_title=title, title=f"{curve_name(key).capitalize()} of each run {over}",
                            log_y=log_y and positive)
    if x != "epoch":
        fig.update_xaxes(title_text=X_AXES[x], dtick=None, range=None)
    return fig


# ---------------------------------------------------------------- the table


def best_val_loss(run: Run) -> float:
    losses = [e["val_loss"] for e in run.history.get("epoch", []) if e.get("val_loss") is not None]
    return min(losses) if losses else float("nan")


def shared_baseline(runs: list[Run], key: str) -> str | None:
    """The strongest baseline that every one of ``runs`` was scored against on ``key`` (best mean value, in the
    metric's direction); ``None`` when they share none."""
    scored = [{n for n, values in r.metrics.get("baselines", {}).items() if finite(values.get(key))} for r in runs]
    names = sorted(set.intersection(*scored)) if scored else []
    if not key or not names:
        return None
    return get_metric(key).best({n: sum(r.metrics["baselines"][n][key] for r in runs) / len(runs) for n in names})


def compare_table(runs: list[Run]) -> pd.DataFrame:
    """``runs_table`` with the family, the budget, the best validation loss and which way the metric is better;
    each run's skill over its dataset's ``shared_baseline`` (named in ``baseline``; each run's best where the runs
    share none), best skill first (``best_first``)."""
    table = runs_table(runs)
    if table.empty:
        return table
    for column in ("test", "best baseline", "skill"):  # runs_table leaves out columns no run has
        if column not in table:
            table[column] = float("nan")
    by_id = {r.run_id: r for r in runs}
    table["family"] = [family_of(by_id[i].meta.model) for i in table["run"]]
    table["budget"] = [budget_of(by_id[i]) for i in table["run"]]
    table["best val loss"] = [best_val_loss(by_id[i]) for i in table["run"]]
    table["better"] = ["higher" if k and higher_is_better(k) else "lower" for k in table["key"]]
    table["baseline"] = ""
    for (_, key), rows in table.groupby(["dataset", "key"]):
        group = [by_id[i] for i in rows["run"]]
        shared = shared_baseline(group, key)
        for index, run in zip(rows.index, group):
            name = shared or best_baseline(run.metrics, key)[0]
            if name is not None:
                table.loc[index, ["baseline", "best baseline", "skill"]] = [
                    baseline_label(name), metric_value(key, run.metrics["baselines"][name].get(key)),
                    skill(run.metrics, key, baseline=name)]
    return best_first(table)


def best_first(table: pd.DataFrame) -> pd.DataFrame:
    """Rows by dataset and metric, and within each the highest skill first (the most better than the baseline, in
    the metric's direction); then the best test value (lowest error, highest accuracy, by the ``better`` column),
    runs without one last."""
    score = table["test"].where(table["better"] == "lower", -table["test"])
    order = (table.assign(_skill=-table["skill"], _score=score)
             .sort_values(["dataset", "metric", "_skill", "_score"], na_position="last", kind="stable"))
    return order.drop(columns=["_skill", "_score"]).reset_index(drop=True)


def leaderboard(table: pd.DataFrame, budget: str | None = None) -> pd.DataFrame:
    """Per dataset and metric, the best run of each architecture (rows of a ``best_first`` table), ranked;
    ``budget`` keeps only runs of that budget. ``same budget as``: the other architectures trained alike."""
    rows = table if budget is None else table[table["budget"] == budget]
    best = rows.drop_duplicates(["dataset", "metric", "model"], keep="first").copy()
    best.insert(0, "rank", best.groupby(["dataset", "metric"]).cumcount() + 1)
    best["same budget as"] = [
        ", ".join(best.loc[(best["dataset"] == r.dataset) & (best["budget"] == r.budget)
                           & (best["model"] != r.model), "model"])
        for r in best.itertuples()
    ]
    return best.reset_index(drop=True)


def budgets_differ(table: pd.DataFrame) -> str | None:
    """What to say when ``table``'s runs trained with different budgets (the epochs or steps they were allowed), or
    ``None``: a longer budget may be all that puts one run ahead of another."""
    budgets = sorted(table["budget"].unique()) if "budget" in table else []
    if len(budgets) < 2:
        return None
    return (f"These runs trained with different budgets ({', '.join(budgets)}): a run may rank higher only because "
            "it trained longer. Compare runs of one budget for a fair ranking.")


def shared_budgets(table: pd.DataFrame) -> list[str]:
    """Budgets that at least two architectures were trained with: where a same-budget comparison exists."""
    counts = table.groupby("budget")["model"].nunique()
    return sorted(counts[counts >= 2].index)


# ---------------------------------------------------------------- on the page

COLUMN_CONFIG = {
    **RUN_COLUMNS,
    "best val loss": st.column_config.NumberColumn(format="%.4g", help="The lowest validation loss Keras logged."),
    "budget": st.column_config.TextColumn(help="The epochs the run trained, or its budget of steps (batches)."),
    "baseline": st.column_config.TextColumn(
        help="The baseline the skill is measured against: on each dataset, the strongest one every run was scored "
             "against, so that the runs' skills compare."),
    "best baseline": st.column_config.NumberColumn("baseline's value", format="%.4g",
                                                   help="That baseline's value of the metric on the run's test split."),
    "skill": st.column_config.NumberColumn(
        "skill", format="%+.1f",
        help="How much better than the named baseline; positive: the model beats it. Errors: 1 − model / baseline, "
             "in %. Accuracy: percentage points over the baseline. Runs are ranked by it."),
}


def curves_section(runs: list[Run], key: str) -> None:
    """A metric and an x axis to pick, the overlaid curves, the figure as HTML."""
    keys = shared_curves(runs)
    if not keys:
        st.info("These runs logged no metric in common over training (or no history at all).")
        return
    pick, axis, log = st.columns([2, 2, 1], vertical_alignment="bottom")
    metric = pick.selectbox("Metric", keys, key=f"{key}.metric", format_func=curve_name,
                            help="The per-epoch metrics every chosen run logged.")
    x = axis.radio("x axis", x_axes(runs), key=f"{key}.x", format_func=X_AXES.get, horizontal=True)
    log_y = log.toggle("Log y", value=True, key=f"{key}.log")
    fig = curves_figure(runs, metric, x, log_y)
    figures.show(fig, key=f"{key}.chart")


def table_section(table: pd.DataFrame, key: str) -> None:
    """The chosen runs, best first, a notice where their budgets differ, and the table as CSV."""
    notice = budgets_differ(table)
    if notice:
        st.warning(notice, icon=":material/timer:")
    projector_style.show_table(table, TABLE_COLUMNS, COLUMN_CONFIG)
    st.download_button(
        "Download table (CSV)", data=table.to_csv(index=False), file_name="compare_runs.csv", mime="text/csv",
        icon=":material/download:", on_click="ignore", key=f"{key}.csv",
    )


def ranking_caption(rows: pd.DataFrame) -> str | None:
    """What one dataset's leaderboard ranks by: per metric, the one baseline its runs share (the strongest every run
    was scored against), or each run's own best where they share none (``compare_table``)."""
    against = []
    for metric, group in rows.groupby("metric", sort=True):
        names = sorted({name for name in group["baseline"] if name})
        if len(names) == 1:
            against.append(f"{metric}: skill over {names[0]}, the strongest baseline every run here was scored "
                           "against")
        elif names:
            against.append(f"{metric}: skill over each run's own best baseline ({', '.join(names)}), as the runs "
                           "share none: a rough ranking")
    return "Ranked by " + "; ".join(against) + "." if against else None


def leaderboard_section(table: pd.DataFrame, key: str) -> None:
    """Per dataset, the best run of each architecture; a budget to compare families trained alike."""
    for dataset, rows in table.groupby("dataset", sort=True):
        st.markdown(f"**{dataset}**")
        caption = ranking_caption(rows)
        if caption:
            st.caption(caption)
        budgets = shared_budgets(rows)
        budget = ANY_BUDGET
        if budgets:
            budget = st.columns(2)[0].selectbox(
                "Budget", [ANY_BUDGET, *budgets], key=f"{key}.{dataset}.budget",
                format_func=lambda b: b if b == ANY_BUDGET else f"same budget: {b}",
                help="Only runs trained with this many epochs or steps: a fair comparison across families.",
            )
        board = leaderboard(rows, None if budget == ANY_BUDGET else budget)
        notice = budgets_differ(board)
        if notice:
            st.warning(notice, icon=":material/timer:")
        projector_style.show_table(board, [
            "rank", "model", "family", "metric", "test", "skill", "baseline", "budget", "same budget as", "params",
            "train s", "name", "run"], COLUMN_CONFIG)
