"""Cases for Gemm, MatMul and Einsum import tests.

Loaded by gen_onnx.py, which injects `case`, `model`, `vi` and `weight`.
"""
from onnx import TensorProto, helper

F = TensorProto.FLOAT


@case
def gemm():
    """Gemm with transB, alpha, beta and a [N] bias; and one with transA, no C."""
    nodes = [
        helper.make_node("Gemm", ["a", "w", "c"], ["g"], name="gemm_tb",
                         transB=1, alpha=0.5, beta=2.0),
        helper.make_node("Gemm", ["g", "v"], ["y"], name="gemm_ta", transA=1),
    ]
    return model(nodes, [vi("a", F, [2, 3]), vi("w", F, [4, 3]), vi("c", F, [4]),
                         vi("v", F, [2, 5])],
                 [vi("y", F, [4, 5])])


@case
def matmul_1d():
    """numpy matmul promotion: [3] x [3,4] -> [4], [2,3] x [3] -> [2], [3] x [3] -> []."""
    nodes = [
        helper.make_node("MatMul", ["v", "m"], ["vm"], name="vec_mat"),
        helper.make_node("MatMul", ["n", "v"], ["mv"], name="mat_vec"),
        helper.make_node("MatMul", ["v", "v"], ["vv"], name="vec_vec"),
    ]
    return model(nodes, [vi("v", F, [3]), vi("m", F, [3, 4]), vi("n", F, [2, 3])],
                 [vi("vm", F, [4]), vi("mv", F, [2]), vi("vv", F, [])])


@case
def matmul_batch():
    """Batch dims broadcast: [2,1,3,4] x [5,4,6] -> [2,5,3,6]; [2,3,4] x [4,6]."""
    nodes = [
        helper.make_node("MatMul", ["a", "b"], ["y"], name="bcast"),
        helper.make_node("MatMul", ["c", "d"], ["z"], name="rhs_2d"),
    ]
    return model(nodes, [vi("a", F, [2, 1, 3, 4]), vi("b", F, [5, 4, 6]),
                         vi("c", F, [2, 3, 4]), vi("d", F, [4, 6])],
                 [vi("y", F, [2, 5, 3, 6]), vi("z", F, [2, 3, 6])])


def _einsum(eq, shapes, out_shape):
    names = ["a", "b", "c"][:len(shapes)]
    node = helper.make_node("Einsum", names, ["y"], name="einsum0", equation=eq)
    return model([node], [vi(n, F, s) for n, s in zip(names, shapes)],
                 [vi("y", F, out_shape)], opset=13)


@case
def einsum_bmm():
    return _einsum("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5])


@case
def einsum_attention():
    """q k^T per head: the rhs is transposed to [b, h, d, j]."""
    return _einsum("bhid,bhjd->bhij", [[1, 2, 3, 8], [1, 2, 5, 8]], [1, 2, 3, 5])


@case
def einsum_transpose():
    return _einsum("abc->cab", [[2, 3, 4]], [4, 2, 3])


@case
def einsum_implicit():
    """Implicit output (alphabetical free indices): "ij,jk" is ik."""
    return _einsum("ij,jk", [[2, 3], [3, 4]], [2, 4])


@case
def einsum_merge():
    """Two contracted indices: operands reshaped to [M, K] x [K, N] and back."""
    return _einsum("ijk,jkl->il", [[2, 3, 4], [3, 4, 5]], [2, 5])


@case
def einsum_ellipsis():
    return _einsum("...ij,...jk->...ik", [[2, 3, 4], [2, 4, 5]], [2, 3, 5])


@case
def einsum_out_transpose():
    """The product comes out as [i, j] and is transposed to the requested [j, i]."""
    return _einsum("ik,kj->ji", [[2, 3], [3, 4]], [4, 2])
