"""Classroom limits: how much one user may ask of a shared machine.

Read from environment variables, else from the ``[limits]`` table of a TOML
file named by ``SEQLAB_CONFIG``, else the defaults below (sized for a laptop)::

    [limits]
    max_epochs = 200
    max_parameters = 1_000_000
    max_concurrent_jobs = 4

The same file's ``[classroom]`` table holds the teacher's key (``teacher_key``,
else ``SEQLAB_TEACHER_KEY``; none by default: then every session is the
teacher)::

    [classroom]
    teacher_key = "a phrase only the teacher knows"

Every call of ``current_limits()`` and ``teacher_key()`` reads them again, so a server picks up an
edited file without a restart. A bad value is a ValueError naming the variable
(or the file and key) and what it must be. The file is read within 64 KB and
100 levels of nesting (``seqlab.bounded_json``).
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from pathlib import Path

CONFIG_ENV = "SEQLAB_CONFIG"
TEACHER_KEY_ENV = "SEQLAB_TEACHER_KEY"
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Upper bounds a server sets for every user.

    Attributes:
        max_epochs: epochs of one run.
        max_steps: batches of one run given a step budget (``steps``).
        max_parameters: weights of one model (trainable or not), counted while
            it is built or loaded, refused before the first weight past it is
            made (``seqlab.weight_budget``).
        max_sequence_length: steps T one model reads at once (lookback, a
            sequence's length, truncated BPTT's k1 and k2).
        max_data_mb: memory the windowed inputs of one dataset may take
            (float32; about three times that while the windows are cut), and
            any other array or table estimated from the options before it is
            made (``check_memory``).
        max_upload_mb: size of one uploaded or given file (and of its content,
            when a compressed file is accepted).
        max_upload_rows: data rows of one uploaded table.
        max_upload_chars: characters of one uploaded text.
        max_concurrent_jobs: training jobs running at once in one server
            process, across all browser sessions; later jobs wait in one queue,
            first come first served.
        max_queued_jobs: unfinished jobs (running, waiting or queued) of one
            browser session or command.
        max_work_seconds: estimated seconds of one piece of work that runs
            without epochs, so without progress or Cancel (generating a
            dataset, counting Markov chains, Baum-Welch), estimated from the
            options before it starts (``check_work``).
    """

    max_epochs: int = 1000
    max_steps: int = 1_000_000
    max_parameters: int = 5_000_000
    max_sequence_length: int = 2000
    max_data_mb: int = 512
    max_upload_mb: int = 50
    max_upload_rows: int = 1_000_000
    max_upload_chars: int = 20_000_000
    max_concurrent_jobs: int = 1  # jobs share Keras's global seed: one at a time keeps runs reproducible
    max_queued_jobs: int = 10
    max_work_seconds: int = 60


FIELDS = tuple(f.name for f in dataclasses.fields(Limits))
# field -> its environment variable
ENV = {field: f"SEQLAB_{field.upper()}" for field in FIELDS} | {"max_concurrent_jobs": "SEQLAB_MAX_JOBS"}


def _positive_int(given, where: str) -> int:
    value = given
    if isinstance(given, str) and given.strip().replace("_", "").isdecimal():
        try:
            value = int(given.strip().replace("_", ""))
        except ValueError:  # thousands of digits: Python refuses to convert them
            pass
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{where} must be a positive integer, got {given!r}; fix or remove it.")
    return value


