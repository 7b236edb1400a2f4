"""Readable labels: units, durations, metric and baseline names, metric tables.

A metric's name, unit and direction come from the library (``seqlab.tasks.metrics``),
which the CLI reads too, so both show the same figures.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from seqlab.tasks import get_metric, get_task, mape_left_out, ordered_metrics, shown_metrics

_BASELINES = {
    "naive": "Naive (last value)",
    "mean": "Mean (training mean)",
    "majority": "Majority class",
    "memoryless": "Memoryless (class frequencies per step)",
    "holt_winters": "Holt-Winters (damped trend)",
    "copy_source": "Copy (the source unchanged)",
}
# Metrics only a forecast reports (old runs have MAPE, newer ones sMAPE and MASE even where MAPE is left out).
FORECAST_ONLY = {"mape", "smape", "mase"}
_SEASON_WORDS = {"day": "same time yesterday", "week": "same time last week", "period": "one period back",
                 "year": "same month last year", "cycle": "one 11-year solar cycle back"}


def baseline_label(name: str) -> str:
    """``seasonal_naive_day`` -> ``Seasonal naive (same time yesterday)``."""
    if name in _BASELINES:
        return _BASELINES[name]
    if name.startswith("seasonal_naive_"):
        season = name.removeprefix("seasonal_naive_")
        return f"Seasonal naive ({_SEASON_WORDS.get(season, season)})"
    return name.replace("_", " ").capitalize()


def metric_unit(key: str, unit: str) -> str:
    return get_metric(key).unit_for(unit)


def metric_label(key: str, unit: str = "") -> str:
    """``mae`` -> ``MAE (GW)``, ``accuracy`` -> ``accuracy (%)``."""
    return get_metric(key).label(unit)


def metric_value(key: str, value) -> float:
    """The value as displayed (accuracy in percent)."""
    return get_metric(key).display(value)


def higher_is_better(key: str) -> bool:
    return get_metric(key).higher_is_better


def primary_metric(metrics: dict, task: str | None = None) -> str | None:
    """The metric a task is judged by first (MAE, MSE or accuracy)."""
    keys = ordered_metrics(metrics.get("model", {}), task)
    return keys[0] if keys else None


def headline_metrics(metrics: dict, task: str | None = None, count: int = 3) -> list[str]:
    """The first ``count`` metrics a run is headlined by, in the task's order.

    A task that reports MAPE but left it out of this run (the truth comes near or crosses
    zero, ``seqlab.forecasting.metrics.near_zero``) headlines no percentage of the truth
    (sMAPE is as meaningless there): ``"mape"`` keeps its place, to be shown as n/a.
    """
    model = metrics.get("model", {})
    keys = shown_metrics(model, task)
    if mape_left_out(model, task):
        declared = [m.key for m in get_task(task).test_metrics]
        keys.insert(min(declared.index("mape"), len(keys)), "mape")
    return keys[:count]


def best_baseline(metrics: dict, key: str | None = None, task: str | None = None) -> tuple[str | None, dict]:
    """The baseline best on ``key`` (default: the primary metric): ``(name, its metrics)``."""
    key = key or primary_metric(metrics, task)
    baselines = metrics.get("baselines", {})
    name = get_metric(key).best({k: v.get(key) for k, v in baselines.items()}) if key else None
    return (name, baselines[name]) if name else (None, {})


def skill(metrics: dict, key: str | None = None, task: str | None = None, baseline: str | None = None) -> float:
    """How much better than the best baseline, or the one named ``baseline`` (positive: the model wins): the one
    definition of skill that every table, card and chart shows, in the direction the metric declares
    (``Metric.higher_is_better``).

    Errors: ``(1 - model / baseline) * 100``, in %; accuracy (any higher-is-better
    metric): the gain in percentage points.
    """
    key = key or primary_metric(metrics, task)
    if not key:
        return float("nan")
    base = metrics.get("baselines", {}).get(baseline, {}) if baseline else best_baseline(metrics, key)[1]
    return get_metric(key).skill(metrics.get("model", {}).get(key), base.get(key))


def metrics_table(metrics: dict, unit: str, model_label: str = "Model", task: str | None = None) -> pd.DataFrame:
    """Model and baselines as rows; every reported metric (with its unit) as a column."""
    rows = {model_label: metrics.get("model", {})}
    for name, values in metrics.get("baselines", {}).items():
        rows[baseline_label(name)] = values
    keys = ordered_metrics(metrics.get("model", {}), task)
    table = pd.DataFrame(
        {metric_label(k, unit): [metric_value(k, v.get(k)) for v in rows.values()] for k in keys},
        index=pd.Index(list(rows), name="forecast" if FORECAST_ONLY & set(keys) else "predictor"),
    )
    table.attrs["higher_is_better"] = {metric_label(k, unit): higher_is_better(k) for k in keys}
    return table.astype("float64")


def style_best(table: pd.DataFrame):
    """A Styler that highlights the best value of every column (lowest error, highest accuracy)."""
    best = "background-color: #c8ecd0; font-weight: 700;"
    higher = table.attrs.get("higher_is_better", {})
    styler = table.style.format("{:.4g}", na_rep="–")
    lower_cols = [c for c in table.columns if not higher.get(c, False)]
    upper_cols = [c for c in table.columns if higher.get(c, False)]
    if lower_cols:
        styler = styler.highlight_min(subset=lower_cols, axis=0, props=best)
    if upper_cols:
        styler = styler.highlight_max(subset=upper_cols, axis=0, props=best)
    return styler


def seasonal_baseline(names) -> str | None:
    """The seasonal-naive baseline to draw by default ("day" first)."""
    seasonal = [n for n in names if n.startswith("seasonal_naive_")]
    for preferred in ("seasonal_naive_day", "seasonal_naive_period"):
        if preferred in seasonal:
            return preferred
    return seasonal[0] if seasonal else None


def duration(seconds: float | None) -> str:
    """``75`` -> ``1 min 15 s``."""
    if seconds is None or not finite(seconds):
        return "–"
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def steps_as_time(index: pd.Index, steps: int) -> str:
    """How long ``steps`` rows last on a time index (``96`` half-hours -> ``2 days``); ``""`` else."""
    if not isinstance(index, pd.DatetimeIndex) or len(index) < 2:
        return ""
    total = (index[1] - index[0]) * int(steps)
    hours = total / pd.Timedelta(hours=1)
    if hours >= 24 and hours % 24 == 0:
        days = int(hours // 24)
        return f"{days} day" + ("s" if days != 1 else "")
    if hours >= 1:
        return f"{hours:g} hours" if hours != 1 else "1 hour"
    return f"{total / pd.Timedelta(minutes=1):g} min"


def with_unit(value: float, unit: str, digits: int = 4) -> str:
    if not finite(value):
        return "–"
    return f"{value:.{digits}g} {unit}".strip()


def finite(value) -> bool:
    """Whether ``value`` is a number and finite (``None``, text, NaN and infinities are not)."""
    try:
        return value is not None and math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def stacked_latex(block: str) -> str:
    """A docstring's equation block for a narrow column: small, a trailing remark and each of several
    ``", \\quad"``-joined equations on a line of its own, a line still too wide broken before a ``+`` or ``=``."""
    block = re.sub(r",\s*\\q?quad\s*", r", \\\\ ", block.replace(r"\quad \text{(", r"\\ \text{("))
    return r"\footnotesize \begin{gathered} " + r" \\ ".join(map(_broken, block.split(r" \\ "))) + r" \end{gathered}"


# Symbols a line of footnotesize maths holds in half the page: wider is cut at the right.
NARROW_LINE = 28
_COMMAND = re.compile(r"\\(left|right|operatorname|mathbf|text|quad)(?![a-zA-Z])|\\(log|max|min|arg|exp)(?![a-zA-Z])"
                      r"|\\[a-zA-Z]+|[{}_^ ]")


def read_width(line: str) -> int:
    """About how many symbols ``line`` shows: a named operator (``\\log``) its letters, another command one,
    braces, scripts' marks and spaces none."""
    return len(_COMMAND.sub(lambda m: "" if m.group(1) or len(m.group(0)) == 1 else m.group(2) or "x", line))


