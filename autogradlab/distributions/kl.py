"""``kl_divergence(p, q)`` and ``register_kl``: KL(p || q) = E_p[log p(x) - log q(x)] in closed form, looked up
by the pair of types, as in PyTorch. Each module registers the pairs of its own distributions next to them
(``@register_kl(Normal, Normal)``); your own pairs take the same decorator:

    @register_kl(MyPrior, Normal)
    def _kl_myprior_normal(p, q):
        return ...

The most specific registered pair wins: the one whose types come first in ``type(p)``'s and ``type(q)``'s
method resolution orders (p's first). If ordering q's first would pick another function, the pair is
ambiguous: a warning asks you to register the exact pair."""
from __future__ import annotations

import warnings

from .distribution import Distribution

__all__ = ["register_kl", "kl_divergence"]

_REGISTRY = {}   # (type_p, type_q) -> function
_CHOSEN = {}     # (type(p), type(q)) -> the function the lookup found (cleared by register_kl)


def register_kl(type_p, type_q):
    """A decorator: ``@register_kl(P, Q)`` makes the function ``f(p, q)`` give ``kl_divergence(p, q)`` for a ``p``
    of type P (or a subclass) and a ``q`` of type Q."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(t, type) or not issubclass(t, Distribution):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t!r}")

    def decorator(fun):
        _REGISTRY[type_p, type_q] = fun
        _CHOSEN.clear()
        return fun
    return decorator


def _lookup(type_p, type_q):
    matches = [(p, q) for (p, q) in _REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if _REGISTRY[left] is not _REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning, stacklevel=3)
    return _REGISTRY[left]


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], in closed form, for the registered pairs of distribution types
    (two of a kind for most; see each distribution's module). Batched: one value per batch element."""
    key = (type(p), type(q))
    if key not in _CHOSEN:
        _CHOSEN[key] = _lookup(*key)
    fun = _CHOSEN[key]
    if fun is None:
        pairs = ", ".join(sorted(f"({a.__name__}, {b.__name__})" for a, b in _REGISTRY))
        raise NotImplementedError(f"kl_divergence({type(p).__name__}, {type(q).__name__}) has no closed form here "
                                  f"(as in PyTorch for pairs it does not register). Registered pairs: {pairs}. "
                                  f"Register your own with @register_kl({type(p).__name__}, {type(q).__name__}), "
                                  f"or estimate E_p[log p - log q] from samples")
    return fun(p, q)
