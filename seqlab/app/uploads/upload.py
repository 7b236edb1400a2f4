"""How the Data and Train pages ask for the user's own file, per dataset that reads one.

A dataset whose options name a file (``path``, ``sha256``, ``file_name``)
registers an ``Upload`` here under its name: a widget that takes the upload,
checks and stores it, and returns the data options it sets (the stored copy
and, for a CSV series, its columns); the pages leave those options out of
their option grids. A page never asks which dataset it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import streamlit as st

from seqlab.data import DatasetInfo
from seqlab.data.pinned_file import FILE_DEFAULTS
from seqlab.data.user_text_dataset import store_user_text
from seqlab.limits import current_limits
from seqlab.registry import Registry


@dataclass(frozen=True)
class Upload:
    """A dataset's file upload.

    Attributes:
        widget: ``(key, data_options) -> options | None``: the upload and its choices; ``None``
            until a usable file is given (a refused one is an ``st.error`` saying why).
            ``data_options``: the page's other data options so far (lookback, ...).
        options: the data options the widget sets, left out of the page's option grids.
        prompt: what the Data page says before a file is given.
    """

    widget: Callable[[str, dict], dict | None]
    options: tuple[str, ...]
    prompt: str


UPLOADS: Registry[Upload] = Registry("file upload")


def upload_for(info: DatasetInfo) -> Upload | None:
    """The dataset's upload, ``None`` for a dataset that ships with seqlab."""
    return UPLOADS.get(info.name) if info.name in UPLOADS else None


def stored_upload(label: str, kinds: list[str], key: str, store: Callable, help_text: str) -> dict | None:
    """A file uploader whose file ``store(upload)`` checks and keeps: its data options, or ``None``.

    The stored copy outlives reruns and the background job, so a spec points at it rather than at
    the upload; a refused file is an ``st.error`` with the reason.
    """
    limit = current_limits().max_upload_mb
    upload = st.file_uploader(label, type=kinds, key=key, max_upload_size=limit,
                              help=f"{help_text} At most {limit} MB.")  # fmt: skip
    if upload is None:
        return None
    try:
        return store(upload)
    except ValueError as err:
        st.error(str(err))
        return None


def stored_csv(label: str, key: str, store: Callable, help_text: str, describe: Callable):
    """A ``.csv`` upload kept like ``stored_upload``, and ``describe(**options)`` of its columns.

    ``(options, description)``, or ``None`` after saying what is wrong with the file.
    """
    stored = stored_upload(label, ["csv"], key, store, help_text)
    if stored is None:
        return None
    try:
        return stored, describe(**stored)
    except ValueError as err:
        st.error(str(err))
        return None


def text_upload(key: str, data_options: dict) -> dict | None:
    """A ``.txt`` upload checked by ``store_user_text`` (too large, not text, shorter than the context)."""
    return stored_upload(
        "Your text (.txt)", ["txt"], key,
        lambda upload: store_user_text(upload, upload.name, data_options.get("lookback")),
        "Plain text; UTF-8 or UTF-16, or a legacy encoding that can be recognised.",
    )  # fmt: skip


UPLOADS.register(
    "text",
    Upload(
        text_upload, tuple(FILE_DEFAULTS), "Upload a .txt file to see it as a dataset; the Train page takes the same file."
    ),
)
