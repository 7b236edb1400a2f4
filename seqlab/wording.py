"""How the dashboard and the lessons count things in prose: ``counted(1, "epoch")`` is "1 epoch", not "1 epochs"."""


def counted(n: int, noun: str) -> str:
    """``n`` (thousands separated) and ``noun``, plural unless ``n`` is one: "1 epoch", "1,200 steps"."""
    return f"{n:,} {noun}{'s' * (n != 1)}"
