"""Tiles (docs/rules.md §1): the 34 kinds as ``Tile``, with their points.

``Tile`` members are ints (``Tile.M1 == 0`` … ``Tile.RED == 33``), so they
index numpy count arrays directly; ``str(tile)`` is notation (``"5m"``).
Every property comes from the Rust core, which is the single source of
truth for points, glyphs and names.

``Tile`` and ``Suit`` behave as the ``IntEnum`` and ``str`` ``Enum`` they
used to be (iteration, ``len``, ``Tile["EAST"]``, ``Tile(5)``, ``.name``,
``.value``, singleton members, pickling) but are built by a small
metaclass: the stdlib ``enum`` module (and ``functools``, ``collections``
… which it imports) costs a bare interpreter several milliseconds, more
than the whole rest of ``import koudian``.
"""

from __future__ import annotations

from koudian._core import _tile_table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any, ClassVar, TypeVar

    _M = TypeVar("_M")

__all__ = ["Suit", "Tile"]

_TABLE = _tile_table()

# Per member class: its members in definition order, by name and by value,
# and each member's name (members hash and compare as their values).
_MEMBERS: dict[type, tuple[Any, ...]] = {}
_BY_NAME: dict[type, dict[str, Any]] = {}
_BY_VALUE: dict[type, dict[object, Any]] = {}
_NAME_OF: dict[type, dict[object, str]] = {}
# `types.MappingProxyType` without importing `types`.
_MappingProxy = type(type.__dict__)


class _Members(type):
    """Metaclass of ``Tile`` and ``Suit``: the class iterates over, counts,
    indexes by name and contains its members, as an enum class does."""

    def __iter__(cls: type[_M]) -> Iterator[_M]:
        return iter(_MEMBERS[cls])

    def __reversed__(cls: type[_M]) -> Iterator[_M]:
        members: tuple[_M, ...] = _MEMBERS[cls]
        return reversed(members)

    def __len__(cls) -> int:
        return len(_MEMBERS[cls])

    def __getitem__(cls: type[_M], name: str) -> _M:
        member: _M = _BY_NAME[cls][name]
        return member

    def __contains__(cls, value: object) -> bool:
        """A member, or the value of one (``5 in Tile``, ``"m" in Suit``)."""
        try:
            return value in _BY_VALUE[cls]
        except TypeError:  # unhashable
            return False

    @property
    def __members__(cls: type[_M]) -> Mapping[str, _M]:
        """A read-only ``{name: member}`` mapping."""
        members: Mapping[str, _M] = _MappingProxy(_BY_NAME[cls])
        return members

    def __setattr__(cls, name: str, value: object) -> None:
        if name in _BY_NAME.get(cls, ()):
            raise AttributeError(f"cannot reassign member {name!r}")
        super().__setattr__(name, value)

    def __delattr__(cls, name: str) -> None:
        if name in _BY_NAME.get(cls, ()):
            raise AttributeError(f"cannot delete member {name!r}")
        super().__delattr__(name)


def _lookup(cls: type[_M], value: object) -> _M:
    """The member whose value is ``value`` (``ValueError`` if none)."""
    try:
        member: _M = _BY_VALUE[cls][value]
        return member
    except (KeyError, TypeError):
        raise ValueError(f"{value!r} is not a valid {cls.__name__}") from None


def _seal(cls: type, members: Iterable[tuple[object, Any]]) -> None:
    """Registers ``(value, member)`` pairs under the names annotated in
    ``cls``'s body, in order: the annotations are the one list of names, and
    type the members for type checkers."""
    pairs = tuple(members)
    names = list(cls.__annotations__)
    if len(names) != len(pairs):
        raise RuntimeError(f"{cls.__name__}: {len(names)} names for {len(pairs)} members")
    for name, (_, member) in zip(names, pairs, strict=True):
        type.__setattr__(cls, name, member)
    _MEMBERS[cls] = tuple(member for _, member in pairs)
    _BY_NAME[cls] = {name: member for name, (_, member) in zip(names, pairs, strict=True)}
    _BY_VALUE[cls] = dict(pairs)
    _NAME_OF[cls] = {value: name for name, (value, _) in zip(names, pairs, strict=True)}


