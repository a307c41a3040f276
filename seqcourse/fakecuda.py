"""A stand-in for a CUDA device on a machine without one, for the checks' device cases.

Inside ``on_fake_cuda()`` a tensor moved ``.to("cuda")`` (or made with ``device="cuda"``) reports ``cuda:0``
as its device and keeps its values on the CPU, so code that needs values (``.item()``, data-dependent
branches, sequence packing) runs as it would on a GPU. Operations follow CUDA's device rules: an operation
that meets a tensor on the CPU (not a 0-dimensional scalar) beside tensors on the GPU fails with CUDA's
message, except where CUDA accepts one (indices of advanced indexing, copies between devices, the lengths
and batch sizes of packed sequences, which must stay on the CPU). Everything else keeps the device of its
inputs, so a tensor made without ``device=`` stays on the CPU and shows up later.

tests/test_fakecuda.py lists the cases and what CUDA does with each; on a machine with a GPU it runs them on
the real device too and checks the two agree.
"""

from __future__ import annotations

import contextlib
import warnings

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten, tree_map

CUDA = torch.device("cuda", 0)
_CPU = torch.device("cpu")


class FakeCudaTensor(torch.Tensor):
    """A tensor that says it is on ``cuda:0`` and holds its values in a CPU tensor, ``elem``."""

    elem: torch.Tensor
    __slots__ = ["elem"]

    @staticmethod
    def __new__(cls, elem: torch.Tensor):
        out = torch.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(),
                                                  storage_offset=elem.storage_offset(), dtype=elem.dtype,
                                                  layout=elem.layout, device=_CPU, requires_grad=elem.requires_grad)
        out.elem = elem
        return out

    # C++ sees a CPU tensor (its device guards and autograd's streams exist only for devices the build has);
    # Python code sees cuda:0
    device = property(lambda self: CUDA)
    is_cuda = property(lambda self: True)
    is_cpu = property(lambda self: False)

    def get_device(self):
        return 0

    def type_as(self, other):
        # C++ would take other's options as it sees them (the CPU): CUDA keeps the result on other's device
        return self.to(dtype=other.dtype, device=other.device)

    def __repr__(self):
        return f"{self.elem!r} (on fake cuda:0)"

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return _run(func, args, kwargs)


def _is_cuda(x) -> bool:
    return isinstance(x, FakeCudaTensor)


def _is_cpu_array(x) -> bool:
    return isinstance(x, torch.Tensor) and not _is_cuda(x) and x.dim() > 0


def _cuda_device(d) -> bool:
    if isinstance(d, torch.Tensor):
        return _is_cuda(d)
    if isinstance(d, (str, torch.device)):
        return torch.device(d).type == "cuda"
    return False


# what CUDA says when code mixes devices (the start of each message): on a real GPU and here
DEVICE_ERRORS = ("Expected all tensors to be on the same device", "'lengths' argument should be a 1D CPU",
                 "device type for generator",
                 "'batch_sizes' should be a 1D CPU", "indices should be either on cpu or on the same device",
                 "can't convert cuda:0 device type tensor to numpy")

# what torch says where a library function makes a real GPU object (a tensor, a torch.Generator("cuda")) in a way
# the fake device does not see: a CPU-only build, and a CUDA build on a machine without a usable GPU (the build a plain
# `pip install torch` takes on Linux). Both must give the same verdict: the call is rerun on the CPU, no device verdict.
CANNOT_TELL = ("Torch not compiled with CUDA enabled", "not linked with support for cuda", "Cannot get CUDA generator",
               "Found no NVIDIA driver", "CUDA driver version is insufficient", "no CUDA-capable device is detected",
               "No CUDA GPUs are available")


def _mismatch(func) -> RuntimeError:
    return RuntimeError("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and "
                        f"cpu! (in {func})")


_aten = torch.ops.aten
# the arguments (by position) where CUDA accepts CPU tensors beside GPU ones, or wants them
_INDICES = {_aten.index.Tensor: 1, _aten.index_put.default: 1, _aten.index_put_.default: 1,
            _aten._index_put_impl_.default: 1}
