r"""The LaTeX of a layer's `Equations:` docstring section, for the app to render.

A layer's docstring opens with one line, then an `Equations:` section whose
`$$ ... $$` blocks use the lecture's symbols; `equations(obj)` returns those
blocks, so the equation on screen is the one written next to the code.
"""

import inspect
import re

_BLOCK = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
# A Keras-style section header: an indented capitalised word and a colon on its own line.
_SECTION = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$", re.MULTILINE)


def equations(obj):
    """The `$$ ... $$` blocks of `obj`'s `Equations:` section, without the `$$`.

    Args:
        obj: A class or an instance (its class's docstring is used).

    Returns:
        A list of LaTeX strings, one per block, whitespace collapsed; empty when
        the class's own docstring has no `Equations:` section.
    """
    cls = obj if inspect.isclass(obj) else type(obj)
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")  # its own, not inherited
    start = re.search(r"^Equations:\s*$", doc, re.MULTILINE)
    if start is None:
        return []
    section = doc[start.end() :]
    end = _SECTION.search(section)
    if end is not None:
        section = section[: end.start()]
    return [" ".join(block.split()) for block in _BLOCK.findall(section)]


def own_convention(blocks, other, own=""):
    """Of ``blocks`` that document two conventions of a layer, its own: drop those holding ``other``'s tag, strip
    ``own``'s tag where given (e.g. a GRU's ``reset_after``, a Transformer block's post-norm and pre-norm)."""
    return [block.replace(own, "").strip() for block in blocks if other not in block]
