"""mycel.device_context.cpu: the CPU backend (always present, one device)."""


def device_count():
    """The number of CPU devices ops can use: 1."""
    return 1


def is_available():
    """Whether the CPU backend is available: always True."""
    return True


__all__ = ["device_count", "is_available"]
