"""The Models page's own-data predictions: a stored run on an uploaded CSV or typed text, and an uploaded model.

A stored run predicts through the CLI's functions (``seqlab.export.predict_frame``, ``predict_texts``), so a
CSV or a text gets the same checks as ``seqlab predict``. An uploaded model opens through
``seqlab.uploaded_model`` (safe ``.keras`` loading; a SavedModel only after the user says they trust it); a run
zip can be added to the run store as an imported run (``seqlab.run_import``).
Every refusal is an ``st.error`` or ``st.warning`` saying what to fix.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from seqlab.app import figures
from seqlab.app.results import IMPORTED, model_title
from seqlab.export import TRUST_LABEL, UntrustedModelError, predict_frame, predict_texts, text_notes
from seqlab.inputs import input_limits, read_csv
from seqlab.limits import current_limits
from seqlab.plots import forecast_window
from seqlab.plots.generated import shown_token
from seqlab.run_import import import_run
from seqlab.runs import Run, RunStore
from seqlab.tasks import get_task
from seqlab.uploaded_model import UploadedModel, open_upload, shape_text, windows_from_csv
from seqlab.uploaded_model import predict_texts as uploaded_texts

MAX_TEXTS = 100  # lines of the text box: one prediction each
MAX_TEXT_CHARS = 20_000


def _csv(label: str, key: str, help_text: str) -> pd.DataFrame | None:
    """An uploaded CSV read through the input gate, or ``None`` (with an ``st.error`` for a refused file)."""
    limit = current_limits().max_upload_mb
    upload = st.file_uploader(label, type=["csv"], key=key, max_upload_size=limit,
                              help=f"{help_text} At most {limit} MB.")  # fmt: skip
    if upload is None:
        return None
    try:
        return read_csv(upload, input_limits())
    except ValueError as err:
        st.error(str(err))
        return None


def _texts(label: str, key: str, placeholder: str) -> list[str] | None:
    """The non-empty lines of a text box, one text each; ``None`` until something is typed or after an error."""
    typed = st.text_area(label, key=key, placeholder=placeholder, max_chars=MAX_TEXT_CHARS,
                         help=f"One text per line, at most {MAX_TEXTS} lines.")  # fmt: skip
    texts = [line.strip() for line in typed.splitlines() if line.strip()]
    if not texts:
        return None
    if len(texts) > MAX_TEXTS:
        st.error(f"{len(texts)} lines given; at most {MAX_TEXTS} texts are predicted at once: remove some lines.")
        return None
    return texts


def _asks_trust(err: UntrustedModelError, key: str, trust_key: str, value=True) -> None:
    """The refusal, and the button that sets ``trust_key`` to ``value`` for this session."""
    st.warning(str(err), icon=":material/gpp_maybe:")
    if st.button(TRUST_LABEL, key=f"{key}.trust", icon=":material/warning:"):
        st.session_state[trust_key] = value
        st.rerun()


def own_data_view(run: Run, key: str, trust_key: str | None = None) -> None:
    """Predict with the run's SavedModel from an uploaded CSV (forecast runs) or typed texts (text runs).

    ``trust_key``: the session key that says the user trusts the run's SavedModel (default ``{key}.trusted``).
    """
    st.markdown("##### Predict from your own data")
    meta, task = run.meta, get_task(run.meta.task)
    trust_key = trust_key or f"{key}.trusted"
    trust = st.session_state.get(trust_key, False)
    try:
        if task.frame_window is not None:
            _own_csv(run, key, trust)
        elif meta.input_dtype == "int32" and task.can("predict_texts"):
            _own_texts(run, key, trust)
        else:
            st.caption(f"A {meta.task} run predicts only its test items here; its own page (Generate, Translate, "
                       "Fill in) takes your text, and the zip's USAGE.md shows how to call its SavedModel.")
    except UntrustedModelError as err:
        _asks_trust(err, key, trust_key)
    except ValueError as err:
        st.error(f"Could not predict: {err}")


def _own_csv(run: Run, key: str, trust: bool) -> None:
    meta = run.meta
    columns = list(dict.fromkeys([*meta.features, *meta.known]))
    known = f", then {meta.horizon} rows to forecast with {meta.known} filled" if meta.known else ""
    st.caption(f"A CSV with a header and the column(s) {columns} (other columns are ignored): at least "
               f"{meta.lookback} rows of recent history{known}. The model forecasts the {meta.horizon} steps after.")
    frame = _csv("CSV of recent rows", f"{key}.csv", "The same columns and units as the training data.")
    if frame is None:
        return
    forecast = predict_frame(run, frame, trust=trust)
    target, unit = meta.target, meta.units.get(meta.target, "")
    ahead = meta.horizon if meta.known else 0
    steps = len(frame) - ahead
    if target in frame.columns and pd.api.types.is_numeric_dtype(frame[target]):
        history = frame[target].iloc[steps - meta.lookback:steps].reset_index(drop=True)
        future = pd.RangeIndex(meta.lookback, meta.lookback + meta.horizon)
        actual = pd.Series(np.nan, index=future, name=target)
        fig = forecast_window(history, actual, {"SavedModel forecast": pd.Series(forecast[target].to_numpy(), future)},
                              unit=unit, title=f"Forecast of {target} after the last row of your file")  # fmt: skip
        fig.update_xaxes(title="row of the window")
        figures.show(fig, key=f"{key}.csv_chart")
    st.dataframe(forecast, hide_index=True, width="content")


def _own_texts(run: Run, key: str, trust: bool) -> None:
    texts = _texts("Texts to tag" if get_task(run.meta.task).sequence_outputs else "Texts to classify", f"{key}.text",
                   "a superb and clever film")  # fmt: skip
    if texts is None:
        return
    table = predict_texts(run, texts, trust=trust)
    for note in text_notes(run, texts):
        st.info(note[:1].upper() + note[1:], icon=":material/info:")
    st.dataframe(table, hide_index=True, width="stretch")


# ---------------------------------------------------------------- an uploaded model


def upload_view(key: str, store: RunStore | None = None) -> None:
    """Upload a ``.keras`` file or a zip (SavedModel or run zip), see what it is, predict with it; a run zip can
    be added to ``store`` as an imported run."""
    limit = current_limits().max_upload_mb
    upload = st.file_uploader(
        "Model file", type=["keras", "zip"], key=f"{key}.file", max_upload_size=limit,
        help=f"A Keras model (.keras), a zipped SavedModel folder, or a run zip from Download zip. At most {limit} MB.",
    )
    if upload is None:
        st.caption("A `.keras` file or a run zip loads safely (only Keras's and seqlab's layers). A bare SavedModel "
                   "is code: it loads only after you confirm that you trust it.")
        return
    trusted = st.session_state.get(f"{key}.trusted") == upload.file_id
    model = _opened(upload, key, trusted)
    if model is None:
        return
    _describe(model)
    if store is not None and model.kind == "run":
        _add_to_runs(store, upload, key)
    for endpoint in model.endpoints:
        if len(model.endpoints) > 1:
            st.markdown(f"**Endpoint `{endpoint.name}`**")
        try:
            _predict_with(model, endpoint, f"{key}.{endpoint.name}")
        except ValueError as err:
            st.error(f"Could not predict: {err}")


def _opened(upload, key: str, trusted: bool) -> UploadedModel | None:
    """The upload's model, loaded once per file (and trust) and kept in the session."""
    held = st.session_state.get(f"{key}.model")
    if held is not None and held[0] == (upload.file_id, trusted):
        return held[1]
    try:
        with tempfile.TemporaryDirectory(prefix="seqlab-upload-") as folder:  # loaded into memory, then gone
            model = open_upload(upload.name, upload, Path(folder) / "model", trust=trusted)
    except UntrustedModelError as err:
        _asks_trust(err, key, f"{key}.trusted", upload.file_id)
        return None
    except ValueError as err:
        st.error(f"Could not load the model: {err}")
        return None
    st.session_state[f"{key}.model"] = ((upload.file_id, trusted), model)
    return model


