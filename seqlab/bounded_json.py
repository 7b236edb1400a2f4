"""JSON and TOML that a user can hand in or change, parsed within a size bound and a nesting bound.

Python's parsers recurse once per level of nesting, so a file of ``[[[[...]]]]``
a few thousand levels deep raises ``RecursionError`` (a traceback, where a
clear message belongs), and a value a few hundred levels deep that still
parses fails later in whatever walks it recursively (Keras's deserialising).
So every such file seqlab reads (a run's JSON files, a tokeniser, a ``.keras``
model's config, the server's ``SEQLAB_CONFIG``) comes through here, and a
``--set`` value through ``check_depth``:

- read as the input gate reads a path (``seqlab.local_file``): a local, regular
  file (a FIFO or a device is refused from ``os.stat``, never opened), at most
  the byte bound of its kind;
- its nesting counted before any parser runs: brackets outside strings (and,
  in TOML, outside comments), refused past ``MAX_DEPTH`` levels;
- then parsed; any failure is one ``ValueError`` naming the file.

The bounds per kind, from the files seqlab writes (measured on a sine MLP, a
pydoc LSTM and a toy-pairs seq2seq run): the deepest is a ``.keras`` config at
13 levels, so ``MAX_DEPTH`` leaves room for much larger models and stays far
below Python's recursion limit of 1,000.
"""

from __future__ import annotations

import json
import os
import re
import tomllib

import numpy as np

from seqlab.local_file import file_label, read_local

_KB = 1 << 10
_MB = 1 << 20
MAX_DEPTH = 100
# Bytes per kind of file; each a generous multiple of the largest measured.
MANIFEST_BYTES = 1 * _MB  # 1.5 KB for 10 to 14 files, about 150 bytes a file
RECORD_BYTES = 4 * _MB  # spec.json, meta.json, metrics.json, scaler.json: at most 6 KB measured
NAME_BYTES = 4 * _KB  # name.json: 80 characters, at most 12 bytes each when escaped
HISTORY_BYTES = 384 * _MB  # about 300 bytes a batch: a run of 1,000,000 batches (max_steps) writes 300 MB
TOKENIZER_BYTES = 16 * _MB  # a BPE vocabulary takes about 38 bytes a token: 3.8 MB at its maximum, 100,000
KERAS_CONFIG_BYTES = 16 * _MB  # config.json of a .keras model: 5 to 7 KB for the models measured
CONFIG_FILE_BYTES = 64 * _KB  # SEQLAB_CONFIG: a [limits] table of a few lines

# What the depth count skips: a JSON string; in TOML, its four kinds of string and comments. An unclosed
# string runs to the end (of its line, for TOML's one-line ones), so every character is scanned once.
_JSON_SKIPPED = re.compile(r'"(?:[^"\\]|\\.)*+"?', re.DOTALL)
_TOML_SKIPPED = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*+(?:"""|\Z)|\'\'\'[\s\S]*?(?:\'\'\'|\Z)|"(?:[^"\\\n]|\\.)*+"?|\'[^\'\n]*\'?|#[^\n]*'
)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_OPENING = np.frombuffer(b"[{", np.uint8)
_STEP = 1 << 20  # brackets counted per step, so a file of brackets only never needs an array per character


def check_depth(text: str, what: str, toml: bool = False) -> None:
    """``ValueError`` when ``text`` nests arrays and objects (tables) more than ``MAX_DEPTH`` levels deep.

    Counted on the brackets left once strings (and TOML's comments) are cut out, so
    a ``[`` inside a string never counts (nor any after an unclosed string, which
    the parser refuses anyway).
    """
    brackets = _NOT_BRACKETS.sub("", (_TOML_SKIPPED if toml else _JSON_SKIPPED).sub("", text)).encode("ascii")
    depth = 0
    for start in range(0, len(brackets), _STEP):
        codes = np.frombuffer(brackets[start:start + _STEP], np.uint8)
        running = depth + np.cumsum(np.where(np.isin(codes, _OPENING), 1, -1))
        depth = int(running[-1])
        if running.max() > MAX_DEPTH:
            raise ValueError(
                f"{what} nests arrays or objects more than {MAX_DEPTH} levels deep, the limit (seqlab's own files "
                "and settings need at most 13)."
            )


def parse_json(data: str | bytes, what: str, max_bytes: int):
    """The JSON value in ``data`` (UTF-8 bytes or text), within ``max_bytes`` and ``MAX_DEPTH``."""
    text = _text(data, what, max_bytes)
    check_depth(text, what)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:  # JSONDecodeError; an integer of thousands of digits
        raise ValueError(f"{what} is not valid JSON ({err}).") from None


def read_json(path: str | os.PathLike, what: str, max_bytes: int):
    """The JSON value in the file ``path`` (see ``parse_json``); ``what`` names it in messages."""
    return parse_json(_read(path, max_bytes), what, max_bytes)


def parse_toml(data: str | bytes, what: str, max_bytes: int) -> dict:
    """The TOML document in ``data``, within ``max_bytes`` and ``MAX_DEPTH``."""
    text = _text(data, what, max_bytes)
    check_depth(text, what, toml=True)
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as err:
        raise ValueError(f"{what} is not valid TOML ({err}).") from None


def read_toml(path: str | os.PathLike, what: str, max_bytes: int) -> dict:
    """The TOML document in the file ``path`` (see ``parse_toml``)."""
    return parse_toml(_read(path, max_bytes), what, max_bytes)


def _read(path, max_bytes: int) -> bytes:
    return read_local(path, max_bytes, file_label("file", path))  # messages name the path


def _text(data: str | bytes, what: str, max_bytes: int) -> str:
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > max_bytes:
        raise ValueError(f"{what} is {size:,} bytes; the limit for it is {max_bytes:,}: it was damaged, or not "
                         "written by seqlab.")
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{what} is not UTF-8 text (byte {err.start:,}).") from None
