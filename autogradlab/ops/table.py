"""The op table: every registered op with its forward and gradient, as markdown.

    python -m autogradlab.ops.table        # prints it (README's "Op table" section is this output)

One row per op in :data:`REGISTRY` (in registration order), taken from its
:class:`OpDef` (``math`` is written ``"forward;  gradient"``), then the
composite ops, which have no node of their own: their gradient comes from the
ops they are built of.
"""
from __future__ import annotations

from . import REGISTRY

__all__ = ["op_table", "COMPOSITES"]

# public functions that record other ops' nodes, as markdown cells:
# (name, built from, forward, gradient)
COMPOSITES = (
    ("`masked_fill`", "where", "`where(mask, value, a)` in a's dtype",
     "`da = g*[not mask], dvalue = sum(g*[mask])` (a 0-d value tensor)"),
    ("`flatten`", "reshape", "merge dims `start_dim..end_dim`", "`da = reshape_back(g)`"),
    ("`view`", "reshape", "`reshape(a)` sharing a's memory (refuses a layout it cannot view)",
     "`da = reshape_back(g)`"),
    ("`squeeze`, `unsqueeze`", "reshape", "drop / insert size-1 dims", "`da = reshape_back(g)`"),
    ("`split`, `chunk`", "getitem", "slices along dim", "`da` = the pieces of `g` put back in place"),
    ("`unbind`", "getitem", "`a[..., i, ...]` for each `i` along dim", "`da` = the pieces of `g` stacked"),
    ("`outer`", "unsqueeze, mul", "`a[:, None] * b[None, :]`", "`da = g @ b, db = g^T @ a`"),
    ("`square`", "pow", "`a ** 2` (PyTorch records it as pow too)", "`da = g*2*a`"),
    ("`gather`", "index", "`a[..., index, ...]` along dim (the same position along the other dims)",
     "`da = zeros with g added at index` (repeats add up)"),
    ("`sort`, `topk`", "index", "`(values, indices)`: the order found on the arrays (stable), the values gathered",
     "`da = zeros with g added at indices`"),
    ("`t`", "transpose", "`transpose(a, 0, 1)` (0-d and 1-d: a view of a, unchanged)", "`da = g^T`"),
    ("`mm`, `mv`, `bmm`", "matmul", "`matmul` of exactly 2-D by 2-D, 2-D by 1-D, 3-D by 3-D (equal batches)",
     "`dA = g @ B^T, dB = A^T @ g`"),
    ("`float`, `double`, `half`", "to_dtype", "`a.to(float32)`, `float64`, `float16` (a itself if already so)",
     "`da = cast_back(g)`"),
    ("`long`, `int`, `bool`", "to_dtype", "`a.to(int64)`, `int32`, `bool`", "not differentiable"),
    ("`allclose`", "isclose", "a Python bool: every element close (see `isclose`)", "not differentiable"),
    ("`repeat`, `tile`", "reshape, expand", "copies of a along each dim (tile: leading 1s added)",
     "`da` = the copies of `g` summed"),
    ("`repeat_interleave`, `index_select`, `roll`", "index",
     "entries along dim picked by an index (each entry n times; the given ones; shifted, wrapping)",
     "`da = zeros with g added at the index` (repeats add up)"),
    ("`narrow`", "getitem", "`length` entries along dim from `start` (a view)", "`da = zeros with g in place`"),
    ("`movedim`, `swapaxes`", "permute, transpose", "dims moved / two dims swapped (views)", "`da = g` moved back"),
    ("`diag`", "diagonal, clone, index_put", "of a matrix: a copy of its diagonal; of a vector: a matrix with it on a "
     "diagonal", "`da` = `g`'s diagonal / `g` put back on the diagonal"),
    ("`meshgrid`", "reshape, expand", "coordinate grids (`ij` or `xy`)", "`da` = each grid summed over the other dims"),
    ("`diff`", "cat, getitem, sub", "`a[1:] - a[:-1]` along dim, n times", "`da` = the differences' adjoint"),
    ("`lerp`", "sub, mul, add", "`a + w*(b - a)`", "`da = g*(1 - w), db = g*w, dw = g*(b - a)`"),
    ("`addmm`", "matmul, mul, add", "`beta*input + alpha*(A @ B)`", "`dinput = beta*g, dA = alpha*g @ B^T, ...`"),
    ("`scatter`", "index_put", "`input` with `src` written along dim at index (`out[index[i][j]][j] = src[i][j]`)",
     "`dinput = g` with zeros where written, `dsrc = gather(g, dim, index)`"),
    ("`scatter_add`, `index_add`", "index_add_into, add",
     "`input` plus `src` (`alpha*source`) added along dim at index (repeats add up)",
     "`dinput = g, dsrc = gather(g, dim, index)` (`alpha*index_select(g, dim, index)`)"),
    ("`scatter_reduce` ('sum', 'mean'; 'amax', 'amin': scatter_extreme; 'prod': scatter_prod)", "mul, index_add_into, add, div",
     "`input` (unless `include_self=False`) and the `src` values sent to each position, summed or averaged",
     "`dinput = g` (/ count), `dsrc = gather(g / count, dim, index)`"),
    ("`take_along_dim`", "expand, index", "`gather` of input and index broadcast against each other (dim=None: "
     "flattened)", "`da = zeros with g added at the indices`"),
    ("`masked_select`", "expand, index", "the elements where mask (broadcast) is True, as a 1-D tensor",
     "`da = zeros with g where mask`"),
    ("`nonzero`, `argwhere`, `unique`, `bincount`, `count_nonzero`", "(arrays only)",
     "index-valued results computed on the arrays", "not differentiable"),
    ("`cumprod`", "where, prod", "`y_i = prod_j m_ij`, `m_ij = a_j` for `j <= i`, else 1",
     "`da_j = sum_{i >= j} g_i * (product of a_0..a_i without a_j)` (exact with zeros)"),
    ("`cross`", "narrow, mul, sub, cat", "`(a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)` along dim",
     "`da = b x g, db = g x a`"),
    ("`kron`", "reshape, mul", "`out[i*n + k] = a_i * b_k` in each dim", "`da_i = sum_k g[i*n + k] b_k`, likewise db"),
    ("`cdist`", "sub, norm (p=2) / abs, sum (p=1) / vector_norm (other p)", "`||x1_i - x2_j||_p` for each pair of rows",
     "`dx1_i = sum_j g_ij (x1_i - x2_j)/d_ij` (0 where d = 0), p=1: `sign(x1_i - x2_j)`, else vector_norm's"),
    ("`quantile`, `nanquantile`", "sort, gather, lerp",
     "the value at sorted position `q*(n - 1)`, interpolated between its two neighbours (NaN sorts last)",
     "`g*(1 - w)` to the element below, `g*w` to the one above"),
    ("`nansum`, `nanmean`", "where, sum, div", "the sum (mean) with NaN left out", "`da = g` (`g/count`), 0 at NaN"),
    ("`std_mean`, `var_mean`", "std / var, mean", "`(std(a), mean(a))`, `(var(a), mean(a))`",
     "the sum of both gradients"),
    ("`cov`, `corrcoef`", "sub, mul, matmul, div (sqrt, clamp)",
     "`(x - mean) @ (x - mean)^T / (N - correction)` (weighted), `cov / sqrt(var_i var_j)`",
     "`dx = (g + g^T) @ (x - mean) / (N - correction)` (unweighted)"),
    ("`hstack`, `vstack`, `dstack`, `column_stack`, `atleast_1d/2d/3d`", "reshape, cat",
     "join along dim 0/1 (side by side), 0 (rows), 2 (depth), 1 (columns) after adding dims",
     "`da` = its piece of `g`"),
    ("`tensor_split`", "getitem", "views cut into n parts or at indices", "`da` = the pieces of `g` put back"),
    ("`block_diag`", "cat", "blocks on the diagonal, zeros elsewhere", "`da` = its block of `g`"),
    ("`cartesian_prod`", "meshgrid, stack", "every combination of one element per vector, as rows",
     "`da_i` = the sum of `g` over the rows that use `a_i`"),
    ("`rot90`", "flip, transpose", "turned by 90 degrees k times in the plane of dims", "`da = g` turned back"),
    ("`take`", "reshape, index", "`a.flatten()[index]`", "`da = zeros with g added at index` (repeats add up)"),
    ("`unfold` (method)", "index, movedim", "windows of `size` every `step` along a dim, as a new last dim (a copy)",
     "`da` = the windows of `g` added back in place"),
    ("`diag_embed`", "index_put, movedim", "the last dim put on a diagonal of new square matrices",
     "`da` = `g`'s diagonal"),
    ("`tensordot`, `inner`", "permute, reshape, matmul", "`sum_k a[..., k] b[k, ...]` over paired dims",
     "`da = g @ b^T, db = a^T @ g` (on the reshaped operands)"),
)


def _cell(text: str) -> str:
    """A table cell as inline code (``*`` and ``_`` stay literal; ``|`` is escaped for the table)."""
    return "`" + text.strip().replace("|", "\\|") + "`" if text.strip() else ""


def _split_math(op):
    forward, _, gradient = op.math.partition(";")
    if not op.differentiable:
        return forward, "not differentiable (the result never requires grad)"
    return forward, gradient


def op_table() -> str:
    """The op table as markdown (one row per registered op, then the composite ops)."""
    rows = ["| op | backward node | forward | gradient (g = incoming gradient) |",
            "| --- | --- | --- | --- |"]
    for name, op in REGISTRY.items():
        forward, gradient = _split_math(op)
        gradient_cell = _cell(gradient) if op.differentiable else gradient
        rows.append(f"| {_cell(name)} | {_cell(op.node_name) if op.differentiable else '-'} | "
                    f"{_cell(forward)} | {gradient_cell} |")
    for name, parts, forward, gradient in COMPOSITES:
        rows.append(f"| {name} | composite of {parts} | {forward} | {gradient} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(op_table())
