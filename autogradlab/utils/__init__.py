"""``torch.utils``'s counterpart: ``autogradlab.utils.data`` holds ``torch.utils.data``'s names, so lab code's
``from torch.utils.data import DataLoader, TensorDataset`` ports by changing ``torch`` to ``autogradlab``;
``autogradlab.utils.checkpoint`` is ``torch.utils.checkpoint`` (gradient checkpointing)."""
from . import checkpoint, data

__all__ = ["checkpoint", "data"]
