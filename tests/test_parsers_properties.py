"""Property tests: every parser of user input answers with a value or a ValueError, never another exception.

Covers the input gate (``seqlab.inputs``), ``--set`` parsing, the ExperimentSpec
and the run store reading folders whose JSON files say anything at all.
"""

import csv
import gzip
import io
import json
import math
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seqlab.cli import parse_assignment
from seqlab.data.registry import get_dataset, list_datasets
from seqlab.inputs import InputLimits, decode_text, read_csv, read_text
from seqlab.models.registry import get_architecture, list_architectures
from seqlab.runs import RunStore
from seqlab.training.spec import ExperimentSpec, parse_value

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- JSON-ish values, with the numbers that break naive code --------------------------------

# Python's json refuses integers of more than 4,300 digits, so no file or --set value holds a longer one.
HUGE = st.sampled_from([2**63, -(2**63) - 1]) | st.integers(300, 4000).map(lambda digits: -(10**digits))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), HUGE, st.floats(), st.text(max_size=20),
    st.sampled_from([0, 1, 2, 0.5, 1e-3, "adam", "tanh", "full", "concat", "sine", "lstm"]),
)
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
# Values near the valid ones, so that many specs get past the first check.
PLAUSIBLE = st.one_of(
    st.integers(-2, 300), st.floats(-1, 2), st.booleans(), st.none(),
    st.sampled_from(["adam", "sgd", "tanh", "relu", "full", "concat", "sum", "sine", "energy", "lstm", "esn"]),
)
# What --set passes on: text, often JSON (json.dumps writes NaN and Infinity, and parse_value reads them back).
SET_VALUES = st.one_of(
    PLAUSIBLE, PLAUSIBLE, PLAUSIBLE.map(json.dumps), JSON, JSON.map(json.dumps), st.text(max_size=30),
)


def only_value_errors(call):
    """``call()``'s result, or ``None`` when it raised a one-line ValueError (anything else fails the test)."""
    try:
        return call()
    except ValueError as err:
        assert "\n" not in str(err), f"a message the CLI shows on one line has several: {err}"
        return None


# --- seqlab.inputs ------------------------------------------------------------------------

def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


CSV_ALPHABET = st.sampled_from(list(',;"\'\n\r \tab1.5-eé\x00#'))
CSV_LIKE = st.text(CSV_ALPHABET, max_size=80)
MAGICS = [b"\x1f\x8b", b"BZh9", b"\xfd7zXZ\x00", b"PK\x03\x04", b"PK\x05\x06", b"(\xb5/\xfd",  # compressed
          b"\xff\xfe", b"\xef\xbb\xbf"]  # byte-order marks
PAYLOADS = st.one_of(
    st.binary(max_size=200),
    CSV_LIKE.map(str.encode),
    st.tuples(CSV_LIKE, st.sampled_from(["utf-16", "utf-32", "latin-1", "cp1252", "utf-8-sig"])).map(
        lambda pair: pair[0].encode(pair[1], errors="replace")
    ),
    st.tuples(st.sampled_from(MAGICS), st.binary(max_size=100)).map(b"".join),
    CSV_LIKE.map(lambda text: gzip.compress(text.encode())),
    st.dictionaries(st.text(st.sampled_from(list("ab/._é")), min_size=1, max_size=8), st.binary(max_size=40),
                    max_size=3).map(_zip),
)
LIMITS = st.builds(
    InputLimits,
    max_bytes=st.integers(1, 400),
    max_rows=st.integers(1, 6),
    max_chars=st.integers(1, 200),
    allow_compressed=st.booleans(),
    max_decompressed_bytes=st.integers(1, 400),
)


@FAST
@given(PAYLOADS)
def test_decode_text_gives_text_or_a_value_error(data):
    text = only_value_errors(lambda: decode_text(data))
    assert text is None or (isinstance(text, str) and text.strip() and "\x00" not in text)


@FAST
@given(PAYLOADS, LIMITS)
def test_read_text_and_read_csv_give_a_value_or_a_value_error(data, limits):
    text = only_value_errors(lambda: read_text(data, limits))
    assert text is None or (isinstance(text, str) and 0 < len(text) <= limits.max_chars)
    frame = only_value_errors(lambda: read_csv(data, limits))
    assert frame is None or (isinstance(frame, pd.DataFrame) and 1 <= len(frame) <= limits.max_rows)


FIELD = st.text(st.sampled_from(list('ab1.,"\n -')), max_size=5)


@FAST
@given(
    st.lists(st.text(st.sampled_from(list("abcxyz_1 ")), min_size=1, max_size=6), min_size=2, max_size=4, unique=True)
    .filter(lambda names: all(name.strip() for name in names)),
    st.data(),
)
def test_a_well_formed_csv_reads_back_with_its_shape(header, data):
    rows = data.draw(st.lists(st.lists(FIELD, min_size=len(header), max_size=len(header)), min_size=1, max_size=5))
    buffer = io.StringIO()
    csv.writer(buffer).writerows([header, *rows])
    frame = read_csv(buffer.getvalue().encode())
    assert list(frame.columns) == header and frame.shape == (len(rows), len(header))


# --- --set KEY=VALUE and the spec ------------------------------------------------------------


@FAST
@given(st.text() | st.lists(st.text(max_size=8), min_size=2, max_size=3).map("=".join))
def test_parse_assignment_splits_or_refuses(text):
    pair = only_value_errors(lambda: parse_assignment(text))
    if pair is not None:
        key, value = pair
        assert isinstance(key, str) and isinstance(value, str) and "=" in text


