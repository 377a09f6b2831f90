"""``autograd.graph``: gradient edges and saved-tensor hooks (PyTorch's names)."""
from ..graph import GradientEdge, Node, get_gradient_edge, saved_tensors_hooks  # noqa: F401

__all__ = ["GradientEdge", "Node", "get_gradient_edge", "saved_tensors_hooks"]
