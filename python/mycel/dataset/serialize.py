"""ds.serialize / ds.deserialize / ds.show: a pipeline as JSON and back.

A pipeline is written as MindSpore lays it out: each dataset a dict with "op_type" (Map,
Batch, Zip, ... for the ops; the class name for sources), "op_module", its constructor's
arguments by name, and "children" (the datasets it reads); each transform in a map a dict
with "tensor_op_name", "python_module" and "tensor_op_params". The arguments are those the
constructors were called with (_serdes_record.py), so deserialize calls the same
constructors again and gets an equal pipeline, and serializing that gives the same JSON.

Values without a JSON form are tagged: tuples {"__tuple__": [...]}, enum members
{"__enum__": "module:Class.NAME"}, numpy arrays {"__ndarray__": [...], "dtype": ...}, mycel
dtypes {"__dtype__": name}, a Schema {"__schema__": its JSON}, samplers {"sampler_name",
"sampler_module", "params", "child_sampler"}. A user's Python function is written by name
({"tensor_op_name": its __name__, "python_module", "python_function": its qualified name,
"is_python_front_end_op": true}) without tensor_op_params: deserialize finds a module-level
function again; one it cannot find (a lambda, a nested function) becomes, in a map, a
stand-in that raises when called or serialized, and elsewhere (a filter's predicate) an
error. numpy types and dtypes are {"__nptype__"} / {"__npdtype__"}, Python types
{"__pytype__"}.
"""
import importlib
import json
import types
from enum import Enum

import numpy as np

from mycel.dataset._serdes_record import call_args
from mycel.dataset.engine import Dataset
from mycel.dataset.samplers import Sampler
from mycel.dataset.schema import Schema
from mycel.dataset.transforms import TensorOperation

__all__ = ["serialize", "deserialize", "show"]

_OPS_MODULE = "mycel.dataset.engine"


def serialize(dataset, json_filepath=""):
    """The pipeline ending at dataset as a dict; also written to json_filepath (indented
    JSON) when one is given."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: dataset must be a Dataset, but got "
                        f"{type(dataset).__name__}.")
    if not isinstance(json_filepath, str):
        raise TypeError(f"serialize: json_filepath must be a str, but got "
                        f"{type(json_filepath).__name__}.")
    out = _dataset_dict(dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return out


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline a serialize output describes: input_dict (the dict, or a JSON file's
    path) or json_filepath."""
    if input_dict is None and json_filepath is None:
        raise ValueError("deserialize: give input_dict or json_filepath.")
    spec = input_dict if input_dict is not None else json_filepath
    if isinstance(spec, str):
        with open(spec, encoding="utf-8") as f:
            spec = json.load(f)
    if not isinstance(spec, dict):
        raise TypeError(f"deserialize: expected a dict or a JSON file path, but got "
                        f"{type(spec).__name__}.")
    return _build_dataset(spec)


def compare(pipeline1, pipeline2):
    """Whether two pipelines are the same: their serialized forms (sources, operations and
    their arguments, in order) are equal."""
    for name, p in (("pipeline1", pipeline1), ("pipeline2", pipeline2)):
        if not isinstance(p, Dataset):
            raise TypeError(f"compare: {name} must be a Dataset, but got {type(p).__name__}.")
    return _dataset_dict(pipeline1) == _dataset_dict(pipeline2)


def show(dataset, indent=2):
    """Print the serialized pipeline (indent: JSON indentation)."""
    print(json.dumps(serialize(dataset), indent=indent))


# ----- writing -----

def _op_type(cls):
    name = cls.__name__
    if cls.__module__ == _OPS_MODULE and name.endswith("Dataset") and name != "Dataset":
        return name[:-len("Dataset")]
    return name


