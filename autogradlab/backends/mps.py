"""``torch.backends.mps``: Apple's GPUs are not reached here."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
