"""The translation-pairs upload: a tab-separated file, one pair a line.

Registered as the ``pairs`` dataset's upload (``seqlab.app.uploads.upload``); the file
is checked by ``store_pairs`` (limits, encoding, a tab on every line, text on
both sides) before it is kept, so a refused file says which lines are wrong.
"""

from __future__ import annotations

from seqlab.app.uploads.upload import UPLOADS, Upload, stored_upload
from seqlab.data.pinned_file import FILE_DEFAULTS
from seqlab.data.user_pairs import NAME, store_pairs


def pairs_upload(key: str, data_options: dict) -> dict | None:
    """The upload: the ``pairs`` dataset's file options, or ``None`` until a usable file is given."""
    return stored_upload(
        "Your translation pairs (.tsv or .txt)", ["tsv", "txt"], key,
        lambda upload: store_pairs(upload, upload.name),
        "One pair a line: the source, a tab, the target; UTF-8 or UTF-16, or a legacy encoding that can be "
        "recognised.",
    )  # fmt: skip


UPLOADS.register(
    NAME,
    Upload(
        pairs_upload,
        tuple(FILE_DEFAULTS),
        "Upload a tab-separated file (one pair a line: source, a tab, target) to see it as a translation dataset; "
        "the Train page takes the same file.",
    ),
)
