"""``TensorDataset`` and ``DataLoader`` for ``autogradlab.data``: they live in ``autogradlab/utils/data.py``,
where PyTorch keeps them (``torch.utils.data``), and are the same classes here.

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True, seed=0)
    for epoch in range(10):
        for xb, yb in loader:          # a new (seeded) order every epoch
            ...

(``DataLoader((X, y), ...)`` also works here; PyTorch needs the ``TensorDataset``.)
"""
from ..utils.data import DataLoader, TensorDataset

__all__ = ["TensorDataset", "DataLoader"]
