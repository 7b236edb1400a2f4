"""The ``.ts`` text format of the UEA & UCR time-series classification archive (as sktime ships it).

A file is ``#`` comment lines, then ``@`` header lines, then ``@data`` and one
case a line::

    @problemName JapaneseVowels
    @univariate false
    @dimensions 12
    @equalLength false
    @classLabel true 1 2 3 4 5 6 7 8 9
    @data
    1.86,1.89,1.93:-0.20,-0.19,-0.23: ... :1

A case's dimensions are separated by ``:``, the values of one dimension by
``,``; the last field is the class label. Every dimension of a case has the
same length; cases may differ in length when ``@equalLength`` is false. This
reader takes what the archive's classification files use (no time stamps, no
missing values) and refuses anything else by line number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_TRUE, _FALSE = "true", "false"


@dataclass(frozen=True)
class TsCases:
    """The cases of one ``.ts`` file.

    Attributes:
        problem: ``@problemName``.
        values: one ``(T_i, F)`` float array per case, its steps by its ``F`` dimensions.
        labels: each case's class label as written.
        class_labels: the labels ``@classLabel`` declares, in its order.
    """

    problem: str
    values: tuple[np.ndarray, ...]
    labels: tuple[str, ...]
    class_labels: tuple[str, ...]


def parse_ts(text: str, what: str) -> TsCases:
    """The cases of the ``.ts`` file ``text`` (``what`` names it in messages).

    Raises:
        ValueError: a header is missing or unsupported, or a case line is malformed
            (with its line number).
    """
    header: dict[str, list[str]] = {}
    lines = text.splitlines()
    start = None
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if not line.startswith("@"):
            raise ValueError(f"{what}, line {number}: a case comes before @data; a .ts file names its headers first.")
        key, *words = line[1:].split()
        if key.lower() == "data":
            start = number
            break
        header[key.lower()] = words
    if start is None:
        raise ValueError(f"{what} has no @data line: it is not a .ts file of the time-series classification archive.")
    dimensions, class_labels = _check_header(header, what)
    values, labels = [], []
    for number, line in enumerate(lines[start:], start=start + 1):
        if line.strip():
            case, label = _case(line.strip(), dimensions, class_labels, f"{what}, line {number}")
            values.append(case)
            labels.append(label)
    if not values:
        raise ValueError(f"{what} holds no cases after @data.")
    if header["equallength"] == [_TRUE] and len({len(v) for v in values}) > 1:
        raise ValueError(f"{what} says @equalLength true, but its cases differ in length.")
    return TsCases(" ".join(header.get("problemname", [])), tuple(values), tuple(labels), class_labels)


def _check_header(header: dict[str, list[str]], what: str) -> tuple[int, tuple[str, ...]]:
    """The number of dimensions and the class labels; the options this reader does not handle are refused."""
    for key in ("univariate", "equallength", "classlabel"):
        if key not in header:
            raise ValueError(f"{what} has no @{key} header line before @data.")
    for key in ("timestamps", "missing"):
        if header.get(key, [_FALSE]) != [_FALSE]:
            raise ValueError(f"{what}: @{key} {' '.join(header[key])} is not supported (only 'false').")
    if header["classlabel"][:1] != [_TRUE] or len(header["classlabel"]) < 3:
        raise ValueError(f"{what}: @classLabel must be 'true' followed by two or more class labels.")
    univariate = header["univariate"] == [_TRUE]
    given = header.get("dimensions", ["1"] if univariate else [])
    if len(given) != 1 or not given[0].isdigit() or int(given[0]) < 1 or (univariate and given != ["1"]):
        raise ValueError(f"{what}: @dimensions must be a positive whole number (1 for a univariate file).")
    return int(given[0]), tuple(header["classlabel"][1:])


def _case(line: str, dimensions: int, class_labels: tuple[str, ...], where: str) -> tuple[np.ndarray, str]:
    """One case line -> ``(T, F)`` floats and its label."""
    *fields, label = line.split(":")
    if len(fields) != dimensions:
        raise ValueError(f"{where}: {len(fields)} dimensions and a label, but @dimensions says {dimensions}.")
    if label.strip() not in class_labels:
        raise ValueError(f"{where}: class label {label.strip()!r} is not one of @classLabel's {class_labels}.")
    try:
        series = [np.array(field.split(","), dtype="float64") for field in fields]
    except ValueError:
        raise ValueError(f"{where}: a value is not a number (a dimension is comma-separated numbers).") from None
    if len({len(s) for s in series}) != 1:
        raise ValueError(f"{where}: the dimensions of one case differ in length.")
    case = np.stack(series, axis=1)  # (T, F)
    if not np.isfinite(case).all():
        raise ValueError(f"{where}: a value is not finite (missing values are not supported).")
    return case, label.strip()
