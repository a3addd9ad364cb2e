"""Other functions of MindSpore 2.x (its ops/function/other_func.py): partial."""


__all__ = ["partial"]


def partial(func, *args):
    """func with its first arguments bound (MindSpore's F.partial): partial(f, a)(b) is
    f(a, b). A plain closure rather than functools.partial, so GRAPH mode compiles it (with
    run-time arguments too; F.partial(fn, ...) mapped over parameters is how MindSpore's
    optimizers update them)."""
    def bound(*rest):
        return func(*args, *rest)
    return bound
