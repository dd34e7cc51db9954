"""Plain record classes without :mod:`dataclasses` (it imports :mod:`inspect`).

``dataclasses`` pulls in ``inspect`` (and with it ``ast``, ``dis``,
``tokenize``, ``linecache``...): on this project's 2-core machine that import
alone costs more than a read verb's whole work.  The records on the read paths
(a workspace, an inbox entry, a journal line, an issue declaration...) need
only a small part of it, which this module gives:

- :func:`record_class` — ``@record_class`` / ``@record_class(frozen=True)`` on a class with
  annotated fields, in order, with defaults or :func:`field`
  (``default_factory``).  It adds ``__init__`` (positional or keyword
  arguments), ``__repr__``, ``__eq__`` (same class, same field values) and,
  when frozen, assignment that raises ``AttributeError`` and ``__hash__``.
  A subclass of a record adds its own fields after its parent's.
- :func:`asdict` and :func:`replace`, shallow: what the callers here use.

Not supported (and not needed): ``ClassVar``/``InitVar``, ordering,
``__post_init__``, keyword-only fields, nested conversion in ``asdict``.
"""

from __future__ import annotations

__all__ = ["record_class", "field", "asdict", "replace", "fields_of"]

_NO_DEFAULT = object()


class _Field:
    __slots__ = ("default", "default_factory", "compare", "repr")

    def __init__(self, default: object = _NO_DEFAULT, default_factory: object = None, *,
                 compare: bool = True, repr: bool = True) -> None:
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr


def field(*, default: object = _NO_DEFAULT, default_factory: object = None, compare: bool = True,
          repr: bool = True) -> object:
    """A field's default (``default_factory`` is called once per instance)."""
    if default is not _NO_DEFAULT and default_factory is not None:
        raise ValueError("give default or default_factory, not both")
    return _Field(default, default_factory, compare=compare, repr=repr)


def fields_of(cls_or_obj: object) -> tuple[str, ...]:
    """The field names of a record class or instance, in order."""
    cls = cls_or_obj if isinstance(cls_or_obj, type) else type(cls_or_obj)
    return cls.__record_fields__


def asdict(obj: object) -> dict:
    """``{field: value}`` (shallow)."""
    return {name: getattr(obj, name) for name in fields_of(obj)}


def replace(obj: object, **changes: object) -> object:
    """A copy of ``obj`` with some fields changed."""
    unknown = set(changes) - set(fields_of(obj))
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field(s) {', '.join(sorted(unknown))}")
    return type(obj)(**{**asdict(obj), **changes})


def _frozen_setattr(self, name, value):
    raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")


def _frozen_delattr(self, name):
    raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")


def record_class(cls: type | None = None, /, *, frozen: bool = False) -> object:
    """Class decorator: see the module docstring."""

    def wrap(cls: type) -> type:
        inherited: tuple[str, ...] = ()
        defaults: dict[str, _Field] = {}
        for base in reversed(cls.__mro__[1:]):
            if hasattr(base, "__record_fields__"):
                inherited = base.__record_fields__
                defaults.update(base.__record_defaults__)
        own = [n for n in cls.__dict__.get("__annotations__", {}) if n not in inherited]
        for name in own:
            if name in cls.__dict__:
                value = cls.__dict__[name]
                defaults[name] = value if isinstance(value, _Field) else _Field(value)
                if isinstance(value, _Field):
                    delattr(cls, name)  # the instance attribute is set by __init__
        names = (*inherited, *own)
        seen_default = False
        for name in names:
            if name in defaults and (defaults[name].default is not _NO_DEFAULT
                                     or defaults[name].default_factory is not None):
                seen_default = True
            elif seen_default:
                raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one "
                                "with a default")
        cls.__record_fields__ = names
        cls.__record_defaults__ = defaults
        cls.__record_compared__ = tuple(n for n in names if n not in defaults or defaults[n].compare)
        cls.__record_shown__ = tuple(n for n in names if n not in defaults or defaults[n].repr)
        cls.__init__ = _tiered_init(cls, names, defaults, frozen)
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = _repr
        if "__eq__" not in cls.__dict__:
            cls.__eq__ = _eq
        if frozen:
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
            if "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
                cls.__hash__ = _hash
        elif "__hash__" not in cls.__dict__:
            cls.__hash__ = None  # mutable and comparable by value: unhashable, like a dataclass
        return cls

    return wrap if cls is None else wrap(cls)


