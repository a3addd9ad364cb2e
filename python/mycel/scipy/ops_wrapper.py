"""mindspore.scipy.ops_wrapper: matrix_set_diag and matrix_band_part under the names and
arguments MindSpore's scipy code uses (they are mycel.ops' functions)."""
from mycel import ops as _ops


def matrix_set_diag(input_x, diagonal, k=0, alignment="RIGHT_LEFT"):
    """input_x with its diagonals k (an int or a (k0, k1) band) replaced by diagonal, laid
    out as alignment says (mycel.ops.matrix_set_diag)."""
    return _ops.matrix_set_diag(input_x, diagonal, k, alignment)


def matrix_band_part(x, lower, upper):
    """x's band lower below and upper above the diagonal (a negative bound keeps the whole
    triangle); mycel.ops.matrix_band_part."""
    return _ops.matrix_band_part(x, lower, upper)
