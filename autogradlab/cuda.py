"""``torch.cuda``'s everyday questions, so ``device = "cuda" if autogradlab.cuda.is_available() else "cpu"``
ports. A GPU is reached through CuPy (``pip install 'autogradlab[gpu]'``); without it there is none.

One generator serves every device here: draws are made on the host and moved, so ``autogradlab.manual_seed``
seeds GPU tensors too. ``manual_seed`` and ``manual_seed_all`` below check the seed as PyTorch does and change
nothing, so lab code that seeds both ports unchanged and draws the same numbers as with ``manual_seed`` alone.
"""
from __future__ import annotations

from . import backend, creation

__all__ = ["is_available", "device_count", "current_device", "synchronize", "manual_seed", "manual_seed_all"]


def is_available() -> bool:
    """True when a GPU can hold tensors (CuPy installed and a device visible)."""
    try:
        backend.xp_for("cuda:0")
    except backend.DeviceError:
        return False
    return True


def device_count() -> int:
    """The number of GPUs visible (0 without CuPy)."""
    if not is_available():
        return 0
    return int(backend.xp_for("cuda:0").cuda.runtime.getDeviceCount())


def current_device() -> int:
    """The index of the GPU that ``device="cuda"`` means: 0."""
    if not is_available():
        raise RuntimeError("current_device(): no GPU is available (autogradlab.cuda.is_available() is False)")
    return 0


def synchronize(device=None) -> None:
    """Wait until the GPU has finished its queued work (for timing); nothing to wait for without one."""
    if is_available():
        backend.xp_for("cuda:0").cuda.Device().synchronize()


def manual_seed(seed) -> None:
    """Checks ``seed`` as ``autogradlab.manual_seed`` does; seeds nothing (see the module's note)."""
    creation._wrapped(int(seed))


def manual_seed_all(seed) -> None:
    """The same as :func:`manual_seed` (one generator serves all devices)."""
    manual_seed(seed)
