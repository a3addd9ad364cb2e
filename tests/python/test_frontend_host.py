"""The compiler's Python host (src/frontend/py_host.cc, py_value.cc) through its test hooks
(_mycel._host_*), and mycel.Parameter with its registration in nn.Cell."""
import functools
import pickle

import numpy as np
import pytest

import mycel as ms
from mycel import _mycel as _C
from mycel import nn, ops
from mycel.ops import operations as P
from mycel.ops import functional as F


def _plain(x, y=2):
    return x + y


# ---------------------------------------------------------------- data conversion


@pytest.mark.parametrize("obj, text", [
    (None, "None"),
    (True, "True"),
    (False, "False"),
    (3, "3"),
    (-7, "-7"),
    (2 ** 63 - 1, str(2 ** 63 - 1)),
    (2.5, "2.5"),
    (1.0, "1.0"),
    ("s", '"s"'),
    (..., "..."),
    ((1, 2.0, "a"), '(1, 2.0, "a")'),
    ((1,), "(1,)"),
    ((), "()"),
    ([1, [2, (3,)]], "[1, [2, (3,)]]"),
    ({"a": 1, 2: (3,)}, '{"a": 1, 2: (3,)}'),
    (ms.float32, "f32"),
    (ms.int64, "i64"),
    (ms.bool_, "bool"),
    (slice(1, None, 2), "slice(1, None, 2)"),
    (slice(None, -1), "slice(None, -1, None)"),
])
def test_data_converts_to_plain_values(obj, text):
    assert _C._host_to_value(obj) == text
    assert _C._host_convert(obj) == text


@pytest.mark.parametrize("obj", [
    None, True, 0, -3, 2 ** 62, 0.1, -2.5e300, "text", ..., (1, (2, [3.5, None])),
    [True, "x"], {"k": [1, 2], 3: None}, slice(0, 5, None), slice(None, None, -1),
    ms.float16, ms.bfloat16, ms.uint8,
])
def test_data_round_trips(obj):
    back = _C._host_roundtrip(obj)
    assert back == obj
    assert type(back) is type(obj)


def test_bool_is_not_an_int_value():
    assert _C._host_to_value(True) == "True"
    assert type(_C._host_roundtrip(True)) is bool
    assert type(_C._host_roundtrip(1)) is int


def test_int_beyond_int64_stays_a_host_object():
    big = 2 ** 64 + 1
    assert _C._host_to_value(big) == f"<{big}>"
    assert _C._host_roundtrip(big) is big
    assert _C._host_to_value(-(2 ** 63)) == str(-(2 ** 63))


def test_containers_with_unsupported_keys_or_subclasses_stay_host():
    d = {(1, 2): 3}
    assert _C._host_to_value(d) == "<{(1, 2): 3}>"
    assert _C._host_roundtrip(d) is d

    import collections
    Pt = collections.namedtuple("Pt", "x y")
    p = Pt(1, 2)
    assert _C._host_to_value(p) == "<Pt(x=1, y=2)>"
    assert _C._host_roundtrip(p) is p


def test_unknown_objects_inside_containers_are_host_items():
    o = object()
    assert _C._host_to_value((1, o)) == f"(1, <{o!r}>)"
    back = _C._host_roundtrip((1, o))
    assert back[1] is o


def test_tensor_round_trip_shares_the_tensor():
    t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    text = _C._host_to_value(t)
    assert text.startswith("tensor<f32[2, 3]>")
    back = _C._host_roundtrip(t)
    assert isinstance(back, ms.Tensor)
    np.testing.assert_array_equal(back.asnumpy(), t.asnumpy())
    back[0, 0] = 100.0  # the same C++ tensor: writes show through the original
    assert t.asnumpy()[0, 0] == 100.0
    inside = _C._host_roundtrip((t, [t]))
    inside[1][0][1, 1] = -1.0
    assert t.asnumpy()[1, 1] == -1.0


def test_host_object_identity():
    class Thing:
        def __repr__(self):
            return "Thing!"

    a = Thing()
    assert _C._host_convert(a) == "<Thing!>"
    assert _C._host_roundtrip(a) is a
    assert _C._host_roundtrip(Thing) is Thing


# ---------------------------------------------------------------- primitives


