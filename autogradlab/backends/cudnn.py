"""``torch.backends.cudnn``'s switches, kept as set (no cuDNN here: see the package's note)."""
import contextlib

from .. import cuda as _cuda

deterministic = False
benchmark = False
enabled = True
allow_tf32 = True


def is_available() -> bool:
    """True where a GPU is (CuPy's convolutions stand in for cuDNN's)."""
    return _cuda.is_available()


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, deterministic=False, allow_tf32=True, **more):
    """``with cudnn.flags(...)``: the switches for the block, restored after."""
    names = {"enabled": enabled, "benchmark": benchmark, "deterministic": deterministic, "allow_tf32": allow_tf32}
    module = globals()
    saved = {name: module[name] for name in names}
    module.update(names)
    try:
        yield
    finally:
        module.update(saved)
