"""What the trusted side holds of a notebook running in a sandbox: :class:`Remote` handles to its objects (calls,
attributes and items are requests; what comes back is data or another handle), and the errors of the sandbox
and of the student's code."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sandbox import Sandbox


class SandboxError(Exception):
    """The sandbox stopped, timed out, ran out of memory or sent something that is not valid data."""


class RemoteError(Exception):
    """Student code raised an exception in the sandbox: ``kind`` is its type name, ``where`` its place."""

    def __init__(self, kind: str, message: str, where: str = ""):
        super().__init__(f"{kind}: {message}" + (f" ({where})" if where else ""))
        self.kind, self.message, self.where = kind, message, where


_BUILTIN_ERRORS = (TypeError, ValueError, IndexError, KeyError, AttributeError, RuntimeError, NotImplementedError,
                   ZeroDivisionError, NameError, LookupError, ArithmeticError, OverflowError)


@lru_cache(maxsize=None)
def remote_error_class(kind: str) -> type:
    """RemoteError, also an instance of the built-in exception the student's code raised (so that
    ``except TypeError`` in a check, or ``list()``'s length hint, behave as with a local object)."""
    base = next((e for e in _BUILTIN_ERRORS if e.__name__ == kind), None)
    return type(f"Remote{kind}", (RemoteError, base), {"__init__": RemoteError.__init__,
                                                       "__str__": Exception.__str__}) if base else RemoteError


def ref_of(obj):
    if isinstance(obj, Remote):
        return {"$": "ref", "id": object.__getattribute__(obj, "_id"), "type": "?"}
    raise TypeError(f"a check tried to send a {type(obj).__name__} into the sandbox (only data and the "
                    "notebook's own objects can go there; use Sandbox.define for code)")


class Remote:
    """An object that lives in the sandbox. Calls, attributes, items, len, iteration and truth are
    answered by the sandbox; what comes back is data or another Remote."""

    __slots__ = ("_sb", "_id", "_type")

    def __init__(self, sb: Sandbox, ident: int, type_name: str):
        object.__setattr__(self, "_sb", sb)
        object.__setattr__(self, "_id", ident)
        object.__setattr__(self, "_type", type_name[:100])

    def __call__(self, *args, **kwargs):
        sb = self._sb
        return sb.value("call", id=self._id, args=sb.send(args), kwargs=sb.send(kwargs))

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._sb.value("getattr", id=self._id, name=name)

    def __setattr__(self, name: str, value) -> None:
        self._sb.request("setattr", id=self._id, name=name, value=self._sb.send(value))

    def __getitem__(self, key):
        return self._sb.value("getitem", id=self._id, key=self._sb.send(key))

    def __setitem__(self, key, value) -> None:
        self._sb.request("setitem", id=self._id, key=self._sb.send(key), value=self._sb.send(value))

    def __len__(self) -> int:
        n = self._sb.request("len", id=self._id)
        if type(n) is not int or n < 0:
            raise SandboxError("len() of a sandbox object is not an int")
        return n

    def __iter__(self):
        items = self._sb.value("iter", id=self._id)
        if type(items) is not list:
            raise SandboxError("iterating a sandbox object gave no list")
        return iter(items)

    def __bool__(self) -> bool:
        b = self._sb.request("bool", id=self._id)
        if type(b) is not bool:
            raise SandboxError("truth of a sandbox object is not a bool")
        return b

    def __repr__(self) -> str:
        return f"<{self._type} in the sandbox>"