def test_primitive_instances_become_prims_with_complete_attributes():
    assert _C._host_convert(P.Mul()) == "Mul"
    text = _C._host_convert(P.ReduceSum(keep_dims=True))
    assert text.startswith("ReduceSum{") and "keep_dims=True" in text
    assert "axis=()" in text  # the default of a call-time attribute is filled in
    text = _C._host_convert(P.Softmax(axis=0))
    assert text == "Softmax{axis=(0,)}" or text == "Softmax{axis=0}"


def test_op_handles_become_prims():
    h = _C.OpHandle("Transpose", {"perm": (1, 0)})
    assert _C._host_convert(h) == "Transpose{perm=(1, 0)}"
    # A required call-time attribute not given yet: the init-time attributes as given.
    assert _C._host_convert(_C.OpHandle("Reshape", {})) == "Reshape"
    assert _C._host_convert(_C.OpHandle("Cast", {"dtype": ms.float16})) == "Cast{dtype=f16}"


def test_prims_round_trip_to_callable_op_handles():
    h = _C._host_roundtrip(P.Transpose()._handle)
    assert isinstance(h, _C.OpHandle)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(h(x, (1, 0)).asnumpy(), x.asnumpy().T)


def test_functional_names_that_are_primitives():
    assert _C._host_convert(F.tensor_add) == "Add"
    assert _C._host_convert((F.square, F.exp)) == "(Square, Exp)"


# ---------------------------------------------------------------- builtins and names


@pytest.mark.parametrize("name", ["len", "isinstance", "range", "zip", "enumerate", "print",
                                  "int", "float", "bool", "tuple", "list", "dict", "abs",
                                  "max", "min", "sum", "getattr", "hasattr", "type", "super",
                                  "iter", "all", "any", "round", "divmod", "str", "slice"])
def test_builtin_names(name):
    import builtins
    obj = getattr(builtins, name)
    assert _C._host_builtin_name(obj) == name
    # they stay host objects for the specialiser to recognise
    assert _C._host_convert(obj) == f"<{obj!r}>"


def test_mycel_builtins_and_non_builtins():
    assert _C._host_builtin_name(ops.shape) == "F.shape"
    assert _C._host_builtin_name(F.shape) == "F.shape"
    assert _C._host_builtin_name(ops.add) == ""
    assert _C._host_builtin_name(3) == ""
    assert _C._host_builtin_name(object()) == ""


def test_type_names():
    class Net(nn.Cell):
        pass

    assert _C._host_type_name(Net()) == "Net"
    assert _C._host_type_name(3) == "int"
    assert _C._host_type_name(True) == "bool"
    assert _C._host_type_name((1,)) == "tuple"
    assert _C._host_type_name(ms.Tensor([1.0])) == "Tensor"
    assert _C._host_type_name(ms.Parameter(ms.Tensor([1.0]))) == "Parameter"
    assert _C._host_type_name(ms.float32) == "DType"


# ---------------------------------------------------------------- getattr, callable, call


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 3
        self.flag = True
        self.name_ = "net"
        self.w = ms.Parameter(ms.Tensor(np.ones((2, 2), np.float32)), name="w")
        self.mul = P.Mul()

    def construct(self, x):
        return self.mul(x, self.w) * self.scale


def test_getattr_converts_attributes():
    net = _Net()
    assert _C._host_getattr(net, "scale") == "3"
    assert _C._host_getattr(net, "flag") == "True"
    assert _C._host_getattr(net, "training") == "False"
    assert _C._host_getattr(net, "name_") == '"net"'
    assert _C._host_getattr(net, "mul") == "Mul"
    # a Parameter stays a host object (a weight input), a sub-cell too
    assert _C._host_getattr(net, "w") == f"<{net.w!r}>"


def test_getattr_missing_is_an_attribute_error_message():
    net = _Net()
    with pytest.raises(ValueError, match="AttributeError: '_Net' object has no attribute "
                                         "'foo'"):
        _C._host_getattr(net, "foo")


def test_getattr_property_raising_keeps_the_python_type():
    class Odd:
        @property
        def bad(self):
            raise KeyError("nope")

        @property
        def worse(self):
            raise TypeError("wrong")

    with pytest.raises(IndexError, match="KeyError: 'nope'"):
        _C._host_getattr(Odd(), "bad")
    with pytest.raises(TypeError, match="TypeError: wrong"):
        _C._host_getattr(Odd(), "worse")


