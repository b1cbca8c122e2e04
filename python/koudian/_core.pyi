"""Type stubs for ``koudian._core``, the compiled Rust extension.

Conventions shared by every function:

* ``hand`` (``HandLike``): a notation string (``"123m456p11z"``, glyphs or
  Chinese names), a list or tuple of tiles (``Tile`` members, ints 0..33
  or one-tile strings), 34 counts (``bytes``, ``bytearray`` or a 1-D numpy
  integer array of shape ``(34,)``), or a ``Hand`` (whose melds are used).
  A list or tuple of 14 ints is the fastest form.
* ``melds``: ``Meld`` objects or meld notation (``"555z"`` pong,
  ``"5555z"`` exposed kong, ``"+5555z"`` added kong, ``"[5555z]"``
  concealed kong).
* ``wildcards``: nothing, one tile, or up to two distinct kinds (``"5z"``,
  ``"5z7z"``, ``Tile.WHITE``, ``[31, 33]``). Wild tiles held in the hand
  stay at their own index.
* ``rules``: a preset name (``"shanxi"``, ``"shanxi-haozi"``,
  ``"shanxi-feng-haozi"``, ``"shanxi-double-haozi"``, ``"linxian"``,
  ``"sichuan"``) or a ``Ruleset``; ``None`` means ``"shanxi"``.
* Batch functions take an ``(N, 34)`` C-contiguous ``uint8`` array,
  release the GIL, and split rows over ``threads`` (0 = every core;
  at most 256, more raises ``KoudianError`` naming the limit). Threads
  are kept for the process for at most 4 distinct ``threads`` values;
  another value starts its threads for that call only.
* Bad input raises a ``KoudianError`` subclass (a ``ValueError``).
  An integer argument outside its range (seeds, ``index``, ``hands``,
  ``start``, ``threads``: ``0..2**64``; ``MatchState`` ``hands`` and
  ``rounds``: ``0..2**32``; ``points``: ``0..256``) raises
  ``KoudianError`` naming the parameter and the range, never
  ``OverflowError``.
"""

from collections.abc import Iterable, Mapping, Sequence
from os import PathLike
from types import ModuleType
from typing import Any, ClassVar, TypeAlias, Union

import numpy as np
import numpy.typing as npt

from koudian.tiles import Tile

__version__: str

TileLike: TypeAlias = Tile | int | str
HandLike: TypeAlias = (
    str | Sequence[TileLike] | bytes | bytearray | npt.NDArray[np.integer[Any]] | Hand
)
MeldLike: TypeAlias = Meld | str
MeldsLike: TypeAlias = Iterable[MeldLike] | str | None
WildLike: TypeAlias = TileLike | Sequence[TileLike] | None
RulesLike: TypeAlias = str | Ruleset | None
OptionValue: TypeAlias = bool | int | str | tuple[int, int]

class KoudianError(ValueError):
    """Base of every koudian error; a ValueError."""

class InvalidTilesError(KoudianError):
    """Unparseable tiles (the message names the character and position),
    a bad tile index, or a fifth copy."""

class InvalidHandError(KoudianError):
    """A hand of the wrong size or shape for the operation (the message
    states the expected size), or a bad batch array."""

class RulesetError(KoudianError):
    """An unknown (with the closest name suggested), mistyped or
    inconsistent ruleset option, or an unknown preset."""

class IllegalActionError(KoudianError):
    """An action that is not legal now; the state is unchanged."""

class InconsistentOutcomeError(KoudianError):
    """A finished-hand description that cannot have happened."""

class InvalidLogError(KoudianError):
    """A game log that is malformed, holds several hands (read those with
    ``koudian.read_logs``), or does not replay to itself: an edited line,
    or a header whose ``seed`` no longer deals its wall."""

class InvalidPositionError(KoudianError):
    """A position (an observation and its completion) no table can reach."""

class ModelError(KoudianError):
    """A model file the nn agent cannot use: the message names the file and
    what is wrong; ``file`` and ``kind`` (``"not_safetensors"``,
    ``"metadata"``, ``"format"``, ``"encoding"``, ``"tensor"``, ``"dtype"``,
    ``"non_finite"``, ``"family"``, ``"unreadable"``) say it for programs."""

    file: str
    kind: str

# -- tiles -------------------------------------------------------------

def _tile_table() -> list[tuple[str, str, str, int, str, int]]:
    """(notation, glyph, chinese, points, suit letter, rank) per kind."""

def parse(s: str) -> list[Tile]:
    """Tiles of a string in notation (``"123m11z"``), Unicode glyphs or
    Chinese names (``"一万红中"``), in the order written."""

def fmt(tiles: HandLike) -> str:
    """Canonical sorted notation, e.g. ``"123m456p789s11z"``."""

def glyphs(tiles: HandLike) -> str:
    """The Unicode glyphs of the tiles, in their order."""

def to_counts(tiles: HandLike) -> npt.NDArray[np.uint8]:
    """The 34 counts of the tiles as a ``(34,)`` uint8 array."""

def to_counts_batch(hands: Iterable[HandLike]) -> npt.NDArray[np.uint8]:
    """The counts of several hands as an ``(N, 34)`` uint8 array, ready for
    the batch functions."""

def from_counts(counts: HandLike) -> list[Tile]:
    """The tiles of 34 counts, in index order."""

# -- hands ---------------------------------------------------------------

class MeldKind:
    """The kinds of meld: pong and the three kongs."""

    PONG: ClassVar[MeldKind]
    """碰: three of a kind claimed from a discard."""
    EXPOSED_KONG: ClassVar[MeldKind]
    """点杠/吃杠: a discard claimed onto a concealed triplet."""
    ADDED_KONG: ClassVar[MeldKind]
    """补杠/明杠: a drawn tile added to one's own pong."""
    CONCEALED_KONG: ClassVar[MeldKind]
    """暗杠: four drawn tiles."""
    @property
    def is_kong(self) -> bool:
        """Whether this kind is a kong (4 tiles)."""
    @property
    def size(self) -> int:
        """Physical tiles in such a meld (3 or 4)."""
    def __int__(self) -> int: ...

class Meld:
    """One meld (副露): a kind and its tile. Immutable, hashable."""

    def __init__(self, kind: MeldKind, tile: TileLike) -> None: ...
    @staticmethod
    def parse(s: str) -> Meld:
        """``"555z"`` pong, ``"5555z"`` exposed kong, ``"+5555z"`` added
        kong, ``"[5555z]"`` concealed kong."""
    @property
    def kind(self) -> MeldKind:
        """Pong or which kong."""
    @property
    def tile(self) -> Tile:
        """The tile kind."""
    @property
    def tiles(self) -> list[Tile]:
        """The physical tiles (3 or 4)."""

class Hand:
    """Concealed tiles plus melds; checks the 4-copy limit. Immutable."""

    def __init__(self, tiles: HandLike, melds: MeldsLike = None) -> None: ...
    @property
    def tiles(self) -> list[Tile]:
        """Concealed tiles, in index order."""
    @property
    def melds(self) -> list[Meld]:
        """The melds."""
    def counts(self) -> npt.NDArray[np.uint8]:
        """The 34 counts of the concealed tiles."""
    def all_counts(self) -> npt.NDArray[np.uint8]:
        """The 34 counts of every physical tile, melds included."""
    def __len__(self) -> int:
        """Number of concealed tiles."""

# -- rulesets ------------------------------------------------------------

