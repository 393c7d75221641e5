"""Actions that can always be sent to a worker process, and that the env answers exactly as the original.

A vector env whose envs live in other processes pickles every action it sends. An agent, a fuzzer or a bug can
hand it an action that does not pickle: a lambda, an object whose ``__reduce__`` raises, a value nested
thousands of levels deep, an object that pickles to a loader that raises. A single env answers such an action
with an ``Error: ...`` observation like any other malformed call; a vector env that lets the pickling error
escape has already sent the step to the slots before, and from then on their replies arrive one step late. So
every action is made sendable *before* anything is sent: ``sendable(action)`` is the action itself when it
pickles and unpickles, else its *twin*.

The twin is what the env needs to give the same answer. officegym's parser and schema checks look at a value's
type (exact built-in types, or ``isinstance`` of them), its type's ``__name__``, its contents, and its ``str``
and ``repr`` (inside error messages); they never call anything else on it. The twin keeps exactly that:

- plain values (``str``, ``int``, ``float``, ``bool``, ``None``, ``bytes``) and values that pickle and unpickle
  stay as they are; exact ``dict``, ``list`` and ``tuple`` are rebuilt with twinned items (shared and cyclic parts stay
  shared, as pickle keeps them);
- anything else becomes a stand-in: an instance of a class of the same ``__name__`` over the same built-in base
  (``str``, ``int``, ``float``, ``dict``, ``list``, ``tuple``, else ``object``) with the same contents, whose
  ``str`` and ``repr`` return the original's text, or raise an error of the same type name if the original's did;
- containers deeper than ``CUT_DEPTH`` levels (below any depth the checks look at: they refuse beyond
  ``spaces.safe_value.MAX_DEPTH``) become empty stand-ins that keep the original's ``str``/``repr`` outcome, so
  a value nested 5,000 deep still fails to print, as the original does, instead of printing differently.

What the twin cannot carry is behaviour: a stand-in's methods are its base's. No officegym env calls a method on
an argument value (the schema checks refuse every non-plain type first), so its answers are those to the
original; ``tests/vector/test_lockstep.py`` checks that over hostile action sequences.
"""

from __future__ import annotations

import builtins
import pickle
from typing import Any, Final

CUT_DEPTH: Final = 200
"""Far below the depth at which pickling or printing a value exhausts the stack (about 1,000), far above the
depth beyond which officegym refuses a value (64)."""

_PLAIN: Final = (str, int, float, bool, type(None), bytes)
_BASES: Final[dict[str, type]] = {
    "str": str,
    "int": int,
    "float": float,
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "object": object,
}
Shown = tuple[bool, str]
"""A ``str`` or ``repr`` outcome: ``(True, text)``, or ``(False, name of the error it raised)``."""


def sendable(action: Any) -> Any:
    """``action`` itself if it pickles, else its twin (see the module docstring). Never raises."""
    if _flat_call(action) or _pickles(action):
        return action
    return twin(action)


_FLAT: Final = frozenset((str, int, float, bool, type(None)))


def _flat_call(action: Any) -> bool:
    """True for the usual action, a dict of plain values with at most one level of plain arguments below: such
    an action always pickles, and this check costs half a ``pickle.dumps`` (it runs on every step of every
    vector env, the sync one included)."""
    if type(action) is not dict:
        return type(action) is str
    for key, value in action.items():
        if type(key) is not str:
            return False
        kind = type(value)
        if kind is dict:
            for inner_key, inner in value.items():
                if type(inner_key) is not str or type(inner) not in _FLAT:
                    return False
        elif kind not in _FLAT:
            return False
    return True


def twin(value: Any) -> Any:
    """A picklable value the env answers as it answers ``value``. Never raises: a value the twin cannot be built
    for (or that still fails to pickle) becomes a bare stand-in with its type's name and text."""
    try:
        copy = _Twinner().twin(value, 0)
    except Exception:
        copy = None
    if copy is None or not _pickles(copy):
        return _stand_in("object", type(value).__name__, (), _shown(value, str), _shown(value, repr))
    return copy