_TRANSFERS = {_aten._to_copy.default, _aten.copy_.default, _aten.copy.default, _aten.lift_fresh.default,
              _aten.lift_fresh_copy.default, _aten._local_scalar_dense.default, _aten.detach.default}
# outputs that stay on the CPU whatever the device of the inputs: (op, output positions)
_CPU_OUTPUTS = {_aten._pack_padded_sequence.default: (1,)}
# arguments CUDA wants on the CPU: (op, position, message)
_CPU_ARGS = {
    _aten._pack_padded_sequence.default: (1, "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 "
                                             "Long tensor"),
}
_PAD_PACKED = torch._C._VariableFunctions._pad_packed_sequence


# for each library function running (called from Python), whether it got tensors on the GPU: the tensors its
# C++ code makes for itself with its input's options (C++ sees the fake tensors' values on the CPU) go there too
_calls: list[bool] = []


def _run(func, args, kwargs):
    """``func`` as CUDA would run it with these arguments, on their values."""
    kwargs = dict(kwargs or {})
    if func in _CPU_ARGS:
        pos, message = _CPU_ARGS[func]
        if len(args) > pos and _is_cuda(args[pos]):
            raise RuntimeError(message)
    flat, _ = tree_flatten((args, kwargs))
    on_cuda = any(_is_cuda(t) for t in flat)
    to_cuda = _cuda_device(kwargs.get("device"))
    if not any(isinstance(t, torch.Tensor) for t in flat) and _calls and _calls[-1]:
        to_cuda = True  # made inside a library function called with GPU tensors (one_hot's arange): on their device
    if func in _TRANSFERS:
        if func is _aten._to_copy.default:
            on_cuda = to_cuda or (on_cuda and "device" not in kwargs)
        elif func in (_aten.copy_.default, _aten.copy.default):
            on_cuda = _is_cuda(args[0])
    elif on_cuda:
        if func in _INDICES and any(_is_cuda(i) for i in tree_flatten(args[1])[0]) and not _is_cuda(args[0]):
            raise RuntimeError("indices should be either on cpu or on the same device as the indexed tensor (cpu)")
        exempt = _INDICES.get(func, _CPU_ARGS.get(func, (None,))[0])
        checked = [a for i, a in enumerate(args) if i != exempt]
        if any(_is_cpu_array(t) for t in tree_flatten((checked, kwargs))[0]):
            raise _mismatch(func)
    if "device" in kwargs and to_cuda:
        kwargs["device"] = _CPU
    owners = {id(t.elem): t for t in flat if _is_cuda(t)}
    out = func(*tree_map(lambda t: t.elem if _is_cuda(t) else t, args),
               **tree_map(lambda t: t.elem if _is_cuda(t) else t, kwargs))
    if not (on_cuda or to_cuda) or func is _aten._local_scalar_dense.default:
        return out
    keep = _CPU_OUTPUTS.get(func, ())

    def wrap(t, i=None):
        if not isinstance(t, torch.Tensor) or i in keep:
            return t
        return owners[id(t)] if id(t) in owners else FakeCudaTensor(t)
    if isinstance(out, (tuple, list)):
        return type(out)(wrap(t, i) for i, t in enumerate(out))
    return wrap(out)


