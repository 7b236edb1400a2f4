import pytest

from seqlab.layers.tcn import receptive_field, receptive_offsets, receptive_positions


@pytest.mark.parametrize("kernel_size, levels", [(2, 1), (2, 4), (3, 4), (5, 3)])
def test_doubling_dilations_read_every_step_of_the_closed_form_window(kernel_size, levels):
    dilations = [2**l for l in range(levels)]
    R = receptive_field(kernel_size, dilations)
    assert R == 1 + 2 * (kernel_size - 1) * (2**levels - 1)
    assert receptive_offsets(kernel_size, dilations) == list(range(R))


def test_one_convolution_per_block_and_holes():
    assert receptive_field(3, [1, 3], convolutions_per_block=1) == 9
    assert receptive_offsets(3, [1, 3], convolutions_per_block=1) == list(range(9))  # 3-ary digits
    assert receptive_offsets(2, [2], convolutions_per_block=1) == [0, 2]
    assert receptive_offsets(1, [1, 2]) == [0]  # kernel size 1: each step alone


def test_positions_stop_at_the_start_of_the_sequence():
    assert receptive_positions(2, 2, [1, 2]) == [0, 1, 2]
    assert receptive_positions(10, 2, [1, 2]) == [4, 5, 6, 7, 8, 9, 10]


@pytest.mark.parametrize("call, message", [
    (lambda: receptive_field(0, [1]), "kernel_size"), (lambda: receptive_field(2, []), "dilations"),
    (lambda: receptive_field(2, [1, 2.5]), "dilations"), (lambda: receptive_field(2, [1], 0), "convolutions_per_block"),
    (lambda: receptive_positions(-1, 2, [1]), "t must"), (lambda: receptive_offsets(2, "1,2"), "dilations"),
])
def test_bad_arguments_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()