def _broken(line: str) -> str:
    """``line`` broken before the top-level ``+``, ``=`` or product nearest its middle, again while a part is too
    wide; never inside braces or a ``\\left( ... \\right)`` pair, which must close on its own line: where nothing
    else breaks, the pair becomes ``\\bigl( ... \\bigr)``, which need not."""
    if read_width(line) <= NARROW_LINE:
        return line
    depth, cuts = 0, []
    for match in re.finditer(r"\\left(?![a-zA-Z])|\\right(?![a-zA-Z])|[{}]| [+=] | \\prod(?![a-zA-Z])", line):
        token = match.group(0)
        depth += 1 if token in ("{", r"\left") else -1 if token in ("}", r"\right") else 0
        if depth == 0 and token.strip() in ("+", "=", r"\prod"):
            cuts.append(match.start())
    if not cuts:
        sized = line.replace(r"\left(", r"\bigl(").replace(r"\right)", r"\bigr)")
        return line if sized == line else _broken(sized)
    cut = min(cuts, key=lambda i: abs(read_width(line[:i]) - read_width(line[i:])))
    return _broken(line[:cut]) + r" \\ " + _broken(line[cut + 1:])


# What Streamlit's Markdown reads inside a line: emphasis, code, links, HTML, tables, $math$, :icons: and :colour[].
_MARKDOWN = re.compile(r"([\\`*_\[\]<>~|$:])")


def literal(text: str) -> str:
    """``text`` (a user's run name) shown as written inside a line of Markdown: the characters Markdown reads there
    escaped."""
    return _MARKDOWN.sub(r"\\\1", text)
