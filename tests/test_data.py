"""data: seeded toy datasets (determinism, shapes, dtypes, class balance) and the DataLoader."""
import numpy as np
import pytest

import autogradlab as ag
from autogradlab import data

MAKERS = [
    (data.make_moons, dict(noise=0.1), 2),
    (data.make_circles, dict(noise=0.05), 2),
    (data.make_spirals, dict(classes=3), 3),
    (data.make_spirals, dict(classes=5, noise=0.0), 5),
    (data.make_blobs, dict(centers=4), 4),
]


@pytest.mark.parametrize("maker, kwargs, classes", MAKERS)
@pytest.mark.parametrize("n", [200, 301])
def test_shapes_dtypes_and_class_balance(maker, kwargs, classes, n):
    X, y = maker(n, seed=0, **kwargs)
    assert X.shape == (n, 2) and X.dtype == np.float32 and y.shape == (n,) and y.dtype == np.int64
    counts = np.bincount(y.numpy(), minlength=classes)
    assert len(counts) == classes and counts.max() - counts.min() <= 1
    assert not X.requires_grad and np.isfinite(X.numpy()).all()


@pytest.mark.parametrize("maker, kwargs, classes", MAKERS)
def test_same_seed_same_data_other_seed_other_data(maker, kwargs, classes):
    X1, y1 = maker(100, seed=5, **kwargs)
    X2, y2 = maker(100, seed=5, **kwargs)
    X3, _ = maker(100, seed=6, **kwargs)
    np.testing.assert_array_equal(X1.numpy(), X2.numpy())
    np.testing.assert_array_equal(y1.numpy(), y2.numpy())
    assert not np.array_equal(X1.numpy(), X3.numpy())


def test_seed_none_follows_manual_seed():
    ag.manual_seed(7)
    a = data.make_moons(50, noise=0.2)[0].numpy()
    ag.manual_seed(7)
    b = data.make_moons(50, noise=0.2)[0].numpy()
    np.testing.assert_array_equal(a, b)


def test_noiseless_moons_and_circles_lie_on_their_curves():
    X, y = data.make_moons(101, seed=0)
    X, y = X.numpy().astype(float), y.numpy()
    np.testing.assert_allclose(np.hypot(*X[y == 0].T), 1, atol=1e-6)                      # (cos t, sin t)
    np.testing.assert_allclose(np.hypot(X[y == 1, 0] - 1, X[y == 1, 1] - 0.5), 1, atol=1e-6)
    X, y = data.make_circles(100, factor=0.3, seed=0)
    radius = np.hypot(*X.numpy().astype(float).T)
    np.testing.assert_allclose(radius[y.numpy() == 0], 1, atol=1e-6)
    np.testing.assert_allclose(radius[y.numpy() == 1], 0.3, atol=1e-6)


def test_blobs_cluster_around_given_centers():
    centers = np.array([[0.0, 0.0, 0.0], [10.0, 10.0, 10.0]])
    X, y = data.make_blobs(2000, centers=centers, std=0.5, seed=0)
    assert X.shape == (2000, 3)
    for k in range(2):
        np.testing.assert_allclose(X.numpy()[y.numpy() == k].mean(0), centers[k], atol=0.1)


def test_regression_1d():
    x, y = data.make_regression_1d(64, noise=0.0, seed=0)
    assert x.shape == (64, 1) and y.shape == (64, 1) and x.dtype == y.dtype == np.float32
    np.testing.assert_allclose(y.numpy(), np.sin(x.numpy()), atol=1e-6)


def test_makers_reject_bad_arguments():
    with pytest.raises(ValueError, match="factor"):
        data.make_circles(10, factor=2)
    with pytest.raises(ValueError, match="one sample per class"):
        data.make_spirals(2, classes=3)


# -- DataLoader ----------------------------------------------------------------------------------

def _dataset(n=10):
    X = ag.arange(n).reshape(n, 1).to(ag.float32)
    return X, ag.arange(n)


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 32])
def test_every_sample_exactly_once_per_epoch(shuffle, batch_size):
    X, y = _dataset(10)
    loader = data.DataLoader((X, y), batch_size=batch_size, shuffle=shuffle, seed=0)
    for _ in range(3):
        seen, sizes = [], []
        for xb, yb in loader:
            np.testing.assert_array_equal(xb.numpy()[:, 0], yb.numpy())  # rows stay paired
            seen += yb.tolist()
            sizes.append(len(yb))
        assert sorted(seen) == list(range(10))
        assert all(s == batch_size for s in sizes[:-1]) and len(sizes) == len(loader)
        if not shuffle:
            assert seen == list(range(10))


def test_drop_last():
    loader = data.DataLoader(data.TensorDataset(*_dataset(10)), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(b[0]) for b in loader] == [4, 4]


def test_seeded_shuffle_is_reproducible_and_changes_between_epochs():
    X, y = _dataset(20)
    a = data.DataLoader((X, y), batch_size=5, shuffle=True, seed=3)
    b = data.DataLoader((X, y), batch_size=5, shuffle=True, seed=3)
    epochs_a = [[yb.tolist() for _, yb in a] for _ in range(2)]
    epochs_b = [[yb.tolist() for _, yb in b] for _ in range(2)]
    assert epochs_a == epochs_b and epochs_a[0] != epochs_a[1]


def test_single_tensor_and_dataset_errors():
    X, _ = _dataset(7)
    batches = list(data.DataLoader(X, batch_size=3))
    assert [b.shape for b in batches] == [(3, 1), (3, 1), (1, 1)]
    with pytest.raises(ValueError, match=r"Size mismatch.*\(7, 1\), \(6,\)"):
        data.TensorDataset(X, ag.arange(6))
    with pytest.raises(ValueError, match="batch_size"):
        data.DataLoader(X, batch_size=0)
    ds = data.TensorDataset(X, ag.arange(7))
    assert len(ds) == 7 and ds[2][1].item() == 2