def _dataset_dict(d):
    args = getattr(d, "_serdes_args", None)
    if args is None:
        raise RuntimeError(f"serialize: {type(d).__name__} cannot be serialized (it was not "
                           "made by a constructor with recorded arguments).")
    out = {"op_type": _op_type(type(d)), "op_module": type(d).__module__}
    children = []
    for name, value in args.items():
        if name == "operations" and not isinstance(value, (list, tuple)):
            value = [value]  # map's operations: always a list, as MindSpore writes them
        if isinstance(value, Dataset):
            children.append(_dataset_dict(value))
            out[name] = {"__child__": len(children) - 1}
        elif isinstance(value, (list, tuple)) and value and \
                all(isinstance(v, Dataset) for v in value):
            refs = []
            for v in value:
                children.append(_dataset_dict(v))
                refs.append(len(children) - 1)
            out[name] = {"__children__": refs}
        else:
            out[name] = _value(value, f"{type(d).__name__}.{name}")
    out["children"] = children
    return out


def _operation(op):
    if isinstance(op, _PyFuncStandIn):
        name = op.spec.get("python_function")
        raise RuntimeError(f"serialize: Failed to find key 'tensor_op_params' in PyFuncOp' JSON "
                           f"file or input dict: the Python function {name} was deserialized "
                           "by name only and cannot be serialized again.")
    if isinstance(op, TensorOperation) or hasattr(op, "_serdes_args"):
        params = {k: _value(v, f"{type(op).__name__}.{k}")
                  for k, v in getattr(op, "_serdes_args", {}).items()}
        return {"tensor_op_name": type(op).__name__, "python_module": type(op).__module__,
                "tensor_op_params": params}
    return {"tensor_op_name": getattr(op, "__name__", type(op).__name__),
            "python_module": getattr(op, "__module__", None),
            "python_function": getattr(op, "__qualname__", type(op).__qualname__),
            "is_python_front_end_op": True}


def _value(v, where):
    if v is None or isinstance(v, (bool, int, float, str)) and not isinstance(v, Enum):
        return v
    if isinstance(v, Enum):
        cls = type(v)
        return {"__enum__": f"{cls.__module__}:{cls.__qualname__}.{v.name}"}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.dtype):
        return {"__npdtype__": v.str}
    if isinstance(v, type) and issubclass(v, np.generic):
        return {"__nptype__": np.dtype(v).name}
    if isinstance(v, type) and v in (int, float, bool, str, bytes):
        return {"__pytype__": v.__name__}
    if isinstance(v, np.ndarray):
        return {"__ndarray__": v.tolist(), "dtype": str(v.dtype)}
    if isinstance(v, tuple):
        return {"__tuple__": [_value(x, where) for x in v]}
    if isinstance(v, list):
        return [_value(x, where) for x in v]
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v):
            raise RuntimeError(f"serialize: {where}: a dict with non-str keys cannot be "
                               "serialized.")
        return {"__dict__": {k: _value(x, where) for k, x in v.items()}}
    if isinstance(v, Schema):
        return {"__schema__": json.loads(v.to_json())}
    if isinstance(v, Sampler):
        child = v.get_child()
        return {"sampler_name": type(v).__name__, "sampler_module": type(v).__module__,
                "params": {k: _value(x, where) for k, x in getattr(v, "_serdes_args", {}).items()},
                "child_sampler": [] if child is None else [_value(child, where)]}
    if isinstance(v, Dataset):
        raise RuntimeError(f"serialize: {where}: a dataset inside an argument cannot be "
                           "serialized.")
    name = _dtype_name(v)
    if name is not None:
        return {"__dtype__": name}
    if isinstance(v, TensorOperation) or callable(v):
        return _operation(v)
    raise RuntimeError(f"serialize: {where}: a {type(v).__name__} value cannot be serialized.")


def _dtype_name(v):
    from mycel.common import dtype as mstype  # noqa: PLC0415 (mycel.common imports no dataset)
    if type(v).__name__ != "DType":
        return None
    for name in dir(mstype):
        if not name.startswith("_") and name.islower() and getattr(mstype, name) is v:
            return name
    return None


# ----- reading -----

