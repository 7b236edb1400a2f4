"""Equations beside pictures: a docstring's long lines broken where the maths allows, so none is cut at the right."""

from seqlab.app.format import NARROW_LINE, read_width, stacked_latex
from seqlab.layers.docs import equations
from seqlab.layers.markov.hmm import HMM


def lines(block: str) -> list[str]:
    body = stacked_latex(block).removeprefix(r"\footnotesize \begin{gathered} ").removesuffix(r" \end{gathered}")
    return body.split(r" \\ ")


def test_every_line_of_the_hmms_equations_fits_half_the_page():
    joint = lines(equations(HMM)[0])
    assert joint == [r"p(x_1, \dots, x_N, z_1, \dots, z_N) = p(z_1)",
                     r"\prod_{n=2}^N p(z_n | z_{n-1}) \prod_{n=1}^N p(x_n | z_n)"]
    for block in equations(HMM):
        assert all(read_width(line) <= NARROW_LINE for line in lines(block)), lines(block)


def test_a_line_breaks_outside_brackets_before_a_plus_or_an_equals():
    forward = lines(equations(HMM)[2])[1:]
    # Nothing outside the brackets left to break at: \left( ... \right) becomes \bigl( ... \bigr), which may.
    assert forward == [r"\log \alpha_n(k) = \log B_{k x_n}", r"+ \operatorname{logsumexp}_j \bigl( \log \alpha_{n-1}(j)",
                       r"+ \log A_{jk} \bigr)"]
    viterbi = lines(equations(HMM)[5])
    assert viterbi[2] == r"+ \max_j \left( \log \delta_{n-1}(j) + \log A_{jk} \right),"  # fits: the pair stays
    assert read_width(r"\log \alpha_n(k)") == 3 + 1 + 1 + 3  # log, α, n, (k): a named operator shows its letters
    assert lines("a = b") == ["a = b"]  # a short line stays whole