def test_callable_of_classes_and_others():
    assert _C._host_callable(_Net) == f"<{_Net!r}>"
    assert _C._host_callable(P.Add()) == "Add"
    o = object()
    assert _C._host_callable(o) == f"<{o!r}>"
    assert _C._host_callable(len) == f"<{len!r}>"


def test_call_runs_python_now_and_converts_the_result():
    assert _C._host_call(len, (1, 2, 3)) == "3"
    assert _C._host_call(divmod, 7, 2) == "(3, 1)"
    assert _C._host_call(int, "12") == "12"
    assert _C._host_call(dict, a=1) == '{"a": 1}'
    # numpy scalars are the Python numbers they hold (eager mycel takes them as weak scalars)
    assert _C._host_call(np.float32, 2.5) == "2.5"
    assert _C._host_call(np.int64, 3) == "3"
    assert _C._host_call(reversed, (1, 2)) == "(2, 1)"  # builtin iterators: their tuple
    out = _C._host_call(ops.add, ms.Tensor([1.0, 2.0]), 1.0)
    assert out.startswith("tensor<f32[2]>")
    assert _C._host_call(_Net) == "<_Net<>>"  # building a cell at compile time (its repr)
    assert _C._host_call(functools.partial(max, 4), 9) == "9"


def test_call_errors_carry_the_python_type_and_message():
    with pytest.raises(ValueError, match="ZeroDivisionError: division by zero"):
        _C._host_call(lambda a, b: a / b, 1, 0)
    with pytest.raises(TypeError, match="TypeError: .*len"):
        _C._host_call(len, 3)
    with pytest.raises(IndexError, match="IndexError: tuple index out of range"):
        _C._host_call(lambda t: t[5], (1,))
    with pytest.raises(ValueError, match="ValueError: For 'MatMul'"):
        _C._host_call(ops.matmul, ms.Tensor(np.ones((2, 3), np.float32)),
                      ms.Tensor(np.ones((2, 3), np.float32)))


# ---------------------------------------------------------------- weights, isinstance


def test_weight_of_parameters_only():
    net = _Net()
    w = _C._host_weight(net.w)
    assert w is not None and not isinstance(w, ms.Parameter)
    w[0, 0] = 7.0  # the Parameter's own tensor, not a copy
    assert net.w.asnumpy()[0, 0] == 7.0
    assert _C._host_weight(ms.Tensor([1.0])) is None
    assert _C._host_weight(3) is None
    assert _C._host_weight(net) is None


@pytest.mark.parametrize("x, cls, want", [
    (ms.Tensor([1.0]), ms.Tensor, True),
    (ms.Tensor([1.0]), object, True),
    (ms.Tensor([1.0]), int, False),
    (ms.Tensor([1.0]), (int, ms.Tensor), True),
    (3, int, True),
    (3, float, False),
    (3, (float, int), True),
    (True, int, True),  # bool is an int
    (True, bool, True),
    (1, bool, False),
    (2.5, float, True),
    ("s", str, True),
    (None, type(None), True),
    ((1, 2), tuple, True),
    ((1, 2), list, False),
    ([1], list, True),
    ({"a": 1}, dict, True),
    ({"a": 1}, (list, tuple), False),
    (3, int | float, True),
    ("s", int | float, False),
])
def test_isinstance_on_abstracts(x, cls, want):
    assert _C._host_isinstance(x, cls, known=True) is want
    assert _C._host_isinstance(x, cls, known=False) is want  # decided from the kind alone


def test_isinstance_unknowns_and_host_values():
    t = ms.Tensor([1.0])
    # a tensor of unknown value might be a Parameter: the host cannot tell
    assert _C._host_isinstance(t, ms.Parameter, known=False) is None
    assert _C._host_isinstance(t, (ms.Parameter, int), known=False) is None
    assert _C._host_isinstance(t, (ms.Parameter, ms.Tensor), known=False) is True
    # a constant tensor is not a Parameter
    assert _C._host_isinstance(t, ms.Parameter, known=True) is False
    net = _Net()
    assert _C._host_isinstance(net, nn.Cell) is True
    assert _C._host_isinstance(net, ms.Tensor) is False
    assert _C._host_isinstance(net.w, ms.Parameter) is True
    assert _C._host_isinstance(net.w, ms.Tensor) is True