def _config_table(name: str, keys: tuple[str, ...]) -> dict:
    """The table ``[name]`` of the ``SEQLAB_CONFIG`` file (``{}``: no file named, or no such table), its keys
    checked to be among ``keys``."""
    from seqlab.bounded_json import CONFIG_FILE_BYTES, read_toml  # it imports seqlab.inputs (pandas): import late

    path = os.environ.get(CONFIG_ENV)
    if not path:
        return {}
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{CONFIG_ENV} names {path!r}, which is not a file; point it to a TOML file or unset it.")
    try:
        table = read_toml(file, "config file", CONFIG_FILE_BYTES).get(name, {})
    except ValueError as err:
        raise ValueError(f"The config file {path} ({CONFIG_ENV}) cannot be read: {err}") from None
    if not isinstance(table, dict):
        raise ValueError(f"[{name}] in {path} must be a table of key = value lines.")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise ValueError(f"Unknown key(s) {unknown} in [{name}] of {path}; valid keys: {', '.join(keys)}.")
    return table


def current_limits() -> Limits:
    """The limits in force now: environment over config file over defaults."""
    path = os.environ.get(CONFIG_ENV)
    values = {key: _positive_int(value, f"{key} in {path}") for key, value in _config_table("limits", FIELDS).items()}
    for field, name in ENV.items():
        text = os.environ.get(name, "")
        if text.strip():
            values[field] = _positive_int(text, name)
    return Limits(**values)


def teacher_key() -> str | None:
    """The server's teacher key: ``SEQLAB_TEACHER_KEY``, else ``teacher_key`` in the config file's
    ``[classroom]``; ``None`` when neither sets one (then every session is the teacher)."""
    given = os.environ.get(TEACHER_KEY_ENV, "")
    if given.strip():
        return given.strip()
    given = _config_table("classroom", ("teacher_key",)).get("teacher_key")
    if given is None:
        return None
    if not isinstance(given, str) or not given.strip():
        raise ValueError(f"teacher_key in [classroom] of {os.environ[CONFIG_ENV]} must be non-empty text; "
                         "write it in quotes, or remove it for a server without a teacher key.")
    return given.strip()


def limit_hint(field: str) -> str:
    """Where a server sets ``field``, for messages that say how to raise it (the caller adds parentheses)."""
    return f"the server's limit: {ENV[field]} or {field} in the {CONFIG_ENV} file"


def check_data_size(windows: int, steps: int, features: int, outputs: int = 0, what: str = "the windows") -> None:
    """Refuse ``windows`` inputs of ``steps`` x ``features`` (and ``outputs`` targets each) beyond the limits.

    Called before the arrays are made, so a refused request never allocates them.
    """
    limits = current_limits()
    if steps > limits.max_sequence_length:
        raise ValueError(
            f"Sequences of {steps:,} steps are longer than {limits.max_sequence_length:,} "
            f"({limit_hint('max_sequence_length')}); choose shorter sequences."
        )
    check_memory(
        windows * (steps * features + outputs) * 4,  # float32
        f"{what} ({windows:,} of {steps:,} steps x {features} features)",
        "use fewer samples, a shorter series or sequence, or a larger stride",
    )


def check_memory(size_bytes: float, what: str, advice: str) -> None:
    """Refuse making ``what``, estimated at ``size_bytes``, beyond ``max_data_mb``; ``advice`` says how to shrink it.

    Called with an estimate from the options, before anything is allocated.
    """
    limit = current_limits().max_data_mb
    size_mb = size_bytes / MB
    if size_mb > limit:
        raise ValueError(
            f"{what[:1].upper() + what[1:]} would take {size_mb:,.0f} MB, more than {limit:,} MB "
            f"({limit_hint('max_data_mb')}); {advice}."
        )


def check_work(seconds: float, what: str, advice: str) -> None:
    """Refuse ``what``, estimated at ``seconds``, beyond ``max_work_seconds``; ``advice`` says how to shorten it.

    For work that runs in one piece, without epochs to show progress or to
    cancel between: the caller estimates its time from the options (its rate
    measured on a laptop-class core) before any of it is done.
    """
    limit = current_limits().max_work_seconds
    if seconds > limit:
        raise ValueError(
            f"{what[:1].upper() + what[1:]} would take about {math.ceil(seconds):,} s, more than {limit:,} s "
            f"({limit_hint('max_work_seconds')}); {advice}."
        )