class Ruleset:
    """A complete, validated ruleset: every option of docs/rules.md.

    ``Ruleset(family="linxian", **options)`` starts from the family's
    defaults; ``Ruleset.preset(name, **overrides)`` from a shipped preset.
    Immutable and hashable; options read as attributes
    (``rules.seven_pairs``) or with ``get``. Unknown options, wrong types
    and incompatible combinations raise ``RulesetError``.
    """

    family: str
    no_honors: bool
    haozi: str
    haozi_pick: str
    seven_pairs: bool
    thirteen_orphans: bool
    wind_sets: bool
    wall_reserve: tuple[int, int]
    ting_required: bool
    ting_min_points: int
    point_rule: str
    pass_scope: str
    must_win: bool
    kong_after_pong: bool
    kong_keeps_waits: bool
    kong_giver_pays: bool
    discarder_pays_kongs: bool
    kongs_need_win: bool
    dealer_bonus: bool
    dealer_self_draw_double: bool
    special_hands: bool
    dealer_rotation: str
    leave_penalty: int
    base_stake: int
    chajiao: str
    kong_payments: bool
    kong_draw: str
    hide_concealed_kong: bool
    dice: bool

    def __init__(self, **options: OptionValue) -> None: ...
    @classmethod
    def preset(cls, name: str, **overrides: OptionValue) -> Ruleset:
        """A shipped preset (``shanxi``, ``shanxi-haozi``,
        ``shanxi-feng-haozi``, ``shanxi-double-haozi``, ``linxian``,
        ``sichuan``), optionally changed."""
    @classmethod
    def from_toml(cls, path: str | PathLike[str]) -> Ruleset:
        """A ruleset from a TOML file of options (as ``to_toml`` writes).
        A file that cannot be read raises the ``OSError`` subclass of the
        failure (``FileNotFoundError``, …) naming the path, as ``open``
        does; bad contents, a file that is not a regular file (a FIFO, a
        device), larger than 1 MiB or not UTF-8 raise ``RulesetError``
        naming the path and the problem."""
    @classmethod
    def from_dict(cls, options: Mapping[str, OptionValue]) -> Ruleset:
        """A ruleset from a mapping of options (``family`` picks defaults)."""
    def replace(self, **options: OptionValue) -> Ruleset:
        """A validated copy with some options changed."""
    def to_dict(self) -> dict[str, OptionValue]:
        """Every option and its value, in docs/rules.md order."""
    def to_toml(self) -> str:
        """The ruleset as TOML, every option with its documentation."""
    def get(self, name: str) -> OptionValue:
        """The value of option ``name``."""
    @staticmethod
    def options() -> list[tuple[str, str]]:
        """``(name, documentation)`` of every option, in docs/rules.md order."""
    @property
    def wild_kinds(self) -> int:
        """Number of wild kinds a hand gets (0, 1 or 2)."""
    @property
    def tile_total(self) -> int:
        """Tiles in play: 136, or 108 without honors."""

# -- winning shapes ------------------------------------------------------

class Set:
    """One concealed set of a standard-shape decomposition."""

    @property
    def kind(self) -> str:
        """``"triplet"``, ``"sequence"`` or ``"honors"`` (风嘴子)."""
    @property
    def tiles(self) -> tuple[Tile, Tile, Tile]:
        """The three tiles (wild tiles as the kinds they stand for)."""

class Decomposition:
    """One way a complete hand wins; ``str()`` shows it in notation."""

    @property
    def shape(self) -> str:
        """``"standard"``, ``"seven_pairs"`` or ``"thirteen_orphans"``."""
    @property
    def sets(self) -> list[Set]:
        """Concealed sets (standard shape), sorted; melds not repeated."""
    @property
    def pairs(self) -> list[Tile]:
        """The pair kinds: one (standard, thirteen orphans) or seven."""
    @property
    def wild_as(self) -> list[Tile]:
        """For each wild tile held, the kind it stands for."""
    @property
    def melds(self) -> list[Meld]:
        """The hand's melds (each a set of this decomposition)."""

