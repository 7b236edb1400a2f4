"""Registry: named things of one kind (datasets, architectures, tasks, tokenisers, samplers).

One small typed mapping in place of a copy per kind, so every kind refuses an
unknown name the same way: ``Unknown dataset 'x'; valid datasets: a, b.``
It imports nothing heavy: listing what is registered must stay free of
TensorFlow.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterator, TypeVar

from seqlab.checks import shown

T = TypeVar("T")


class Registry(Generic[T]):
    """Named entries of one kind, kept in the order they were registered.

    Args:
        kind: what an entry is, in messages (``dataset``).
        plural: its plural (default ``kind + "s"``).
        check: called on every entry before it is registered; raises
            ``ValueError`` to refuse it (e.g. an unknown task).
        load: imports the modules that register the entries, once, before the
            first read: plug-ins that import the registry, never imported by it.
    """

    def __init__(self, kind: str, plural: str | None = None, check: Callable[[T], None] | None = None,
                 load: Callable[[], None] | None = None):
        self.kind = kind
        self.plural = plural or f"{kind}s"
        self._check = check
        self._load = load
        self._entries: dict[str, T] = {}

    @property
    def _loaded(self) -> dict[str, T]:
        """The entries, once ``load`` has run (it runs once: the plug-ins it imports register as they load)."""
        if self._load is not None:
            load, self._load = self._load, None  # before loading: a plug-in may read the registry as it loads
            try:
                load()
            except BaseException:
                self._load = load  # a failed import leaves the registry to load again, never half-filled quietly
                raise
        return self._entries

    def register(self, name: str, entry: T) -> T:
        """Add (or replace) ``entry`` under ``name``; returns ``entry``, so it can end a definition."""
        if self._check is not None:
            self._check(entry)
        self._entries[name] = entry
        return entry

    def get(self, name) -> T:
        """The entry called ``name``; ``ValueError`` naming the valid ones otherwise."""
        if not isinstance(name, str) or name not in self._loaded:
            raise ValueError(f"Unknown {self.kind} {shown(name)}; valid {self.plural}: {self.names_text()}.")
        return self._loaded[name]

    def list(self, where: Callable[[T], bool] | None = None) -> list[T]:
        """Every entry (those for which ``where`` holds), in the order registered."""
        return [entry for entry in self._loaded.values() if where is None or where(entry)]

    def names(self) -> list[str]:
        return list(self._loaded)

    def names_text(self) -> str:
        """The names, sorted, as a message lists them (``none`` when empty)."""
        return ", ".join(sorted(self._loaded)) or "none"

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and name in self._loaded

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaded)

    def __len__(self) -> int:
        return len(self._loaded)
