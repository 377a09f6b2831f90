"""``torch.backends.cuda``: built for CUDA when CuPy sees a GPU; the matmul switches are kept as set."""
from types import SimpleNamespace

from .. import cuda as _cuda

matmul = SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                         allow_bf16_reduced_precision_reduction=True)


def is_built() -> bool:
    return _cuda.is_available()