def test_isinstance_rejects_non_types():
    with pytest.raises(TypeError, match="isinstance\\(\\) arg 2 must be a type"):
        _C._host_isinstance(3, 4)
    with pytest.raises(TypeError, match="isinstance\\(\\) arg 2 must be a type"):
        _C._host_isinstance(3, ms.float32)


def test_tensor_method_unsupported_and_missing():
    # (asnumpy has a graph form since the JIT-fallback work: the tensor's value itself)
    with pytest.raises(ValueError, match="Tensor method '__array__' is not supported in graph "
                                         "mode"):
        _C._host_tensor_method("__array__")
    with pytest.raises(ValueError, match="'Tensor' has no method 'frobnicate'"):
        _C._host_tensor_method("frobnicate")


# ---------------------------------------------------------------- functions (parsed)


def test_functions_become_graphs():
    assert _C._host_convert(_plain) == "@_plain"
    assert _C._host_convert(ops.add) == "@add"
    assert _C._host_convert((_plain, 1)) == "(@_plain, 1)"


def _countdown(n):
    return 0 if n == 0 else _countdown(n - 1)


def test_functions_are_parsed_once_per_module():
    one = _C._host_module_graphs([_countdown])
    assert one >= 1
    assert _C._host_module_graphs([_countdown, _countdown, (_countdown,)]) == one
    net = _Net()
    # the construct graph is shared by a cell's method, its callable form and the class's
    both = _C._host_module_graphs([net.construct, _Net.construct])
    assert both == _C._host_module_graphs([_Net.construct])
    assert _C._host_module_graphs([_plain, _countdown]) > one


def test_bound_methods_and_cells_become_closures_over_self():
    net = _Net()
    text = _C._host_convert(net.construct)
    assert text == f"partial(@construct, <{net!r}>)"
    assert _C._host_callable(net) == text
    assert _C._host_getattr(net, "construct") == text
    p = functools.partial(_plain, 1)
    assert _C._host_convert(p) == "partial(@_plain, 1)"


def test_tensor_methods_as_graphs():
    assert _C._host_tensor_method("sum") == "@sum"
    assert _C._host_tensor_method("__add__") == "@add"
    assert _C._host_tensor_method("__radd__") == "@add"
    assert _C._host_tensor_method("astype") == "@cast"
    assert _C._host_tensor_method("T").startswith("@")  # the property's getter


def test_primitive_with_its_own_call_is_a_closure_over_it():
    g = P.GatherD()
    text = _C._host_convert(g)
    assert text == f"partial(@__call__, <{g!r}>)"


# ---------------------------------------------------------------- Parameter


def test_parameter_is_a_tensor_holding_a_copy_of_its_data():
    t = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    p = ms.Parameter(t, name="w")
    assert isinstance(p, ms.Tensor) and isinstance(p, ms.Parameter)
    assert ms.common.parameter.Parameter is ms.Parameter
    assert p.shape == (2, 3) and p.dtype == ms.float32
    p[0, 0] = 42.0
    assert t.asnumpy()[0, 0] == 0.0  # a copy, as MindSpore's Parameter(Tensor)
    np.testing.assert_array_equal(p.asnumpy().reshape(-1)[1:], t.asnumpy().reshape(-1)[1:])
    assert isinstance(ops.add(p, 1.0), ms.Tensor)
    assert not isinstance(ops.add(p, 1.0), ms.Parameter)


def test_parameter_from_numpy_and_numbers():
    p = ms.Parameter(np.ones((3,), np.float32))
    assert p.name.startswith("Parameter#") and p.requires_grad is True  # a generated name
    assert p.shape == (3,)
    q = ms.Parameter(2.0, requires_grad=False)
    assert q.shape == () and q.dtype == ms.float32 and q.requires_grad is False


def test_parameter_repr_and_errors():
    p = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), name="w")
    assert repr(p) == "Parameter (name=w, shape=(2, 3), dtype=Float32, requires_grad=True)"
    assert str(p) == repr(p)
    with pytest.raises(TypeError, match="requires_grad must be a bool"):
        ms.Parameter(ms.Tensor([1.0]), requires_grad=1)
    with pytest.raises(ValueError, match="name must be a str"):
        ms.Parameter(ms.Tensor([1.0]), name=3)
    # a Parameter as default_input: a new Parameter holding a copy of its data (MindSpore)
    q = ms.Parameter(p, name="w2")
    assert q.name == "w2" and q is not p and q.shape == (2, 3)
    q.set_data(ms.Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), np.zeros((2, 3), np.float32))