def _build_dataset(spec):
    for key in ("op_type", "op_module"):
        if key not in spec:
            raise RuntimeError(f"deserialize: Failed to find key '{key}' in the JSON file or "
                               f"input dict of a dataset: {sorted(spec)}.")
    module = importlib.import_module(spec["op_module"])
    name = spec["op_type"]
    cls = getattr(module, name, None) or getattr(module, name + "Dataset", None)
    if not (isinstance(cls, type) and issubclass(cls, Dataset)):
        raise RuntimeError(f"deserialize: {spec['op_module']} has no dataset class {name!r}.")
    children = [_build_dataset(c) for c in spec.get("children", [])]
    params = {}
    for key, value in spec.items():
        if key in ("op_type", "op_module", "children"):
            continue
        if isinstance(value, dict) and "__child__" in value:
            params[key] = children[value["__child__"]]
        elif isinstance(value, dict) and "__children__" in value:
            params[key] = [children[i] for i in value["__children__"]]
        else:
            params[key] = _decode(value)
    stand_ins = [k for k, v in params.items() if isinstance(v, _PyFuncStandIn)]
    if stand_ins and name != "Map":
        raise RuntimeError(f"deserialize: Invalid data, unsupported operation type: {name}: its "
                           f"{stand_ins[0]} is a Python function serialized by name only, which "
                           "cannot be found again.")
    args, kwargs = call_args(cls, params)
    return cls(*args, **kwargs)


def _decode(v):
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if not isinstance(v, dict):
        return v
    if "__tuple__" in v:
        return tuple(_decode(x) for x in v["__tuple__"])
    if "__enum__" in v:
        module, path = v["__enum__"].split(":")
        cls_path, member = path.rsplit(".", 1)
        return getattr(_resolve(module, cls_path), member)
    if "__ndarray__" in v:
        return np.array(v["__ndarray__"], dtype=v["dtype"])
    if "__dict__" in v:
        return {k: _decode(x) for k, x in v["__dict__"].items()}
    if "__npdtype__" in v:
        return np.dtype(v["__npdtype__"])
    if "__nptype__" in v:
        return np.dtype(v["__nptype__"]).type
    if "__pytype__" in v:
        types_ = {"int": int, "float": float, "bool": bool, "str": str, "bytes": bytes}
        return types_[v["__pytype__"]]
    if "__dtype__" in v:
        from mycel.common import dtype as mstype  # noqa: PLC0415
        return getattr(mstype, v["__dtype__"])
    if "__schema__" in v:
        schema = Schema()
        schema.from_json(v["__schema__"])
        return schema
    if "sampler_name" in v:
        cls = getattr(importlib.import_module(v["sampler_module"]), v["sampler_name"])
        args, kwargs = call_args(cls, {k: _decode(x) for k, x in v.get("params", {}).items()})
        sampler = cls(*args, **kwargs)
        for child in v.get("child_sampler", []):
            sampler.add_child(_decode(child))
        return sampler
    if "tensor_op_name" in v:
        return _build_operation(v)
    raise RuntimeError(f"deserialize: an unknown value {v!r}.")


def _build_operation(v):
    if v["tensor_op_name"] == "PyFuncOp" or "tensor_op_params" not in v:
        fn = _find_function(v.get("python_module"), v.get("python_function"))
        return fn if fn is not None else _PyFuncStandIn(v)
    cls = getattr(importlib.import_module(v["python_module"]), v["tensor_op_name"])
    args, kwargs = call_args(cls, {k: _decode(x) for k, x in v["tensor_op_params"].items()})
    return cls(*args, **kwargs)


def _resolve(module, path):
    obj = importlib.import_module(module)
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _find_function(module, qualname):
    """The module-level function serialized by name, or None (a lambda, a nested function,
    a module that cannot be imported)."""
    if not module or not qualname or "<" in qualname:
        return None
    try:
        fn = _resolve(module, qualname)
    except (ImportError, AttributeError):
        return None
    return fn if isinstance(fn, types.FunctionType) else None


class _PyFuncStandIn:
    """A Python function deserialize could not find again (serialized by name only)."""

    def __init__(self, spec):
        self.spec = dict(spec)
        self.__qualname__ = str(spec.get("python_function"))

    def __call__(self, *args):
        raise RuntimeError(f"deserialize: the Python function {self.spec.get('python_function')} "
                           f"of module {self.spec.get('python_module')} was serialized by name "
                           "only and could not be found again; it cannot run.")