def _add_to_runs(store: RunStore, upload, key: str) -> None:
    """"Add to my runs": the run zip stored as an imported, untrusted run (``seqlab.run_import``), once per file."""
    added = st.session_state.get(f"{key}.added")
    if added is not None and added[0] == upload.file_id:
        st.success(f"Added as run `{added[1]}` ({IMPORTED}, untrusted): pick it above.", icon=":material/check_circle:")
        return
    if not st.button("Add to my runs", key=f"{key}.add", icon=":material/move_to_inbox:",
                     help="Store it beside your runs, marked imported: its metrics and curves show like any run's; "
                          "its SavedModel loads only after you say you trust it."):
        return
    try:
        run = import_run(store, upload.name, upload)
    except (OSError, ValueError) as err:
        st.error(f"Could not add it to your runs: {err}")
        return
    st.session_state[f"{key}.added"] = (upload.file_id, run.run_id)
    st.rerun()  # the page lists runs at its top: draw it again with the new one


KIND_TITLES = {"keras": "a Keras model (.keras)", "run": "a seqlab run zip (its model.keras)",
               "savedmodel": "a SavedModel"}


def _describe(model: UploadedModel) -> None:
    """What the upload is, what it was trained as, its parameters, and every endpoint's shapes."""
    meta = model.meta
    trained = f" · trained as {model_title(meta.model)} on {meta.dataset} ({meta.task})" if meta else ""
    weights = f" · {model.parameters:,} parameters" if model.parameters else ""
    st.markdown(f"`{model.name}` is **{KIND_TITLES[model.kind]}**{trained}{weights}.")
    rows = [{"endpoint": e.name, "inputs": ", ".join(f"{n} {shape_text(s)} {d}" for n, s, d in e.inputs),
             "outputs": e.outputs} for e in model.endpoints]  # fmt: skip
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _predict_with(model: UploadedModel, endpoint, key: str) -> None:
    if endpoint.reads_text or model.tokenizer is not None:
        texts = _texts("Texts", f"{key}.text", "one text per line")
        if texts is not None:
            _answer(uploaded_texts(model, endpoint, texts), model, texts)
        return
    meta = model.meta
    if meta is not None and get_task(meta.task).frame_window is not None:
        need = f"the column(s) {list(dict.fromkeys([*meta.features, *meta.known]))}, at least {meta.lookback} rows"
    else:
        (_, shape, _), *_ = endpoint.inputs
        need = (f"{shape[2]} numeric column(s), at least {shape[1]} rows (the last {shape[1]} are used)"
                if len(shape) == 3 else f"inputs {shape_text(shape)}, which a CSV cannot give")  # fmt: skip
    st.caption(f"Predict from a CSV with a header and {need}.")
    frame = _csv("CSV of input rows", f"{key}.csv", f"A header, then {need}.")
    if frame is not None:
        _answer(endpoint.call(windows_from_csv(model, endpoint, frame)), model, None)