class _Dispatch(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return _run(func, args, kwargs)


# Python-level calls that would initialise CUDA before reaching the dispatcher: they run on the CPU and the
# result is moved to the fake device
_NEW = {torch.Tensor.new_tensor, torch.Tensor.new_zeros, torch.Tensor.new_ones, torch.Tensor.new_full,
        torch.Tensor.new_empty}


# generators a check gave as GPU ones (:func:`cuda_generator`), by id, while the fake device is on: CPU generators that
# draw as a CUDA generator would, only for tensors made on the GPU
_generators: dict[int, torch.Generator] = {}
_open: list[bool] = []  # one per on_fake_cuda block running (a check's device case runs the variants' inside it)


def cuda_generator(generator: torch.Generator | None = None) -> torch.Generator:
    """``generator`` (or a new one) as a generator on the fake device, until the ``on_fake_cuda`` block running (or the
    next to begin) ends: a draw with it for a tensor on the CPU (``torch.rand(n, generator=g)`` without ``device=``) fails as CUDA fails it."""
    generator = generator if generator is not None else torch.Generator()
    _generators[id(generator)] = generator
    return generator


def _draws_elsewhere(func, args, kwargs) -> bool:
    """Whether a draw with one of :data:`_generators` is for tensors on the CPU (none of its tensors, nor its device=,
    on the GPU)."""
    generator = kwargs.get("generator")
    if generator is None or _generators.get(id(generator)) is not generator:
        return False
    return not (_cuda_device(kwargs.get("device")) or any(_is_cuda(t) for t in tree_flatten(args)[0]))


class _Functions(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if _generators and _draws_elsewhere(func, args, kwargs):
            raise RuntimeError("Expected a 'cpu' device type for generator but found 'cuda'")
        if func in (torch.Tensor.to, torch.Tensor.cuda):
            x = args[0]
            if func is torch.Tensor.cuda:
                target, dtype = CUDA, None
            else:
                target, dtype, _, _ = torch._C._nn._parse_to(*args[1:], **kwargs)
                other = kwargs.get("other", args[1] if len(args) > 1 else None)
                if isinstance(other, torch.Tensor):  # x.to(other): other's device as Python sees it
                    target = other.device
            x = x.to(dtype) if dtype is not None else x
            if target is None:
                return x
            if not _cuda_device(target):
                return _aten._to_copy.default(x, device=_CPU) if _is_cuda(x) else x.to(target)
            return x if _is_cuda(x) else _aten._to_copy.default(x, device=CUDA)
        if func in _NEW and _is_cuda(args[0]) and kwargs.get("device") is None:
            kwargs["device"] = CUDA
            args = (torch.empty(0, dtype=args[0].dtype), *args[1:])
        if func is _PAD_PACKED and _is_cuda(args[0]):  # its C++ makes the padded output on the CPU: move it
            if _is_cuda(args[1]):
                raise RuntimeError("'batch_sizes' should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor")
            padded, lengths = func(*args, **kwargs)
            return _aten._to_copy.default(padded, device=CUDA), lengths
        if func is torch.Tensor.cpu and _is_cuda(args[0]):
            return _aten._to_copy.default(args[0], device=_CPU)
        if func is torch.Tensor.tolist and _is_cuda(args[0]):
            return args[0].elem.tolist()
        if _cuda_device(kwargs.get("device")):
            kwargs["device"] = _CPU
            grad = kwargs.pop("requires_grad", False)
            out = func(*args, **kwargs)
            out = _aten._to_copy.default(out, device=CUDA)
            return out.requires_grad_() if grad else out
        if func is torch.Tensor.numpy and _is_cuda(args[0]):
            raise TypeError("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                            "to host memory first.")
        _calls.append(any(_is_cuda(t) for t in tree_flatten((args, kwargs))[0]))
        try:
            return func(*args, **kwargs)
        finally:
            _calls.pop()


@contextlib.contextmanager
def on_fake_cuda():
    """Within this block, ``.to("cuda")``, ``.cuda()`` and ``device="cuda"`` give tensors on a fake ``cuda:0``."""
    overwrite, generators = torch.__future__.get_overwrite_module_params_on_conversion(), set(_generators)
    _open.append(True)
    # module.to("cuda") gives the module new parameters (of the fake device) rather than new values for the old ones
    torch.__future__.set_overwrite_module_params_on_conversion(True)
    try:
        with _Functions(), _Dispatch(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", "PyTorch was compiled without cuDNN")  # the RNNs ask whether cuDNN may run
            yield
    finally:
        torch.__future__.set_overwrite_module_params_on_conversion(overwrite)
        _open.pop()
        for key in set(_generators) - (generators if _open else set()):  # those given since it began (all, outermost)
            del _generators[key]
