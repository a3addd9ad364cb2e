"""MindSpore's ``ops._primitive_cache``: ``_get_cache_prim(P.Pow)(*args, **kwargs)`` gives one
shared instance per primitive class and constructor arguments, so code that builds a primitive
on every call (functional code, often inside ``@jit`` functions) does not rebuild it. Both
calls run at compile time in graph code (they are constexprs on constant arguments)."""
from mycel.ops.primitive import constexpr

_CACHE = {}


def _key(value):
    """A hashable stand-in for a constructor argument (lists become tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _key(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return value


@constexpr
def _get_cache_prim(cls):
    """A constructor of `cls` that returns one cached instance per argument list."""
    @constexpr
    def make(*args, **kwargs):
        key = (cls, _key(args), _key(kwargs))
        prim = _CACHE.get(key)
        if prim is None:
            prim = _CACHE[key] = cls(*args, **kwargs)
        return prim
    return make