@FAST
@given(st.one_of(
    st.text(), JSON.map(json.dumps),
    st.integers(1, 50_000).map(lambda n: "[" * n + "]" * n),  # nested past Python's recursion limit
    st.integers(4000, 6000).map(lambda n: "1" * n),  # past the 4,300 digits Python converts
))
def test_parse_value_reads_json_or_keeps_the_text(text):
    only_value_errors(lambda: parse_value(text))


DATASETS = [d.name for d in list_datasets()]
MODELS = [a.name for a in list_architectures()]
FIELDS = ["dataset", "model", "data_options", "model_options", "epochs", "batch_size", "optimizer",
          "learning_rate", "clip_norm", "clip_value", "tbptt", "early_stopping", "seed"]
DATA_KEYS = sorted({key for d in list_datasets() for key in d.defaults})
MODEL_KEYS = sorted({key for a in list_architectures() for key in a.defaults})


def setting_keys(dataset: str, model: str):
    """Mostly the settings this dataset and model have, sometimes another one's or any text."""
    data_keys, model_keys = list(get_dataset(dataset).defaults), list(get_architecture(model).defaults)
    own = st.one_of(
        st.sampled_from(FIELDS + data_keys + model_keys),
        st.sampled_from(data_keys).map("data.".__add__),
        st.sampled_from(model_keys).map("model.".__add__),
    )
    other = st.one_of(
        st.sampled_from(DATA_KEYS).map("data.".__add__), st.sampled_from(MODEL_KEYS).map("model.".__add__),
        st.text(max_size=12),
    )
    return st.one_of(own, own, own, other)


@FAST
@given(st.sampled_from(DATASETS), st.sampled_from(MODELS), st.data())
def test_overrides_then_resolved_raise_only_value_errors(dataset, model, data):
    overrides = data.draw(st.dictionaries(setting_keys(dataset, model), SET_VALUES, max_size=3))
    spec = only_value_errors(lambda: ExperimentSpec(dataset, model).with_overrides(overrides).resolved())
    assert spec is None or _finite(spec.to_dict())


@FAST
@given(st.fixed_dictionaries(
    {"dataset": st.sampled_from(DATASETS) | JSON, "model": st.sampled_from(MODELS) | JSON},
    optional={
        name: PLAUSIBLE | JSON | st.dictionaries(st.sampled_from(DATA_KEYS + MODEL_KEYS), PLAUSIBLE | JSON, max_size=3)
        for name in FIELDS[2:]
    },
))
def test_any_field_values_resolve_or_raise_a_value_error(values):
    only_value_errors(lambda: ExperimentSpec(**values).resolved())
    only_value_errors(lambda: ExperimentSpec.from_dict(values).resolved())


def _finite(value) -> bool:
    """No NaN or infinity anywhere: a resolved spec's JSON stays strict JSON."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


# --- the run store reading folders with any JSON in them -------------------------------------

GOOD = {
    "spec": {"dataset": "sine", "model": "mlp", "data_options": {}, "model_options": {}, "epochs": 1},
    "meta": {
        "task": "forecast", "status": "completed", "dataset": "sine", "model": "mlp", "input_shape": [50, 1],
        "features": ["y"], "target": "y", "units": {"y": ""}, "lookback": 50, "horizon": 10, "epochs_run": 1,
        "train_seconds": 1.0, "parameters": 10, "device": "CPU", "created": "2024-01-01T00:00:00+00:00",
        "versions": {"seqlab": "0"},
    },
    "metrics": {"model": {"mae": 1.0}, "baselines": {"naive": {"mae": 2.0}}},
    "history": {"batch": [], "epoch": []},
}
CHANGE = st.one_of(
    st.tuples(st.just("replace"), JSON),
    st.tuples(st.just("set"), st.tuples(st.text(max_size=10) | st.sampled_from(sorted(GOOD["meta"])), JSON)),
    st.tuples(st.just("drop"), st.sampled_from(sorted(GOOD["meta"]) + ["model", "baselines", "dataset"])),
    st.tuples(st.just("bytes"), st.binary(max_size=50)),
)


def _changed(good: dict, change) -> bytes:
    kind, what = change
    if kind == "bytes":
        return what
    value = dict(good)
    if kind == "replace":
        value = what
    elif kind == "set":
        value[what[0]] = what[1]
    else:
        value.pop(what, None)
    return json.dumps(value).encode()  # NaN and Infinity too: Python's json reads them back


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(sorted(GOOD)), CHANGE, min_size=1, max_size=2))
def test_a_run_folder_with_any_json_reads_or_is_broken(changes):
    def fill(folder: Path) -> None:
        for name, good in GOOD.items():
            data = _changed(good, changes[name]) if name in changes else json.dumps(good).encode()
            (folder / f"{name}.json").write_bytes(data)
        with zipfile.ZipFile(folder / "model.keras", "w") as archive:
            archive.writestr("config.json", "{}")
        (folder / "savedmodel").mkdir()
        (folder / "savedmodel" / "saved_model.pb").write_bytes(b"")

    with tempfile.TemporaryDirectory() as root:
        store = RunStore(root)
        store.write("run", fill)
        run = only_value_errors(lambda: store.read("run"))
        if run is not None:
            assert isinstance(run.status, str)
        listed, broken = [r.run_id for r in store.list()], store.broken()
        assert (listed, sorted(broken)) == ((["run"], []) if run is not None else ([], ["run"]))