#: How many times a record class is built through the generic ``__init__`` before its own is
#: compiled (see :func:`_tiered_init`).
COMPILE_AFTER = 16


def _tiered_init(cls: type, names: tuple[str, ...], defaults: dict, frozen: bool):
    """The class's ``__init__``: generic for its first :data:`COMPILE_AFTER`
    instances, then a compiled one put in its place.  The compiled one is a
    generated ``def`` (the fastest ``__init__`` Python has: a small record in
    0.3 µs against the generic 1-3 µs), but compiling it costs about 25 µs a
    field, and a read verb defines dozens of records and builds most of them
    once or never (``alice-schedule health`` compiled 15 classes, 4-5 ms of its
    start-up, before this).  Both give the same instance and the same errors
    (a test compares them with Python's own)."""
    count = len(names)
    fills = []  # per field: None (required), (False, default) or (True, factory)
    for name in names:
        spec = defaults.get(name)
        if spec is None or (spec.default is _NO_DEFAULT and spec.default_factory is None):
            fills.append(None)
        elif spec.default_factory is not None:
            fills.append((True, spec.default_factory))
        else:
            fills.append((False, spec.default))
    fills = tuple(fills)
    built = 0

    def __init__(self, *args, **kwargs):
        nonlocal built
        built += 1
        if built > COMPILE_AFTER and cls.__dict__.get("__init__") is __init__:
            cls.__init__ = _make_init(cls.__name__, names, defaults, frozen)
        if kwargs or len(args) != count:
            args = _bind(cls.__name__, names, fills, args, kwargs)
        # the instance's own dict: a frozen record's __setattr__ refuses, by design
        self.__dict__.update(zip(names, args))

    __init__.__qualname__ = f"{cls.__name__}.__init__"
    return __init__


def _bind(class_name: str, names: tuple[str, ...], fills: tuple, args: tuple, kwargs: dict) -> list:
    """The field values of one call, in field order (``kwargs`` is the call's own
    dict), or the ``TypeError`` Python gives for the same signature."""
    where = f"{class_name}.__init__()"
    if len(args) > len(names):
        required = sum(1 for fill in fills if fill is None)
        takes = (f"{len(names) + 1}" if required == len(names) else f"from {required + 1} to {len(names) + 1}")
        raise TypeError(f"{where} takes {takes} positional arguments but {len(args) + 1} were given")
    values = list(args)
    missing = []
    for i in range(len(args), len(names)):
        name = names[i]
        if name in kwargs:
            values.append(kwargs.pop(name))
        elif fills[i] is None:
            missing.append(name)
        else:
            values.append(fills[i][1]() if fills[i][0] else fills[i][1])
    for name in kwargs:
        if name in names:
            raise TypeError(f"{where} got multiple values for argument {name!r}")
        raise TypeError(f"{where} got an unexpected keyword argument {name!r}")
    if missing:
        quoted = [repr(name) for name in missing]
        listed = (quoted[0] if len(quoted) == 1 else " and ".join(quoted) if len(quoted) == 2
                  else ", ".join(quoted[:-1]) + ", and " + quoted[-1])
        raise TypeError(f"{where} missing {len(missing)} required positional argument"
                        f"{'s' if len(missing) > 1 else ''}: {listed}")
    return values


def _make_init(class_name: str, names: tuple[str, ...], defaults: dict, frozen: bool):
    params, body, env = [], [], {"_NO_DEFAULT": _NO_DEFAULT, "_set": object.__setattr__}
    for name in names:
        spec = defaults.get(name)
        if spec is None or (spec.default is _NO_DEFAULT and spec.default_factory is None):
            params.append(name)
            value = name
        elif spec.default_factory is not None:
            env[f"_factory_{name}"] = spec.default_factory
            params.append(f"{name}=_NO_DEFAULT")
            value = f"_factory_{name}() if {name} is _NO_DEFAULT else {name}"
        else:
            env[f"_default_{name}"] = spec.default
            params.append(f"{name}=_default_{name}")
            value = name
        body.append(f"    _set(self, {name!r}, {value})" if frozen else f"    self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, env)
    init = env["__init__"]
    init.__qualname__ = f"{class_name}.__init__"
    return init


def _repr(self) -> str:
    inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({inner})"


def _eq(self, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = self.__record_compared__
    return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)


def _hash(self) -> int:
    return hash(tuple(getattr(self, n) for n in self.__record_compared__))
