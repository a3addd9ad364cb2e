"""The strategy search's parameters: MindSpore's ``set_algo_parameters``,
``get_algo_parameters`` and ``reset_algo_parameters``.

They bound the candidates the search of ``parallel_mode="auto_parallel"`` considers
(``src/parallel/search.h``; they reach it beside the cost profile, ``search.profile_numbers``):

- ``fully_use_devices`` (default False): only strategies that use every device (on 8 devices
  a ReLU's (4, 1) is not a candidate); an op none of whose strategies does keeps its unsplit
  one. The recursive search applies it per level: an op that can refine its strategy by the
  level's factor must.
- ``elementwise_op_strategy_follow``: mycel merges the elementwise ops into their producers
  (Alpa), so they always take their producer's layout: True is what mycel does, and False
  is a ValueError rather than a setting without effect. (MindSpore's default is False; it
  searches elementwise ops apart unless told to follow.)
- ``enable_algo_approxi`` (default False) and ``algo_approxi_epsilon`` (default 0.1): each op
  keeps only the min{S, 1/epsilon} of its S candidates of least own cost (compute, the
  gradient all-reduce of its weights), shrinking the space dynamic programming and sharding
  propagation search; the recursive search enumerates nothing, so it is unaffected.
- ``tensor_slice_align_enable`` (default False) and ``tensor_slice_align_size`` (default 16, 1
  to 1,024): a MatMul's candidate that splits an input's last dimension must leave slices a
  multiple of the size.

Unknown names, and values of the wrong type or range, are errors.
"""

_DEFAULTS = {
    "fully_use_devices": False,
    "elementwise_op_strategy_follow": True,
    "enable_algo_approxi": False,
    "algo_approxi_epsilon": 0.1,
    "tensor_slice_align_enable": False,
    "tensor_slice_align_size": 16,
}
_params = dict(_DEFAULTS)


def _check(key, v):
    if key in ("fully_use_devices", "elementwise_op_strategy_follow", "enable_algo_approxi",
               "tensor_slice_align_enable"):
        if not isinstance(v, bool):
            raise TypeError(f"For 'set_algo_parameters', '{key}' must be a bool, but got "
                            f"{type(v).__name__}.")
        if key == "elementwise_op_strategy_follow" and not v:
            raise ValueError("For 'set_algo_parameters', elementwise_op_strategy_follow=False "
                             "does not apply to mycel: its search merges elementwise ops into "
                             "their producers, so they always follow them.")
    elif key == "algo_approxi_epsilon":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError("For 'set_algo_parameters', 'algo_approxi_epsilon' must be a float, "
                            f"but got {type(v).__name__}.")
        if not 0 < v <= 1:
            raise ValueError("For 'set_algo_parameters', 'algo_approxi_epsilon' must be in "
                             f"(0, 1], but got {v}.")
        v = float(v)
    elif key == "tensor_slice_align_size":
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError("For 'set_algo_parameters', 'tensor_slice_align_size' must be an "
                            f"int, but got {type(v).__name__}.")
        if not 1 <= v <= 1024:
            raise ValueError("For 'set_algo_parameters', 'tensor_slice_align_size' must be in "
                             f"[1, 1024], but got {v}.")
    return v


def set_algo_parameters(**kwargs):
    """Sets the strategy search's parameters (module docstring): fully_use_devices,
    elementwise_op_strategy_follow, enable_algo_approxi, algo_approxi_epsilon,
    tensor_slice_align_enable, tensor_slice_align_size. ValueError for an unknown name
    (nothing is set then), TypeError or ValueError for a bad value."""
    for key in kwargs:
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_algo_parameters', unknown parameter '{key}' (mycel's "
                             f"search has {sorted(_DEFAULTS)}).")
    checked = {key: _check(key, v) for key, v in kwargs.items()}
    _params.update(checked)


def get_algo_parameters(attr_key):
    """The value of one of the search's parameters; ValueError for an unknown name."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"For 'get_algo_parameters', unknown parameter '{attr_key}' (mycel's "
                         f"search has {sorted(_DEFAULTS)}).")
    return _params[attr_key]


def reset_algo_parameters():
    """Every parameter back to its default."""
    _params.clear()
    _params.update(_DEFAULTS)


def bounds():
    """The numbers the C++ search reads after the profile's (cost_model.h's CostProfile:
    fully_use_devices, approx_keep, slice_align; 0 where off)."""
    keep = 0
    if _params["enable_algo_approxi"]:  # epsilon in (0, 1]: at least 1
        keep = int(1.0 / _params["algo_approxi_epsilon"] + 1e-9)
    align = _params["tensor_slice_align_size"] if _params["tensor_slice_align_enable"] else 0
    return [1.0 if _params["fully_use_devices"] else 0.0, float(keep), float(align)]
