r"""Which input steps an output of a temporal convolutional network reads: its receptive field.

Each dilated causal convolution of kernel size $k$ and dilation $d$ reads its
input at the offsets $\{0, d, 2d, \dots, (k-1)d\}$ back in time; stacked
convolutions add their offsets (a Minkowski sum), and a residual connection
adds offset 0, which every convolution already reads. So a network of blocks
of `convolutions_per_block` convolutions with dilations $d_1, \dots, d_L$
reads at most $R = 1 + c\,(k-1)\sum_l d_l$ steps, and every step in between
when each dilation is at most the span below it (e.g. $d_l = 2^{l-1}$);
other dilations leave holes, which `receptive_offsets` lists exactly.
"""

import numbers

from seqlab.checks import check_positive_int

__all__ = ["receptive_field", "receptive_offsets", "receptive_positions"]


def _checked(kernel_size, dilations, convolutions_per_block):
    kernel_size = check_positive_int("kernel_size", kernel_size)
    convolutions_per_block = check_positive_int("convolutions_per_block", convolutions_per_block)
    return kernel_size, check_dilations(dilations), convolutions_per_block


def check_dilations(dilations):
    """``dilations`` as a list of positive integers, else a ValueError naming the argument."""
    values = list(dilations) if isinstance(dilations, (list, tuple)) else None
    if not values or any(isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 1 for d in values):
        raise ValueError(
            f"dilations must be a non-empty list of positive integers (e.g. [1, 2, 4, 8]), got {dilations!r}."
        )
    return [int(d) for d in values]


def receptive_field(kernel_size, dilations, convolutions_per_block=2):
    r"""$R = 1 + c\,(k-1)\sum_l d_l$: how many steps back (the output's own step included) an output can read.

    Args:
        kernel_size: $k$, the kernel size of every convolution.
        dilations: $d_1, \dots, d_L$, one per residual block.
        convolutions_per_block: $c$, the causal convolutions in each block (2 in Bai et al. 2018).

    Returns:
        The integer $R$: output $t$ reads inputs $t - R + 1, \dots, t$ at most.
    """
    kernel_size, dilations, convolutions_per_block = _checked(kernel_size, dilations, convolutions_per_block)
    return 1 + convolutions_per_block * (kernel_size - 1) * sum(dilations)


def receptive_offsets(kernel_size, dilations, convolutions_per_block=2):
    """The offsets $s$ such that output $t$ reads input $t - s$, ascending (0 first, $R - 1$ last).

    Arguments as `receptive_field`.
    """
    kernel_size, dilations, convolutions_per_block = _checked(kernel_size, dilations, convolutions_per_block)
    offsets = {0}
    for d in dilations:
        for _ in range(convolutions_per_block):
            offsets = {s + d * i for s in offsets for i in range(kernel_size)}
    return sorted(offsets)


def receptive_positions(t, kernel_size, dilations, convolutions_per_block=2):
    """The input positions (0-based, ascending) that output position ``t`` reads; none before the sequence.

    Arguments as `receptive_field`, plus ``t``, an output position >= 0.
    """
    if isinstance(t, bool) or not isinstance(t, numbers.Integral) or t < 0:
        raise ValueError(f"t must be an output position, an integer >= 0, got {t!r}.")
    return [int(t) - s for s in reversed(receptive_offsets(kernel_size, dilations, convolutions_per_block)) if s <= t]
