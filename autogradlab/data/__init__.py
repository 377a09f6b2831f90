"""Toy datasets for the labs (seeded, made by code) and minibatch loading."""
from .datasets import make_blobs, make_circles, make_moons, make_regression_1d, make_spirals
from .loader import DataLoader, TensorDataset

__all__ = ["make_moons", "make_circles", "make_spirals", "make_blobs", "make_regression_1d",
           "DataLoader", "TensorDataset"]