class _Twinner:
    """One twin's memo: a part met twice (shared, or a cycle) is twinned once, so the twin has the original's
    shape and a shared part does not multiply."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.alive: list[Any] = []  # keeps the originals alive, so their ids stay unique while the memo is used

    def twin(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        known = self.memo.get(id(value))
        if known is not None:
            return known
        self.alive.append(value)
        if depth >= CUT_DEPTH and isinstance(value, dict | list | tuple):
            return self._remember(value, _stand_in(_base_of(value), kind.__name__, (), *_texts(value)))
        if kind is list:
            items: list[Any] = self._remember(value, [])
            items.extend(self.twin(item, depth + 1) for item in value)
            return items
        if kind is dict:
            mapping: dict[Any, Any] = self._remember(value, {})
            mapping.update((self.twin(k, depth + 1), self.twin(v, depth + 1)) for k, v in value.items())
            return mapping
        if kind is tuple:
            return self._remember(value, tuple(self.twin(item, depth + 1) for item in value))
        if _pickles(value):
            return self._remember(value, value)
        return self._remember(value, self._stand_in_for(value, depth))

    def _stand_in_for(self, value: Any, depth: int) -> Any:
        base = _base_of(value)
        contents: Any = ()
        if base in ("dict",):
            contents = tuple((self.twin(k, depth + 1), self.twin(v, depth + 1)) for k, v in dict.items(value))
        elif base in ("list", "tuple"):
            contents = tuple(self.twin(item, depth + 1) for item in base_iter(value))
        elif base != "object":
            contents = _BASES[base].__new__(_BASES[base], _plain_copy(value, base))
        return _stand_in(base, type(value).__name__, contents, *_texts(value))

    def _remember(self, value: Any, copy: Any) -> Any:
        self.memo[id(value)] = copy
        return copy


def base_iter(value: Any) -> Any:
    """The items of a list or tuple subclass as the built-in type holds them (a subclass may override
    ``__iter__``; the checks walk the built-in contents)."""
    return list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)


def _plain_copy(value: Any, base: str) -> Any:
    if base == "str":
        return str.__str__(value)
    if base == "int":
        return int.__int__(value)
    return float.__float__(value)


def _base_of(value: Any) -> str:
    for name in ("str", "int", "float", "dict", "list", "tuple"):
        if isinstance(value, _BASES[name]) and not isinstance(value, bool):
            return name
    return "object"


def _pickles(value: Any) -> bool:
    """Whether ``value`` pickles *and unpickles*: an object can pickle to a loader that raises (its
    ``__reduce__`` returns one), and a worker that cannot read its command cannot answer it."""
    try:
        pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # whatever a __reduce__ or a loader raises, RecursionError, PicklingError, TypeError, ...
        return False
    return True


def _texts(value: Any) -> tuple[Shown, Shown]:
    return _shown(value, str), _shown(value, repr)


def _shown(value: Any, show: Any) -> Shown:
    try:
        return True, str(show(value))
    except Exception as error:
        return False, type(error).__name__


_CLASSES: dict[tuple[str, str], type] = {}
_ERRORS: dict[str, type[Exception]] = {}


def _stand_in(base: str, type_name: str, contents: Any, str_shown: Shown, repr_shown: Shown) -> Any:
    """An instance of the stand-in class ``type_name`` over ``base``, holding ``contents`` (pairs for a dict,
    items for a list or tuple, the plain value for ``str``/``int``/``float``). Also what unpickling calls."""
    cls = _stand_in_class(base, type_name)
    if base == "object":
        value = cls()
    elif base == "dict":
        value = cls()
        dict.update(value, contents)
    elif base == "list":
        value = cls()
        list.extend(value, contents)
    else:
        value = cls(contents)
    value._officegym_shown = (str_shown, repr_shown)
    return value


def _stand_in_class(base: str, type_name: str) -> type:
    """One class per (base, name), made on first use in each process (classes do not pickle by value)."""
    cls = _CLASSES.get((base, type_name))
    if cls is None:
        namespace = {
            "__str__": _stand_in_str,
            "__repr__": _stand_in_repr,
            "__reduce__": _stand_in_reduce,
            "__module__": __name__,
            "__qualname__": type_name,
            "_officegym_base": base,
        }
        cls = type(type_name, (_BASES[base],), namespace)
        _CLASSES[(base, type_name)] = cls
    return cls


def _stand_in_str(self: Any) -> str:
    return _replay(self._officegym_shown[0])


def _stand_in_repr(self: Any) -> str:
    return _replay(self._officegym_shown[1])


def _stand_in_reduce(self: Any) -> tuple[Any, ...]:
    base = type(self)._officegym_base
    contents: Any
    if base == "dict":
        contents = tuple(dict.items(self))
    elif base in ("list", "tuple"):
        contents = tuple(base_iter(self))
    elif base == "object":
        contents = ()
    else:
        contents = _plain_copy(self, base)
    str_shown, repr_shown = self._officegym_shown
    return _stand_in, (base, type(self).__name__, contents, str_shown, repr_shown)


def _replay(shown: Shown) -> str:
    """The original's text, or an error of the type the original raised (its name is all a message shows)."""
    done, text = shown
    if done:
        return text
    raise _error_class(text)(f"{text}, as the original value raised")


def _error_class(name: str) -> type[Exception]:
    known = getattr(builtins, name, None)
    if isinstance(known, type) and issubclass(known, Exception):
        try:
            known("probe")
        except Exception:  # a built-in error with a constructor of its own (UnicodeEncodeError): a look-alike
            pass
        else:
            return known
    made = _ERRORS.get(name)
    if made is None:
        made = type(name, (Exception,), {"__module__": __name__})
        _ERRORS[name] = made
    return made