def test_parameter_set_data():
    p = ms.Parameter(ms.Tensor(np.zeros((2,), np.float32)), name="b")
    new = ms.Tensor(np.array([1, 2], np.int64))
    assert p.set_data(new) is p
    assert p.dtype == ms.float32  # keeps its dtype
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0])
    same = ms.Tensor(np.array([5.0, 6.0], np.float32))
    p.set_data(same)
    same[0] = -1.0  # shared with the new data
    assert p.asnumpy()[0] == -1.0
    p.set_data(ms.Tensor(np.zeros((3,), np.float32)))  # a new shape (MindSpore allows it)
    assert p.shape == (3,) and p.dtype == ms.float32


def test_parameter_clone_and_pickle():
    p = ms.Parameter(ms.Tensor(np.arange(3, dtype=np.float32)), name="c", requires_grad=False)
    c = p.clone()
    c[0] = 9.0
    assert p.asnumpy()[0] == 0.0
    assert c.name == "c" and c.requires_grad is False
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, ms.Parameter) and q.name == "c" and q.requires_grad is False
    np.testing.assert_array_equal(q.asnumpy(), p.asnumpy())


class _Dense(nn.Cell):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.ones((n_out, n_in), np.float32)))
        self.bias = ms.Parameter(ms.Tensor(np.zeros((n_out,), np.float32)))

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


class _MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = _Dense(4, 3)
        self.fc2 = _Dense(3, 2)
        self.scale = ms.Parameter(ms.Tensor(1.0), name="scale", requires_grad=False)

    def construct(self, x):
        return self.fc2(self.fc1(x)) * self.scale


class _Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = _MLP()
        self.shared = self.body.fc1.weight  # registered twice, listed once


def test_cell_registers_parameters_in_order_with_path_names():
    net = _MLP()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert [p.name for p in net.get_parameters()] == names
    assert [p.name for p in net.trainable_params()] == names[1:]
    assert [p.name for p in net.untrainable_params()] == ["scale"]
    assert list(net.parameters_dict()) == names
    assert [n for n, _ in net.parameters_and_names(expand=False)] == ["scale"]
    d = _Dense(2, 2)
    assert [p.name for p in d.get_parameters()] == ["weight", "bias"]


def test_nested_cells_prefix_the_whole_path_and_share_once():
    net = _Outer()
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["shared", "body.scale", "body.fc1.bias", "body.fc2.weight",
                     "body.fc2.bias"]
    assert net.body.fc1.weight.name == "body.fc1.weight"
    assert len(list(net.get_parameters())) == 5


def test_cell_parameter_reassignment_and_deletion():
    d = _Dense(2, 2)
    d.bias = None
    assert [p.name for p in d.get_parameters()] == ["weight"]
    d.extra = ms.Parameter(ms.Tensor([0.0]), name="explicit")
    assert d.extra.name == "explicit"  # a given name is kept at the top level
    del d.extra
    assert [p.name for p in d.get_parameters()] == ["weight"]
    with pytest.raises(TypeError, match="must be a Parameter"):
        d.insert_param_to_cell("w2", ms.Tensor([1.0]))
    with pytest.raises(KeyError, match="must not contain"):
        d.insert_param_to_cell("a.b", ms.Parameter(ms.Tensor([1.0])))
    d.insert_param_to_cell("w2", ms.Parameter(ms.Tensor([1.0])))
    assert [p.name for p in d.get_parameters()] == ["weight", "w2"]


def test_parameter_before_cell_init_is_an_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.w = ms.Parameter(ms.Tensor([1.0]))
            super().__init__()

    with pytest.raises(AttributeError, match="before Cell.__init__"):
        Bad()


def test_cells_with_parameters_run_eagerly():
    net = _MLP()
    x = ms.Tensor(np.ones((1, 4), np.float32))
    np.testing.assert_allclose(net(x).asnumpy(), np.full((1, 2), 12.0))
