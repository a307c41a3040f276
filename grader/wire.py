"""What crosses between the trusted grader and the sandbox: data only.

Frames are an 8-byte big-endian length and UTF-8 JSON. Values are JSON scalars of exact built-in types
(None, bool, int, float, str), tuples, lists, dicts, tensors (dtype, shape and the raw bytes in base64),
dtypes, devices, slices, and references to objects that stay on the side that owns them. Nothing is ever
unpickled or evaluated, a subclass of a tensor, float or tuple is not data (it travels as a reference,
so a check sees it is not the real type), and every decoded value is checked for type, size and shape.
"""

from __future__ import annotations

import base64
import json
import struct

import torch

MAX_FRAME = 64 * 2**20        # bytes in one message
MAX_NUMEL = 16 * 2**20        # elements in one tensor
MAX_DEPTH = 32
DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.uint8, torch.int8, torch.int16, torch.int32,
    torch.int64, torch.bool, torch.complex64)}
SCALARS = (type(None), bool, int, float, str)


class WireError(ValueError):
    """A message that is not valid data (too big, malformed, or of a type that may not cross)."""


def encode(value, ref, depth: int = 0):
    """``value`` as JSON-ready data; objects that are not data go through ``ref(obj) -> dict``."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    t = type(value)
    if t in SCALARS:
        return value
    if t in (tuple, list) or t is torch.Size:
        return {"$": "list" if t is list else "tuple", "v": [encode(v, ref, depth + 1) for v in value]}
    if t is dict or t.__name__ == "OrderedDict" and t.__module__ == "collections":
        items = list(value.items())
        if all(type(k) in (str, int) for k, _ in items):
            return {"$": "dict", "v": [[k, encode(v, ref, depth + 1)] for k, v in items]}
    if t is torch.Tensor or t is torch.nn.Parameter:
        if value.layout != torch.strided or str(value.dtype).removeprefix("torch.") not in DTYPES:
            return ref(value)
        # a copy with standard strides: .contiguous() keeps odd strides of size-1 dimensions (ids[:, t] with B = 1)
        data = value.detach().to("cpu").clone(memory_format=torch.contiguous_format)
        raw = data.reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b""
        return {"$": "tensor", "dtype": str(data.dtype).removeprefix("torch."), "shape": list(data.shape),
                "grad": bool(value.requires_grad), "device": value.device.type,
                "data": base64.b64encode(raw).decode("ascii")}
    if t is torch.dtype:
        return {"$": "dtype", "v": str(value).removeprefix("torch.")}
    if t is torch.device:
        return {"$": "device", "v": str(value)}
    if t is slice:
        return {"$": "slice", "v": [encode(value.start, ref), encode(value.stop, ref), encode(value.step, ref)]}
    if value is Ellipsis:
        return {"$": "ellipsis"}
    return ref(value)


def _int(v, what: str) -> int:
    if type(v) is not int:
        raise WireError(f"{what} must be an int")
    return v


def decode(obj, resolve, depth: int = 0):
    """The value ``encode`` described; references become ``resolve(id, type_name)``."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if type(obj) in SCALARS:
        return obj
    if type(obj) is not dict or type(obj.get("$")) is not str:
        raise WireError(f"not a valid value: {type(obj).__name__}")
    kind = obj["$"]
    if kind in ("list", "tuple"):
        items = obj.get("v")
        if type(items) is not list:
            raise WireError("malformed sequence")
        out = [decode(v, resolve, depth + 1) for v in items]
        return out if kind == "list" else tuple(out)
    if kind == "dict":
        pairs = obj.get("v")
        if type(pairs) is not list or not all(type(p) is list and len(p) == 2 and type(p[0]) in (str, int) for p in pairs):
            raise WireError("malformed dict")
        return {k: decode(v, resolve, depth + 1) for k, v in pairs}
    if kind == "tensor":
        dtype = DTYPES.get(obj.get("dtype"))
        shape = obj.get("shape")
        if dtype is None or type(shape) is not list or not all(type(s) is int and s >= 0 for s in shape):
            raise WireError("malformed tensor")
        numel = 1
        for s in shape:
            numel *= s
        if numel > MAX_NUMEL:
            raise WireError(f"tensor of {numel} elements is too large")
        raw = base64.b64decode(obj.get("data") if type(obj.get("data")) is str else "", validate=True)
        itemsize = torch.empty((), dtype=dtype).element_size()
        if len(raw) != numel * itemsize:
            raise WireError("tensor data does not match its shape")
        t = torch.frombuffer(bytearray(raw), dtype=dtype).reshape(shape) if numel else torch.empty(shape, dtype=dtype)
        if obj.get("grad") is True and (t.is_floating_point() or t.is_complex()):
            t.requires_grad_(True)
        return t
    if kind == "dtype":
        if obj.get("v") not in DTYPES:
            raise WireError("unknown dtype")
        return DTYPES[obj["v"]]
    if kind == "device":
        if type(obj.get("v")) is not str or len(obj["v"]) > 32:
            raise WireError("malformed device")
        return torch.device(obj["v"])
    if kind == "slice":
        v = obj.get("v")
        if type(v) is not list or len(v) != 3 or not all(x is None or type(x) is int for x in v):
            raise WireError("malformed slice")
        return slice(*v)
    if kind == "ellipsis":
        return Ellipsis
    if kind == "ref":
        name = obj.get("type")
        return resolve(_int(obj.get("id"), "reference id"), name if type(name) is str else "?")
    raise WireError(f"unknown value kind {kind!r}")


def write_frame(f, message) -> None:
    data = json.dumps(message, allow_nan=True).encode()
    if len(data) > MAX_FRAME:
        raise WireError(f"message of {len(data)} bytes is too large")
    f.write(struct.pack(">Q", len(data)) + data)
    f.flush()


def parse_frame(data: bytes):
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as e:
        raise WireError(f"malformed message: {str(e)[:100]}") from None


def read_frame(f):
    """The next message from a blocking binary stream, or None at its end (used by the sandbox side)."""
    head = f.read(8)
    if len(head) < 8:
        return None
    (n,) = struct.unpack(">Q", head)
    if n > MAX_FRAME:
        raise WireError("message too large")
    data = b""
    while len(data) < n:
        chunk = f.read(n - len(data))
        if not chunk:
            return None
        data += chunk
    return parse_frame(data)