def is_win(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> bool:
    """Whether a complete hand (``14 - 3 × melds`` concealed tiles) wins
    under the ruleset's shapes (docs/rules.md §2).

    Under ``no_honors`` (Sichuan) an honor tile in the hand, its melds or
    ``wildcards`` raises ``InvalidHandError`` naming the tile. In the
    sichuan family a hand whose tiles, melds included, hold all three
    suits is not a win (缺一门, docs/rules.md §5)."""

def decompose(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> list[Decomposition]:
    """Every distinct way a complete hand wins (empty when it does not:
    under 缺一门, also when its tiles hold all three suits). Raises on an
    honor tile under ``no_honors``, as ``is_win``. A pair made only of
    wild tiles is listed once, as the filler kind (the lowest-index wild
    kind held, standing for itself)."""

def is_win_batch(
    counts: npt.NDArray[np.uint8],
    *,
    n_melds: int | npt.NDArray[np.integer[Any]] = 0,
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
    threads: int = 1,
    out: npt.NDArray[np.bool_] | None = None,
) -> npt.NDArray[np.bool_]:
    """``is_win`` of every row of an ``(N, 34)`` uint8 count array;
    ``n_melds`` is an int or an ``(N,)`` array. Releases the GIL.
    Under ``no_honors`` a row holding an honor raises ``InvalidHandError``
    naming the row and tile; under 缺一门 a row holding all three suits is
    ``False`` (only the row's counts are seen: melds' tiles are not).

    ``out``, a writeable C-contiguous ``(N,)`` bool array, receives the
    answers and is returned (no array is allocated: reuse one buffer
    across calls). It must not share memory with ``counts``; after an
    error its contents are unspecified."""

# -- waits and shanten ---------------------------------------------------

def waits(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> list[Tile]:
    """The kinds completing a hand one tile short (``13 - 3 × melds``);
    a kind the player already holds 4 of is never a wait.

    Under ``no_honors`` an honor tile raises ``InvalidHandError``, as for
    ``is_win``. Under 缺一门 (the sichuan family) a kind whose addition
    leaves the hand, melds included, holding all three suits is never a
    wait, so a hand already holding three suits waits on nothing."""

def wait_points(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> dict[Tile, int]:
    """Each wait with its points; a wild wait is worth the best kind it
    can stand for there. The waits are those of ``waits`` (honors and
    缺一门 checked the same way)."""

def waits_batch(
    counts: npt.NDArray[np.uint8],
    *,
    n_melds: int | npt.NDArray[np.integer[Any]] = 0,
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
    threads: int = 1,
    held: npt.NDArray[np.uint8] | None = None,
    out: npt.NDArray[np.bool_] | None = None,
) -> npt.NDArray[np.bool_]:
    """``waits`` of every row: an ``(N, 34)`` bool array. ``held`` gives
    each hand's physical tiles, melds included, for the 4-copy limit and
    (under 缺一门) the suits a row holds; without it a row's counts are
    its tiles. Honors under ``no_honors`` raise naming the row, as for
    ``is_win_batch``. ``out``: an ``(N, 34)`` bool array to fill and
    return, as for ``is_win_batch``."""

def shanten(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> int:
    """Shanten (向听数) of a 13- or 14-tile hand (melds counting 3):
    0 = ready, -1 = complete.

    Under ``no_honors`` an honor tile raises ``InvalidHandError``. In the
    sichuan family shanten stays the shape distance: it does not count
    the tiles needed to drop a suit (缺一门), so a three-suit hand can be
    0 while ``waits`` is empty."""

def shanten_batch(
    counts: npt.NDArray[np.uint8],
    *,
    n_melds: int | npt.NDArray[np.integer[Any]] = 0,
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
    threads: int = 1,
    out: npt.NDArray[np.int8] | None = None,
) -> npt.NDArray[np.int8]:
    """``shanten`` of every row: an ``(N,)`` int8 array (the shape
    distance; honors under ``no_honors`` raise naming the row). ``out``:
    an ``(N,)`` int8 array to fill and return, as for ``is_win_batch``."""

def _check_int(value: int, name: str, kind: str) -> None:
    """Raises ``KoudianError`` ("NAME must be an integer in 0..2**64, got
    -1") unless ``value`` fits the binding's integer ``kind`` (``"u64"``,
    ``"usize"`` or ``"u32"``); other types raise ``TypeError``."""

# -- discards and ting (报听) --------------------------------------------

class DiscardOption:
    """What one discard of a complete hand leaves."""

    @property
    def discard(self) -> Tile:
        """The tile kind discarded."""
    @property
    def shanten(self) -> int:
        """Shanten of the rest (0 = ready)."""
    @property
    def waits(self) -> list[Tile]:
        """The rest's waits (empty unless ready)."""
    @property
    def wait_points(self) -> dict[Tile, int]:
        """Each wait with its points."""
    @property
    def best_points(self) -> int | None:
        """The best wait's points, ``None`` when not ready."""
    @property
    def can_declare_ting(self) -> bool:
        """Whether ting may be declared with this discard: the ruleset has
        ting, the rest is ready and a wait is worth ``ting_min_points``."""

def discard_options(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> list[DiscardOption]:
    """Every distinct discard of a complete hand (``14 - 3 × melds``
    concealed tiles), in tile order, with shanten, waits and ting. Honors
    under ``no_honors`` raise, and 缺一门 limits each option's waits, as
    for ``waits``; shanten is the shape distance."""

def can_declare_ting(
    hand: HandLike,
    discard: TileLike,
    *,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> bool:
    """Whether discarding ``discard`` may declare ting (报听): the rest is
    ready with a wait worth ``ting_min_points`` (6 in Shanxi, 3 in
    Linxian). Raises when the hand does not hold ``discard``."""

def may_win(points: int, *, self_draw: bool, rules: RulesLike = "shanxi") -> bool:
    """Whether a winning tile worth ``points`` may win by self-draw or on a
    discard under the ruleset's ``point_rule``."""

def winning_tile_points(
    hand: HandLike,
    tile: TileLike,
    *,
    self_draw: bool,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> int | None:
    """What ``tile`` is worth as the winning tile of a hand one tile short,
    or ``None`` when it does not win; a self-drawn wild tile is worth the
    best wait's points, a discarded one never wins."""

def ting_kong_allowed(
    before: HandLike,
    after: HandLike,
    *,
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
) -> bool:
    """Whether a player who declared ting may make a kong: ``before`` is the
    ready hand, ``after`` a ``Hand`` with the kong made (both one tile
    short); with ``kong_keeps_waits`` the waits must stay the same."""

# -- scoring -------------------------------------------------------------

class Pattern:
    """A named pattern that contributed to a hand's value."""

    @property
    def code(self) -> str:
        """Identifier (the core's ``Pattern::code``, spelled out there):
        ``"self_draw"``, ``"kong_bloom"``, ``"robbing_kong"``,
        ``"full_flush"``, ``"pure_straight"``, ``"seven_pairs"``,
        ``"golden_seven_pairs"``, ``"luxury_seven_pairs"``,
        ``"luxury_golden_seven_pairs"``, ``"basic_hand"``,
        ``"all_triplets"``, ``"terminals"``, ``"flush_triplets"``,
        ``"two_five_eight"``, ``"flush_seven_pairs"``, ``"heavenly"``,
        ``"earthly"``, ``"root"``."""
    @property
    def chinese(self) -> str:
        """Chinese name (自摸, 清一色, 根 …)."""
    @property
    def english(self) -> str:
        """English name."""
    @property
    def tile(self) -> Tile | None:
        """The kind of a 根 (root), else ``None``."""

class HandValue:
    """What a winning hand is worth: ``total = base × multiplier + bonus``."""

    @property
    def total(self) -> int:
        """What each payer owes (before the base stake and 带庄)."""
    @property
    def base(self) -> int:
        """Winning tile points (Koudian) or the pattern value (Sichuan)."""
    @property
    def multiplier(self) -> int:
        """Product of the multipliers applied to ``base``."""
    @property
    def bonus(self) -> int:
        """Additive extras (Sichuan 根, 杠上花, 抢杠)."""
    @property
    def patterns(self) -> list[Pattern]:
        """The patterns that gave the value, largest first."""
    def __int__(self) -> int: ...

def hand_value(
    hand: HandLike,
    win_tile: TileLike,
    *,
    self_draw: bool,
    melds: MeldsLike = (),
    wildcards: WildLike = (),
    rules: RulesLike = "shanxi",
    kong_replacement: MeldKind | str | None = None,
    robbed_kong: bool = False,
    heavenly: bool = False,
    earthly: bool = False,
) -> HandValue:
    """The value of a complete winning hand (winning tile included).
    ``kong_replacement``: the kind of kong whose replacement tile won
    (杠上开花, a self-draw); ``robbed_kong``: 抢杠; ``heavenly`` /
    ``earthly``: Sichuan 天胡 / 地胡. ``wildcards`` must match the
    ruleset's wild kinds. A hand that is not a legal win raises."""

def chajiao_value(
    hand: HandLike,
    *,
    melds: MeldsLike = (),
    rules: RulesLike = "sichuan",
) -> int | None:
    """Sichuan 查叫: the value a hand one tile short would win with, as a
    win on a discard (no 杠上花, 抢杠, 天胡, 地胡): the smallest over its
    waits with ``chajiao = "min"``, the largest with ``"max"``; ``None``
    when it is not ready (缺一门 included)."""

class Win:
    """One winner of a finished hand."""

    def __init__(
        self,
        seat: int,
        hand: HandLike,
        win_tile: TileLike,
        *,
        melds: MeldsLike = (),
        kong_bloom: int | None = None,
        heavenly: bool = False,
        earthly: bool = False,
    ) -> None:
        """``kong_bloom``: index in ``Outcome.kongs`` of the winner's kong
        whose replacement tile won (杠上开花)."""
    @property
    def seat(self) -> int: ...
    @property
    def win_tile(self) -> Tile: ...
    @property
    def hand(self) -> Hand: ...

class Kong:
    """One kong made during the hand (a robbed kong is not one)."""

    def __init__(
        self,
        owner: int,
        tile: TileLike,
        kind: MeldKind | str,
        *,
        giver: int | None = None,
        giver_ting: bool = False,
    ) -> None:
        """``kind``: ``MeldKind.EXPOSED_KONG`` (needs ``giver``, the
        discarder, and ``giver_ting``), ``ADDED_KONG`` or
        ``CONCEALED_KONG`` (or ``"exposed"``/``"added"``/``"concealed"``)."""
    @property
    def owner(self) -> int: ...
    @property
    def tile(self) -> Tile: ...
    @property
    def kind(self) -> MeldKind: ...
    @property
    def giver(self) -> int | None: ...

class Outcome:
    """A finished hand, as the table saw it."""

    def __init__(
        self,
        dealer: int,
        end: str,
        *,
        by: int | None = None,
        winners: Sequence[Win] = (),
        ting: Sequence[bool] = (False, False, False, False),
        kongs: Sequence[Kong] = (),
        hands: Sequence[HandLike | None] | None = None,
        wildcards: WildLike = (),
    ) -> None:
        """``end``: ``"self_draw"``, ``"discard"`` (``by`` = discarder),
        ``"robbed_kong"`` (``by`` = konger), ``"drawn"`` or ``"left"``
        (``by`` = leaver). ``hands``: the four final hands where known
        (required for a drawn Sichuan hand's 查叫)."""
    @property
    def dealer(self) -> int: ...
    @property
    def ting(self) -> tuple[bool, bool, bool, bool]: ...
    @property
    def winners(self) -> list[Win]: ...
    @property
    def kongs(self) -> list[Kong]: ...

class Payment:
    """One payment: ``payer`` gives ``amount`` to ``payee``."""

    @property
    def payer(self) -> int: ...
    @property
    def payee(self) -> int: ...
    @property
    def amount(self) -> int:
        """Base stake included; always positive."""
    @property
    def reason(self) -> str:
        """Readable reason (Chinese term and English)."""
    @property
    def kind(self) -> str:
        """``"win"``, ``"win_covered"``, ``"kong_giver_pays_bloom"``,
        ``"dealer_bonus"``, ``"kong"``, ``"kong_covered"``, ``"chajiao"``
        or ``"leave_penalty"``."""
    @property
    def share_of(self) -> int | None:
        """Whose share a covering payment (包胡, 包杠) pays."""
    @property
    def tile(self) -> Tile | None:
        """The kong's tile for a kong payment."""

class Settlement:
    """Per-seat deltas and itemized payments; ``str()`` is a table."""

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        """Net gain (+) or loss (-) of each seat; they sum to zero."""
    @property
    def payments(self) -> list[Payment]:
        """Every payment, in the order the rules produce them."""
    @property
    def baohu_paid(self) -> tuple[int, int, int, int]:
        """What each seat paid for 包胡 (covering a win for everyone)."""

def settle(outcome: Outcome, rules: RulesLike = "shanxi") -> Settlement:
    """Settles a finished hand: checks it is consistent
    (``InconsistentOutcomeError`` says what is not), values the wins and
    returns the zero-sum settlement."""

# ---------------------------------------------------------------------------
# The table (rust/python/src/game.rs): Game, Action, Observation, results,
# native agents, matches and native self-play.

N_ACTIONS: int
"""Size of the dense action space (141)."""
N_PLANES: int
"""Number of observation planes of encoding version 1 (29); see ``koudian.env``."""
ENCODING_VERSION: int
"""The newest observation encoding's version (2); see ``koudian.env``."""

def encoding_planes(version: int) -> int:
    """Number of planes of observation encoding ``version`` (1: 29, 2: 66)."""

ActionLike = Union["Action", int, str]

class Action:
    """One decision. ``Action("discard", "5m")``, ``Action("pass")``; the
    dense ``index`` (0..140) is the RL action space: 0-33 discard, 34-67
    ting (face-down discard), 68-101 concealed kong, 102-135 added kong,
    136 win, 137 pong, 138 kong, 139 pass, 140 leave."""

    def __init__(self, kind: str, tile: TileLike | None = None) -> None: ...
    @staticmethod
    def from_index(i: int) -> Action: ...
    @staticmethod
    def parse(s: str) -> Action:
        """``"discard 5m"``, ``"ting 7z"``, ``"pass"``."""
    @property
    def kind(self) -> str:
        """``discard``, ``ting``, ``concealed_kong``, ``added_kong``,
        ``win``, ``pong``, ``kong``, ``pass`` or ``leave``."""
    @property
    def tile(self) -> Tile | None: ...
    @property
    def index(self) -> int: ...
    def to_json(self) -> dict[str, Any]:
        """``{"action": kind, "tile": "5m", "index": 4}``."""
    def __int__(self) -> int: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class SeenMeld:
    """A meld as an observer sees it (``Observation.melds``, a list per seat)."""

    @property
    def kind(self) -> MeldKind:
        """Pong, or which kong (exposed, added, concealed)."""
    @property
    def tile(self) -> Tile | None:
        """None for another seat's concealed kong when the rules hide it."""
    @property
    def from_seat(self) -> int | None:
        """The seat whose discard was claimed into it (None: not claimed)."""

class SeenDiscard:
    """A discard as an observer sees it (``Observation.discards``, in order)."""

    @property
    def seat(self) -> int:
        """Who discarded it."""
    @property
    def tile(self) -> Tile | None:
        """None for another seat's face-down ting discard."""
    @property
    def face_down(self) -> bool:
        """A ting declaration's face-down discard (nobody may claim it)."""
    @property
    def claimed(self) -> bool:
        """Claimed into a meld (it left the pond)."""

class Observation:
    """What one seat may see: its own tiles and all public information.

    ``str(observation)`` is the table as that seat sees it, one line per
    item: tiles left, wild kinds, then every seat from the observer on
    with its score, ting, melds and pond in order (face-down ting
    discards as 🀫), the observer's hand in glyphs and notation, what is
    asked and the legal actions. ``repr`` is one line."""

    @property
    def seat(self) -> int: ...
    @property
    def dealer(self) -> int: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def pending(self) -> str:
        """``none``, ``turn``, ``discard`` or ``added_kong``."""
    @property
    def pending_from(self) -> int | None: ...
    @property
    def pending_tile(self) -> Tile | None: ...
    @property
    def hand(self) -> list[Tile]: ...
    @property
    def counts(self) -> npt.NDArray[np.uint8]: ...
    @property
    def drawn(self) -> Tile | None: ...
    @property
    def concealed_count(self) -> tuple[int, int, int, int]: ...
    @property
    def melds(self) -> list[list[SeenMeld]]: ...
    @property
    def ting(self) -> tuple[bool, bool, bool, bool]: ...
    @property
    def discards(self) -> list[SeenDiscard]: ...
    @property
    def wall_remaining(self) -> int: ...
    @property
    def live_remaining(self) -> int: ...
    @property
    def kongs(self) -> int: ...
    @property
    def wilds(self) -> list[Tile]: ...
    @property
    def face_up_in_wall(self) -> npt.NDArray[np.uint8]: ...
    @property
    def visible_counts(self) -> npt.NDArray[np.uint8]: ...
    @property
    def may_win_discards(self) -> bool: ...
    @property
    def locked_kinds(self) -> list[Tile]:
        """Kinds a ``pass_scope = "tile"`` 过胡 lock forbids winning on."""
    @property
    def scores(self) -> tuple[int, int, int, int]: ...
    @property
    def legal_actions(self) -> list[Action]: ...
    @property
    def action_mask(self) -> npt.NDArray[np.bool_]: ...
    def planes(self, version: int = 1, dtype: str = "float32") -> npt.NDArray[Any]:
        """Planes of shape ``(P, 34)`` in encoding ``version`` (1: the 29
        float32 planes; 2: 66 planes of small integers, ``"float32"`` or
        ``"uint8"``; 3: 79, version 2's and the look-ahead planes, only for
        an observation of a live game that has not moved since); layouts in
        docs/rl.md."""
    def to_json(self) -> dict[str, Any]:
        """Plain JSON-ready data (the external-bot protocol's form)."""

class GameResult:
    """How a hand ended, and its settlement."""

    @property
    def kind(self) -> str:
        """``win``, ``exhausted``, ``kong_draw`` or ``left``."""
    @property
    def winners(self) -> list[int]: ...
    @property
    def tile(self) -> Tile | None: ...
    @property
    def from_seat(self) -> int | None: ...
    @property
    def self_draw(self) -> bool: ...
    @property
    def robbed_kong(self) -> bool: ...
    @property
    def replacement(self) -> MeldKind | None: ...
    @property
    def heavenly(self) -> bool: ...
    @property
    def earthly(self) -> bool: ...
    @property
    def leaver(self) -> int | None: ...
    @property
    def ting(self) -> tuple[bool, bool, bool, bool]: ...
    @property
    def dealer(self) -> int: ...
    @property
    def any_kong(self) -> bool: ...
    @property
    def deltas(self) -> tuple[int, int, int, int]: ...
    @property
    def settlement(self) -> Settlement | None: ...

class Game:
    """One hand at the table, from the deal to the settlement."""

    def __init__(
        self,
        rules: RulesLike = None,
        *,
        seed: int = 0,
        dealer: int | None = None,
        wall: HandLike | None = None,
        wilds: WildLike = None,
        record: bool = True,
    ) -> None: ...
    @staticmethod
    def arranged(
        hands: Sequence[str],
        front: str = "",
        back: str = "",
        *,
        dealer: int = 0,
        rules: RulesLike = None,
        wilds: WildLike = None,
    ) -> Game: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def done(self) -> bool: ...
    @property
    def seed(self) -> int | None: ...
    @property
    def dealer(self) -> int: ...
    @property
    def wilds(self) -> list[Tile]: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def scores(self) -> tuple[int, int, int, int]: ...
    def set_scores(self, scores: Sequence[int]) -> None: ...
    @property
    def wall_remaining(self) -> int: ...
    @property
    def live_remaining(self) -> int: ...
    @property
    def moves(self) -> int:
        """Actions played at this table so far (steps and leaves; the
        automatic draws not counted). The core table's count: a ``copy()``
        keeps it, and ``replay(log)`` has the count of the game it replays."""
    def legal_actions(self, seat: int | None = None) -> list[Action]: ...
    def legal_mask(self, seat: int | None = None) -> npt.NDArray[np.bool_]: ...
    def observe(self, seat: int) -> Observation: ...
    @staticmethod
    def from_observation(
        observation: Observation,
        hidden: Hidden,
        *,
        rules: RulesLike = None,
        seed: int | None = None,
    ) -> Game:
        """The table of ``observation`` (the seat to act's) with ``hidden``
        filling in what that seat cannot see; checked for consistency
        (counts, tile census, face-down and hidden-kong tiles, declared
        hands ready, the seat sees exactly ``observation``), else
        ``InvalidPositionError``. The rebuilt table has no earlier log."""
    def hidden(self, seat: int) -> Hidden:
        """The true completion of what ``seat`` cannot see at this table."""
    def step(self, action: ActionLike) -> None: ...
    def leave(self, seat: int) -> None: ...
    @property
    def result(self) -> GameResult | None:
        """The result once the hand is over, else None; raises the
        scorer's ``KoudianError`` if the hand could not be settled (never
        zero deltas in silence)."""
    def win_patterns(self) -> list[tuple[int, list[str]]]:
        """Distinct patterns (``"中文 english"``) of each winner's hand."""
    @property
    def settlement(self) -> Settlement | None:
        """The settlement once the hand is over; raises as ``result``."""
    @property
    def log(self) -> str: ...
    def hand(self, seat: int) -> Hand: ...
    def tile_census(self) -> npt.NDArray[np.uint8]: ...
    def copy(self) -> Game: ...
    def __copy__(self) -> Game: ...

def replay(log: str) -> Game:
    """Rebuilds a game from the log of one hand, checking every line comes
    out identical. Raises ``InvalidLogError`` for a malformed log, a log
    of several hands (a ``koudian simulate --log`` file: read it with
    ``koudian.read_logs(path)``), or a header whose seed does not deal its
    wall (an edited seed)."""

def replay_steps(log: str) -> list[Game]:
    """Replays a log like ``replay``, returning the game after the deal and
    after every chosen action (independent copies, in order)."""

def mix_seed(seed: int, index: int) -> int:
    """SplitMix64 of ``(seed, index)``: the seed of game ``index`` of a run."""

class RankedAction:
    """One legal action as an agent ranks it (``rank_actions``)."""

    @property
    def action(self) -> Action: ...
    @property
    def value(self) -> float:
        """One summary number, higher is better, comparable only within one
        ranking (greedy: minus the rank; mc: the estimated mean settlement
        points, ``-inf`` for a candidate pruned unplayed)."""
    @property
    def numbers(self) -> dict[str, float]:
        """The named numbers the agent compared: for greedy ``shanten``,
        ``improving`` (live improving tiles, the waits' when ready, where
        counted), ``wait_value`` (ting discards) and ``danger`` (1 when a
        face-up discard may pay 包胡) where they apply; for mc ``mean``,
        ``ci_low``, ``ci_high`` (a 95% interval of the mean over the sampled
        tables) and ``rollouts``."""
    def __repr__(self) -> str: ...

def rank_actions(game: Game, seat: int, agent: str = "greedy", seed: int = 0) -> list[RankedAction]:
    """Every legal action of ``seat`` in the current position, best first,
    as the agent ``agent`` ranks them (``"greedy"``, ``"mc"``,
    ``"mc:rollouts=200"``, ``"mc:budget=fast|strong"``); the first is
    exactly the action that agent (seeded with ``seed``) plays. Empty when
    the seat is not to act; ``KoudianError`` for a seat outside 0-3,
    ``RulesetError`` for an unknown agent."""

class NativeAgent:
    """A built-in agent of the Rust core (``"random"``, ``"greedy"``,
    ``"mc"``, ``"mc:rollouts=200"``, ``"mc:budget=fast|strong"``, ``"nn"``,
    ``"nn:PATH"``, ``"nn:PATH:temp=0.5"``)."""

    def __init__(self, name: str, seed: int = 0) -> None: ...
    @property
    def name(self) -> str: ...
    def reset(self, seed: int) -> None: ...
    def act(
        self, observation: Observation, legal_actions: Sequence[Action] | None = None
    ) -> Action:
        """The core agent's action for an observation taken from a ``Game``
        that has not moved since; ``legal_actions`` (ignored: the core
        reads them from the game) makes a ``NativeAgent`` an ``Agent``."""

class NnModel:
    """A model file of the agent ``nn`` (safetensors with a ``koudian``
    header; docs/models.md), read and checked: ``ModelError`` names the
    file and what is wrong."""

    def __init__(self, source: str | PathLike[str] | bytes) -> None: ...
    @property
    def header(self) -> dict[str, Any]:
        """The file's ``koudian`` metadata."""
    @property
    def file(self) -> str:
        """Where the model was read from (a path, or ``"<bytes>"``)."""
    @property
    def inputs(self) -> int:
        """Values per input row: the planes, then the extra inputs (2689 for the
        shipped model, encoding version 3)."""
    @property
    def parameters(self) -> int:
        """Number of parameters."""
    def forward(
        self, planes: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The forward pass of a float32 C-contiguous ``(N, inputs)`` batch:
        ``(logits (N, 141), value (N,))``, the value raw (expected points
        divided by the header's ``value_scale``); a row's results do not
        depend on the rest of the batch."""

def nn_default_models() -> list[str]:
    """The default models embedded in this build, which the agent ``"nn"``
    plays (empty when none is: ``"nn"`` is then refused, ``"nn:PATH"``
    still plays a model file)."""

class Hidden:
    """A completion of what one seat cannot see: the other hands, the wall
    order, face-down discards, hidden concealed-kong kinds and the seats'
    private locks (from ``Game.hidden`` or ``sample_hidden``)."""

    @property
    def concealed(self) -> list[list[int]]:
        """Every seat's concealed tiles, 34 counts per seat."""
    @property
    def wall(self) -> list[Tile]:
        """The undrawn wall, next draw first."""
    @property
    def face_down(self) -> list[Tile]:
        """The face-down discards the observer cannot see, in order."""
    @property
    def concealed_kongs(self) -> list[Tile]:
        """The concealed kongs' kinds the observer cannot see."""

def sample_hidden(observation: Observation, rules: RulesLike = None, seed: int = 0) -> Hidden:
    """The determinization step: a completion of what the observer cannot
    see, drawn uniformly among those consistent with the public
    information (declared hands ready with a wait worth declaring; the
    other seats' private locks taken as unlocked): exactly uniform however
    many seats have declared (several declared hands are drawn together
    from lists of their ready hands). The work is bounded: past its caps
    (never seen with two declared hands; about a third of completions with
    three, when two of them hold 10-13 tiles) the completion is still
    consistent but follows the sequential law (each declared hand uniform
    among those the earlier ones leave). ``InvalidPositionError`` only for
    an observation no completion is consistent with."""

def arena_native(
    rules: RulesLike,
    agents: Sequence[str],
    deals: int,
    *,
    seed: int = 0,
    threads: int = 0,
    start: int = 0,
    format: str = "duplicate",
    walls: int = 0,
) -> dict[str, npt.NDArray[Any]]:
    """The native duplicate arena of deals ``start .. start + deals``: one
    row per seat of every table of every deal (columns deal, table, seat,
    entry, delta, won, self_draw, ting, dealt_in, baohu_paid, fault,
    adjusted).

    With ``walls > 0`` (at most 100,000; only a duplicate 1-vs-3 line-up
    against three ``"greedy"``, see :func:`arena_adjustable`), the lone
    agent's rows at the rotation tables carry ``adjusted`` (float64): the
    reference table's settlement at that seat plus the gains of the lone
    agent's departures from greedy, each averaged over ``walls`` shuffles
    of the undrawn wall. ``adjusted`` is NaN on every other row."""

class ArenaLuck:
    """The luck of the wall of a lone agent's hands against three greedy,
    for the Python game loop (``koudian.arena`` uses it for Python and
    ``cmd:`` agents; the native arena has its own): tell it every decision
    before it is played, read ``gain`` at the end of the hand.

    >>> from koudian import Game, NativeAgent
    >>> g = Game("shanxi", seed=5, dealer=0)
    >>> agents = [NativeAgent("random" if s == 0 else "greedy", s) for s in range(4)]
    >>> luck = ArenaLuck(8)
    >>> luck.begin(5, 0)
    >>> while g.to_act is not None:
    ...     a = agents[g.to_act].act(g.observe(g.to_act))
    ...     luck.decision(g, a)
    ...     g.step(a)
    >>> luck.departures > 0
    True
    """

    def __init__(self, walls: int) -> None:
        """Each departure's gain is the mean over ``walls`` (1 to 100,000)
        shuffles of the undrawn wall."""
    def begin(self, game_seed: int, seat: int) -> None:
        """Starts the hand dealt from ``game_seed``, the lone agent at
        ``seat`` (its shuffles drawn from the deal and the seat, as the
        native arena draws them)."""
    def decision(self, game: Game, action: ActionLike) -> None:
        """The seat to act on ``game`` is about to play ``action``: at the
        lone seat, a departure from greedy's choice adds its gain."""
    @property
    def gain(self) -> float:
        """The gains of the hand's departures so far."""
    @property
    def departures(self) -> int:
        """The hand's departures so far."""

def arena_adjustable(agents: Sequence[str]) -> bool:
    """Whether the luck of the wall can be taken out of a run of the four
    native agent specs ``agents``: one spec once, ``"greedy"`` three times.

    >>> arena_adjustable(["mc", "greedy", "greedy", "greedy"])
    True
    >>> arena_adjustable(["greedy", "random", "random", "random"])
    False
    """

def arena_tables(labels: Sequence[str], format: str = "duplicate") -> list[list[int]]:
    """The tables of a line-up (the core's ``arena::tables``): for each,
    the line-up entry at each seat; rotations first, then, for a 1-vs-3
    line-up in duplicate format, the reference table.

    >>> arena_tables(["mc", "greedy", "greedy", "greedy"])[1:]
    [[3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0], [1, 1, 1, 1]]
    """

def arena_agents(
    rules: RulesLike,
    agents: Sequence[object],
    labels: Sequence[str],
    deals: int,
    *,
    seed: int = 0,
    start: int = 0,
    format: str = "duplicate",
    walls: int = 0,
) -> tuple[dict[str, npt.NDArray[Any]], list[tuple[int, object]]]:
    """``arena_native`` of any agents (objects with ``act(observation,
    legal_actions)``, ``NativeAgent`` among them), line-up entry ``i``
    played by ``agents[i]`` at every table and labelled ``labels[i]``, on
    the calling thread through the core's game loop. Returns the records
    and the faults, each ``(hand, fault)`` with the hand id ``deal *
    tables + table``; ``fault`` is the agent's own ``Fault``
    (``take_faults()``) or ``(seat, answer_repr, fallback)`` for an answer
    the core replaced. An agent's exception is raised unchanged."""

def arena_record(
    rules: RulesLike,
    agents: Sequence[str],
    deals: int,
    *,
    seed: int = 0,
    threads: int = 0,
    start: int = 0,
    format: str = "duplicate",
    walls: int = 0,
    seats: Sequence[int] | None = None,
) -> tuple[dict[str, npt.NDArray[Any]], list[dict[str, npt.NDArray[Any]] | None], int]:
    """``arena_native`` that also records the decisions of ``seats`` at
    every table, from one play of each deal. Returns the records (with
    ``adjusted`` when ``walls > 0``), each table's decision columns (those
    of ``simulate_record``, the hand id ``deal * tables + table``; None
    per table when ``seats`` is None) and the number of hands played
    (tables × deals)."""

def play_game(
    game: Game,
    agents: Sequence[object | None],
    *,
    reset: bool = False,
    luck: ArenaLuck | None = None,
) -> list[object]:
    """Plays ``game`` with the core's game loop until it is over or the
    seat to act has no agent (None: a seat played from outside). With
    ``reset`` the agents are first reset from the game's seed; ``luck`` is
    told of every decision. Returns the faults in order (as
    ``arena_agents``'s, without the hand). An agent's exception is raised
    unchanged, the table as it was before that decision.

    >>> g = Game("shanxi", seed=4)
    >>> play_game(g, [NativeAgent("greedy")] * 4)
    []
    >>> g.done
    True
    """

def play_run_game(
    rules: RulesLike,
    agents: Sequence[object],
    seed: int,
    index: int,
    *,
    record: bool = False,
) -> tuple[Game, list[object]]:
    """Game ``index`` of the self-play run ``seed`` (dealt from
    ``mix_seed(seed, index)``, seat ``index % 4`` dealing, the agents
    reset from the hand's seed) played to its end by ``agents`` with the
    core's game loop: the finished game (its log kept with ``record``) and
    its faults (as ``play_game``'s)."""

def play_match_hand(
    state: MatchState,
    agents: Sequence[object],
    *,
    record: bool = True,
    seed: int | None = None,
) -> tuple[Game, list[object]] | None:
    """The next hand of ``state`` (dealt from ``seed`` when given), its
    agents reset from the hand's seed, played to its end by the core's
    game loop and recorded: the finished game and its faults (as
    ``play_game``'s); None once the match is over."""

def fallback_action(legal_actions: Sequence[Action]) -> Action | None:
    """The action played for an agent that answered no legal action: the
    first of ``legal_actions`` in dense index order that is not ``leave``
    (``leave`` only alone); None for none.

    >>> fallback_action([Action("leave"), Action("pass")])
    Action("pass")
    """

class MatchState:
    """The core's match bookkeeping: hand seeds, dealer rotation, totals."""

    def __init__(
        self,
        rules: RulesLike = None,
        *,
        seed: int = 0,
        hands: int | None = None,
        rounds: int | None = None,
    ) -> None: ...
    @property
    def done(self) -> bool: ...
    def next_game(self, record: bool = True, *, seed: int | None = None) -> Game | None:
        """The next hand (running totals set), or None when the match is
        over; dealt from ``seed`` when one is given (a server's keyed hand
        seed: the match's own hand seeds give each other away)."""
    def record(self, game: Game) -> None: ...
    @property
    def totals(self) -> tuple[int, int, int, int]: ...
    @property
    def hands_played(self) -> int: ...
    @property
    def dealer(self) -> int | None: ...

def simulate_native(
    rules: RulesLike,
    agents: Sequence[str],
    hands: int,
    *,
    seed: int = 0,
    threads: int = 0,
    start: int = 0,
) -> dict[str, npt.NDArray[Any]]:
    """Native self-play of games ``start .. start + hands`` with master seed
    ``seed`` (game ``i``: seed ``mix_seed(seed, i)``, dealer ``i % 4``) on
    ``threads`` threads (0: all cores), GIL released; the result never
    depends on ``threads``. A dict of numpy arrays, one row per game."""

OBS_BYTES: int
"""Bytes of a packed observation of encoding version 3 (a dataset's
``obs`` column): 426."""
OBS_BYTES_V2: int
"""Bytes of a packed version 2 observation (datasets recorded before
version 3 was): 258."""
OBS_BYTES_V1: int
"""Bytes of a packed version 1 observation (datasets recorded before
version 2 was): 201."""
MASK_BYTES: int
"""Bytes of a packed legal mask (a dataset's ``mask`` column): 18."""
OBS_PACK_VERSION: int
"""Version of the packed observation layout recorded (3; 2 is the layout
of ``OBS_BYTES_V2`` rows, 1 of ``OBS_BYTES_V1`` rows)."""
OBS_ENCODING_VERSION: int
"""The observation encoding a dataset's ``obs`` packs (3: 79 planes)."""

def simulate_record(
    rules: RulesLike,
    agents: Sequence[str],
    hands: int,
    *,
    seed: int = 0,
    threads: int = 0,
    start: int = 0,
    seats: Sequence[int] | None = None,
    logs: bool = False,
    pieces: bool = False,
    log_compress: str = "none",
) -> tuple[
    dict[str, Any],
    dict[str, npt.NDArray[Any]] | list[dict[str, npt.NDArray[Any]]] | None,
    bytes | None,
]:
    """``simulate_native`` of games ``start .. start + hands`` that also
    records, in the same pass with the GIL released, every decision of
    ``seats`` (a dict of column arrays, ``koudian.dataset``; None when
    ``seats`` is None; with ``pieces``, a list of such dicts whose rows
    follow one another, one per worker, not joined: no copy) and, when
    ``logs``, every game's JSON Lines log (one bytes object, the games in
    order), compressed on the same threads when ``log_compress`` is
    ``"gzip"`` or ``"zstd"`` (independent gzip members or zstd frames of
    256 KiB of text each, one after another: one valid stream). Returns
    ``(summary, decisions, logs)``; none of it depends on ``threads``
    (the pieces do; their rows in order do not)."""

def unpack_obs(packed: npt.NDArray[np.uint8]) -> npt.NDArray[Any]:
    """The planes of packed observations (a dataset's ``obs`` column),
    exactly the planes they were packed from: ``(N, OBS_BYTES)`` (encoding
    version 3) gives ``(N, 79, 34)`` uint8, ``(N, OBS_BYTES_V2)`` (version
    2) ``(N, 66, 34)`` uint8, ``(N, OBS_BYTES_V1)`` (version 1)
    ``(N, 29, 34)`` float32."""

# ---------------------------------------------------------------------------
# The vectorized environment (rust/python/src/vec_env.rs): N tables stepped
# together in Rust. The wrapper with Gymnasium spaces is koudian.vector.

class VecEnv:
    """``num_envs`` tables of ``rules`` stepped together in Rust, the GIL
    released, on ``threads`` threads (0: all cores; 1: the caller; ``k``:
    ``k`` kept threads; results never depend on it).

    ``learners="all"``: every decision of every table comes back
    (self-play); a seat number: only that seat's, the others played inside
    the step by the built-in agent ``opponents`` (``"random"``,
    ``"greedy"``, or any name of the core's agent factory).

    Every array is allocated once and rewritten in place by each call (the
    same objects each time, usable zero-copy: ``torch.from_numpy(env.obs)``,
    ``np.from_dlpack``); copy what you keep. ``obs`` is ``(N, P, 34)``
    (encoding ``encoding``, ``obs_dtype`` ``"uint8"`` or ``"float32"``)
    from the seat to act ``to_act`` ``(N,)``; ``action_masks()``
    ``(N, 141)`` bool its legal actions.

    ``step(actions)`` plays one dense action index per table (int64 or
    int32 ``(N,)``). A hand that ends sets ``terminated[i]``,
    ``reward[i]`` (the learner's settlement delta; with all seats
    learners, that of the seat that made the last decision),
    ``final_obs[i]`` (that seat's last observation) and
    ``final_deltas[i]`` (all four deltas), and the table deals its next
    hand in the same step (Gymnasium's same-step auto-reset): ``obs[i]`` is
    already the new hand's. ``info`` is one dict, the same each call:
    ``final_obs``, ``_final_obs`` (= ``terminated``), ``final_deltas``,
    ``to_act``, ``fault``.

    Illegal actions: ``on_illegal="raise"`` refuses the batch with an
    ``IllegalActionError`` naming the first bad table, every table left
    unchanged; ``"fallback"`` plays the table's first legal action (never
    leaving when another is legal) and sets ``fault[i]``.

    Seeds: table ``i``'s hand ``k`` is dealt from
    ``mix_seed(mix_seed(seed, i), k)`` with seat ``(i + k) % 4`` dealing;
    opponent seat ``s`` is reset with ``mix_seed(hand seed, 1 + s)``.
    ``reset(seed)`` restarts at hand 0 of ``seed``; ``reset()`` deals each
    table its next hand. With one learner seat a hand that ends before its
    first decision is skipped.

    Reward shaping (off by default): ``reward_shaping="shanten"`` adds
    ``shaping_scale * (shanten before - shanten after)`` of the acting
    seat's own hand across each of its decisions after which the hand goes
    on (a discard that keeps the hand's distance earns 0, one that breaks a
    shape ``-shaping_scale``, a claim that brings it nearer
    ``+shaping_scale``); draws and other seats' moves never count, and the
    hand-ending decision gets the settlement delta alone.

    ``num_envs`` is an int from 1 to ``VecEnv.MAX_ENVS`` (65,536: a table
    holds about 64 KiB once playing, so one env stays under about 4 GiB);
    anything else, a bool included, is a ``KoudianError`` raised before
    anything is allocated, and an allocation that fails below the bound is
    a ``MemoryError``. ``learners`` is not a bool either."""

    MAX_ENVS: ClassVar[int]
    """The most tables one env holds (65,536); make several envs for more."""

    def __init__(
        self,
        rules: RulesLike,
        num_envs: int,
        *,
        learners: str | int = "all",
        opponents: str = "greedy",
        seed: int = 0,
        threads: int = 0,
        obs_dtype: str = "uint8",
        encoding: int = 2,
        on_illegal: str = "raise",
        reward_shaping: str | None = None,
        shaping_scale: float = 1.0,
    ) -> None: ...
    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Deals every table a new hand; ``(obs, info)``."""
    def step(
        self, actions: npt.NDArray[np.integer[Any]]
    ) -> tuple[
        npt.NDArray[Any],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """Plays one action per table; ``(obs, reward, terminated,
        truncated, info)``."""
    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action masks ``(N, 141)`` of the seats to act."""
    @property
    def obs(self) -> npt.NDArray[Any]:
        """The observations ``(N, P, 34)`` of the last call."""
    @property
    def to_act(self) -> npt.NDArray[np.int64]:
        """The seats to act ``(N,)``."""
    @property
    def reward(self) -> npt.NDArray[np.float32]:
        """The rewards ``(N,)`` of the last step."""
    @property
    def terminated(self) -> npt.NDArray[np.bool_]:
        """Which tables' hands ended in the last step."""
    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        """Always false: a hand always ends."""
    @property
    def final_obs(self) -> npt.NDArray[Any]:
        """Final observations ``(N, P, 34)`` (valid where ``terminated``)."""
    @property
    def final_deltas(self) -> npt.NDArray[np.int64]:
        """Settlement deltas ``(N, 4)`` (valid where ``terminated``)."""
    @property
    def fault(self) -> npt.NDArray[np.bool_]:
        """Which tables played their fallback for an illegal action."""
    @property
    def num_envs(self) -> int: ...
    @property
    def n_planes(self) -> int: ...
    @property
    def encoding(self) -> int: ...
    @property
    def obs_dtype(self) -> str: ...
    @property
    def learners(self) -> str | int: ...
    @property
    def opponents(self) -> str: ...
    @property
    def hands_finished(self) -> int:
        """Hands finished since construction (skipped ones included)."""
    def log(self, i: int, finished: bool = False) -> str:
        """Table ``i``'s log: of the hand in play, or (``finished``) of the
        last hand that ended there; ``koudian.replay`` accepts both."""

# -- submodules --------------------------------------------------------------
# ``_core`` groups its names into submodules by concept, each also in
# ``sys.modules`` (``import koudian._core.table``); every public name below
# is flat on ``_core`` too, and that is how the package imports them.

errors: ModuleType
"""The exception classes."""
tiles: ModuleType
"""Tile notation and counts: ``parse``, ``fmt``, ``to_counts`` …"""
hands: ModuleType
"""``MeldKind``, ``Meld``, ``Hand``."""
rules: ModuleType
"""``Ruleset``."""
shapes: ModuleType
"""Winning shapes, waits and shanten, one hand or a batch."""
scoring: ModuleType
"""``hand_value``, ``settle``, ``chajiao_value`` and their types."""
ting: ModuleType
"""Discard options and the ting (报听) questions."""
table: ModuleType
"""``Action``, ``Observation``, ``Game``, ``GameResult``, ``MatchState``,
``replay``, ``mix_seed``."""
agents: ModuleType
"""``NativeAgent``, ``rank_actions`` and the one game loop's entry points
(``play_game``, ``play_run_game``, ``play_match_hand``,
``fallback_action`` …)."""
arena: ModuleType
"""The native arena: ``arena_native``, ``arena_agents``, ``arena_record``,
``arena_tables``, ``arena_adjustable``, ``ArenaLuck``."""
selfplay: ModuleType
"""Native self-play and recording: ``simulate_native``,
``simulate_record``, ``unpack_obs``."""
env: ModuleType
"""``VecEnv``, ``encoding_planes``."""
positions: ModuleType
"""``Hidden``, ``sample_hidden``."""
args: ModuleType
"""``_check_int``: the extension's integer-argument check."""

class _Bench(ModuleType):
    """``koudian._core._bench``: benchmark hooks, off the public surface."""

    @staticmethod
    def time_batch(
        task: str,
        counts: npt.NDArray[np.uint8],
        *,
        wildcards: WildLike = (),
        rules: RulesLike = "shanxi",
        copies: int = 1,
        isa: str | None = None,
    ) -> float:
        """Seconds the core's ``{task}_batch`` (``"is_win"``, ``"waits"`` or
        ``"shanten"``) takes on one thread over ``counts`` (no melds), timed
        inside Rust: the "Rust core" line of ``koudian bench``. With
        ``copies=k``, ``k`` such calls run at once on ``k`` threads (the
        host's ceiling for ``threads=k``), timed until the last ends.
        ``isa`` (``"scalar"``, ``"avx2"``, ``"avx512"``, ``"neon"``) forces
        the kernels' instruction set; one this CPU lacks is a
        ``KoudianError``."""

    @staticmethod
    def time_env(
        num_envs: int,
        steps: int,
        *,
        version: int = 2,
        dtype: str = "uint8",
        rules: RulesLike = "shanxi",
        isa: str | None = None,
    ) -> float:
        """Seconds that ``steps`` steps of a self-play ``VecEnv`` of
        ``num_envs`` tables (seed 1, one thread, the first legal action)
        take, writing encoding ``version`` in ``dtype``, timed inside Rust
        after a reset and 3 steps: the row writer's lines of ``koudian
        bench --env``. ``isa`` forces the row writer's instruction set, as
        in ``time_batch``."""

    @staticmethod
    def kernels() -> list[tuple[str, str]]:
        """``(task, instruction set)`` of each batch question and of the
        ``VecEnv`` row writer (``"vec_env"``) in this process
        (``KOUDIAN_SIMD``, else the best this CPU has, where the task has
        kernels for it); an unusable ``KOUDIAN_SIMD`` is a
        ``KoudianError``."""

    @staticmethod
    def available() -> list[str]:
        """The instruction sets this CPU can run, slowest first."""

_bench: _Bench

class _Testing(ModuleType):
    """``koudian._core._testing``: test hooks, off the public surface."""

    @staticmethod
    def simulate_logs(
        rules: RulesLike,
        agents: Sequence[str],
        hands: int,
        *,
        seed: int = 0,
        start: int = 0,
    ) -> list[str]:
        """The logs of native self-play of games ``start .. start + hands``
        (same seeds as ``simulate_native``), one JSON Lines log per game."""

_testing: _Testing