def output_columns(width: int, tokenizer) -> list[str]:
    """The headers of ``width`` outputs: ``p(token)`` where they are one per token of the run's vocabulary (a
    language model's next-token probabilities), else their positions."""
    if tokenizer is not None and width == tokenizer.vocab_size:
        return [f"p({shown_token(t)})" for t in tokenizer.vocab]
    return [str(i) for i in range(width)]


def _answer(answer, model: UploadedModel, texts: list[str] | None) -> None:
    """The model's answer as tables: one row per input; class names as columns when the run zip names them."""
    parts = answer if isinstance(answer, dict) else {"prediction": answer}
    classes = model.meta.classes if model.meta else None
    for name, values in parts.items():
        values = np.asarray(values)
        if values.dtype.kind in "SO":
            values = np.vectorize(lambda v: v.decode() if isinstance(v, bytes) else v, otypes=[object])(values)
        if values.ndim == 2 and classes and values.shape[1] == len(classes):
            table = pd.DataFrame(values, columns=[f"p({c})" for c in classes])
            table.insert(0, "class", [classes[i] for i in values.argmax(axis=1)])
        elif values.ndim == 2 and len(values) == 1 and texts is None:  # one window: its outputs step by step
            name = model.meta.target if model.meta else name
            table = pd.DataFrame({"step": np.arange(1, values.shape[1] + 1), name: values[0]})
        elif values.ndim <= 2:
            flat = values.reshape(len(values), -1) if values.ndim else np.asarray([[values.item()]])
            table = pd.DataFrame(flat, columns=output_columns(flat.shape[1], model.tokenizer))
        else:
            st.caption(f"`{name}` has shape {values.shape}; each input's last step is shown.")
            last = values[:, -1].reshape(len(values), -1)
            table = pd.DataFrame(last, columns=output_columns(last.shape[1], model.tokenizer))
        if texts is not None and len(table) == len(texts):
            table.insert(0, "text", texts)
        if len(parts) > 1:
            st.markdown(f"`{name}`")
        st.dataframe(table, hide_index=True, width="content" if len(table.columns) <= 3 else "stretch")