class Suit(str, metaclass=_Members):
    """The three suits and the honors, valued by their notation letter."""

    __slots__ = ()

    MAN: ClassVar[Suit]
    """万 characters."""
    PIN: ClassVar[Suit]
    """筒 dots."""
    SOU: ClassVar[Suit]
    """条 bamboo."""
    HONOR: ClassVar[Suit]
    """字 honors."""

    def __new__(cls, value: object) -> Suit:
        return _lookup(cls, value)

    @property
    def name(self) -> str:
        """The member's name: ``"MAN"``, ``"PIN"``, ``"SOU"``, ``"HONOR"``."""
        return _NAME_OF[Suit][self]

    @property
    def value(self) -> str:
        """The notation letter, as a plain ``str``: ``"m"``, ``"p"``, ``"s"``, ``"z"``."""
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return format(str.__str__(self), spec)

    def __repr__(self) -> str:
        return f"<Suit.{_NAME_OF[Suit][self]}: {str.__repr__(self)}>"

    def __reduce__(self) -> tuple[type[Suit], tuple[str]]:
        return Suit, (str.__str__(self),)

    def __copy__(self) -> Suit:
        return self

    def __deepcopy__(self, memo: object) -> Suit:
        return self


_seal(Suit, ((letter, str.__new__(Suit, letter)) for letter in "mpsz"))


class Tile(int, metaclass=_Members):
    """One of the 34 tile kinds; an int ``0..33`` in the shared index order.

    ``Tile(5)`` is ``Tile.M6``, ``Tile["EAST"]`` is ``Tile.EAST``, and
    ``list(Tile)`` holds the 34 members in index order.
    """

    __slots__ = ()

    M1: ClassVar[Tile]
    M2: ClassVar[Tile]
    M3: ClassVar[Tile]
    M4: ClassVar[Tile]
    M5: ClassVar[Tile]
    M6: ClassVar[Tile]
    M7: ClassVar[Tile]
    M8: ClassVar[Tile]
    M9: ClassVar[Tile]
    P1: ClassVar[Tile]
    P2: ClassVar[Tile]
    P3: ClassVar[Tile]
    P4: ClassVar[Tile]
    P5: ClassVar[Tile]
    P6: ClassVar[Tile]
    P7: ClassVar[Tile]
    P8: ClassVar[Tile]
    P9: ClassVar[Tile]
    S1: ClassVar[Tile]
    S2: ClassVar[Tile]
    S3: ClassVar[Tile]
    S4: ClassVar[Tile]
    S5: ClassVar[Tile]
    S6: ClassVar[Tile]
    S7: ClassVar[Tile]
    S8: ClassVar[Tile]
    S9: ClassVar[Tile]
    EAST: ClassVar[Tile]
    SOUTH: ClassVar[Tile]
    WEST: ClassVar[Tile]
    NORTH: ClassVar[Tile]
    WHITE: ClassVar[Tile]
    GREEN: ClassVar[Tile]
    RED: ClassVar[Tile]

    def __new__(cls, value: object) -> Tile:
        return _lookup(cls, value)

    @property
    def name(self) -> str:
        """The member's name: ``"M1"`` … ``"S9"``, ``"EAST"`` … ``"RED"``."""
        return _NAME_OF[Tile][self]

    @property
    def value(self) -> int:
        """The index ``0..33``, as a plain ``int``."""
        return int(self)

    @property
    def points(self) -> int:
        """Points (点数): a suited tile's rank, 10 for every honor."""
        return _TABLE[self][3]

    @property
    def suit(self) -> Suit:
        """The suit (``Suit.MAN`` …) or ``Suit.HONOR``."""
        return Suit(_TABLE[self][4])

    @property
    def rank(self) -> int:
        """Rank 1-9 for suited tiles, 1-7 for honors (东南西北白发中)."""
        return _TABLE[self][5]

    @property
    def glyph(self) -> str:
        """The Unicode tile glyph (U+1F000 block)."""
        return _TABLE[self][1]

    @property
    def chinese(self) -> str:
        """The Chinese name: ``一万``, ``五筒``, ``东``, ``中`` …"""
        return _TABLE[self][2]

    @property
    def notation(self) -> str:
        """Notation: ``"5m"``, ``"7z"``."""
        return _TABLE[self][0]

    @property
    def is_honor(self) -> bool:
        """Whether this is an honor (字牌)."""
        return self >= 27

    @classmethod
    def parse(cls, s: str) -> Tile:
        """Exactly one tile from notation, a glyph or a Chinese name."""
        from koudian._core import parse

        tiles = parse(s)
        if len(tiles) != 1:
            from koudian._core import InvalidTilesError

            raise InvalidTilesError(f"{s!r} is {len(tiles)} tiles, expected exactly one")
        return tiles[0]

    def __str__(self) -> str:
        return _TABLE[self][0]

    def __format__(self, spec: str) -> str:
        return format(_TABLE[self][0], spec)

    def __repr__(self) -> str:
        return f"Tile.{_NAME_OF[Tile][self]}"

    def __reduce__(self) -> tuple[type[Tile], tuple[int]]:
        return Tile, (int(self),)

    def __copy__(self) -> Tile:
        return self

    def __deepcopy__(self, memo: object) -> Tile:
        return self


_seal(Tile, ((i, int.__new__(Tile, i)) for i in range(len(_TABLE))))
