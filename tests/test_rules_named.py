"""One test per rule of the rule book (docs/rules.md) that the engine
followed without a test naming it. Each test is named after its rule, its
docstring opens with the docs/rules.md line it checks, and it builds a real
situation at the table (``Game.arranged`` or seeded deals) so that it
fails if the engine breaks the rule."""

from __future__ import annotations

import json
import random
from collections import Counter

import koudian
import pytest
from koudian import Action, Game, MatchState, MeldKind, Ruleset, Tile
from preset_names import ALL_PRESETS

# -- helpers ------------------------------------------------------------------


def idle(g: Game) -> None:
    """One passive move of the seat to act: discard the tile just drawn (or
    any tile when none was drawn), pass every claim or rob."""
    seat = g.to_act
    assert seat is not None, g.log
    o = g.observe(seat)
    legal = g.legal_actions()
    if o.pending == "turn":
        if o.drawn is not None and Action("discard", o.drawn) in legal:
            g.step(Action("discard", o.drawn))
            return
        discards = [a for a in legal if a.kind == "discard"]
        g.step(discards[-1] if discards else legal[0])
    elif Action("pass") in legal:
        g.step("pass")
    else:
        g.step(legal[0])


def drive(g: Game, seat: int, pending: str = "turn") -> None:
    """Plays the table passively (``idle``) until ``seat`` is to act with
    ``pending`` (``"turn"``: its own turn; ``"discard"``: a claim)."""
    for _ in range(300):
        assert not g.done, f"the hand ended before seat {seat} got to act:\n{g.log}"
        if g.to_act == seat and g.observe(seat).pending == pending:
            return
        idle(g)
    raise AssertionError(f"seat {seat} never got a {pending!r} decision:\n{g.log}")


def play_out(g: Game) -> None:
    for _ in range(1000):
        if g.done:
            return
        idle(g)
    raise AssertionError("the hand never ended")


def header(g: Game) -> dict[str, object]:
    h = json.loads(g.log.splitlines()[0])
    assert h["type"] == "header"
    return h  # type: ignore[no-any-return]


def deal_event(g: Game) -> dict[str, object]:
    for line in g.log.splitlines():
        e = json.loads(line)
        if e["type"] == "deal":
            return e  # type: ignore[no-any-return]
    raise AssertionError("no deal event in the log")


_GREEDY = koudian.GreedyAgent()


def eager_choice(g: Game, rng: random.Random) -> Action:
    """Greedy most of the time (hands get ready, ting is declared), else
    any kong or win on offer, else a random legal action: pongs, kongs,
    robbed kongs, face-down discards and wins all happen."""
    legal = [a for a in g.legal_actions() if a.kind != "leave"] or g.legal_actions()
    seat = g.to_act
    if seat is not None and rng.random() < 0.7:
        return _GREEDY.act(g.observe(seat), legal)
    for kind in ("win", "concealed_kong", "added_kong", "kong", "pong", "ting"):
        eager = [a for a in legal if a.kind == kind]
        if eager and rng.random() < 0.8:
            return rng.choice(eager)
    return rng.choice(legal)


# -- §2 Winning shapes: wildcards (耗子) ---------------------------------------


def test_four_natural_wild_tiles_form_a_concealed_kong_worth_natural_points() -> None:
    """docs/rules.md §2 Wildcards:
    "A wild tile never stands in for anything inside a pong or kong, and
    tiles in melds are never wild; four natural tiles of the wild kind may
    form a concealed kong, worth their natural points."

    7m is wild; the dealer holds all four 7m, konges them concealed, declares
    ting on 8s and self-draws it. The kong is settled at 7 points, doubled
    for a concealed kong: 14 from each other player."""
    g = Game.arranged(
        ["7777m123p456p789p8s", "2223334445556m", "2223334445556s", "2223334445556z"],
        "9m9s9p8s",
        "1z",
        rules="shanxi-haozi",
        wilds="7m",
        dealer=0,
    )
    assert g.wilds == [Tile.M7]
    assert Action("concealed_kong", "7m") in g.legal_actions()
    g.step("concealed_kong 7m")
    (kong,) = g.observe(1).melds[0]
    assert kong.kind == MeldKind.CONCEALED_KONG and kong.tile == Tile.M7
    assert g.observe(0).drawn == Tile.EAST  # the replacement from the tail
    g.step("ting 1z")
    drive(g, 0)
    assert g.observe(0).drawn == Tile.S8
    g.step("win")
    r = g.result
    assert r is not None and r.kind == "win" and r.winners == [0] and r.self_draw
    assert r.settlement is not None
    kong_payments = [p for p in r.settlement.payments if p.kind == "kong"]
    assert sorted((p.payer, p.payee, p.tile, p.amount) for p in kong_payments) == [
        (1, 0, Tile.M7, 7 * 2),
        (2, 0, Tile.M7, 7 * 2),
        (3, 0, Tile.M7, 7 * 2),
    ]
    # 8s self-drawn: 16 from each; the kong: 14 from each.
    assert r.deltas == (3 * (16 + 14), -30, -30, -30)


@pytest.mark.parametrize(
    ("preset", "wilds"), [("shanxi-haozi", "7m"), ("shanxi-double-haozi", "7m2m")]
)
def test_thirteen_orphans_completed_with_a_wild_tile_is_a_win(preset: str, wilds: str) -> None:
    """docs/rules.md §2 Wildcards:
    "A wild tile held in hand may stand for any tile kind, including its
    own, in every shape above (standard, seven pairs, thirteen orphans, wind
    sets)".

    The 13 orphans lack 中 (7z); the wild 7m stands for it. Checked by the
    shape functions and at the table: the dealer declares ting with the wild
    tile in hand and wins by self-drawing 9s."""
    hand = "19m19p19s123456z9s7m"  # 7m (wild) stands for 7z, 9s is the pair
    assert not koudian.is_win(hand, rules=preset, wildcards=wilds.replace("7m", "") or ())
    assert koudian.is_win(hand, rules=preset, wildcards=wilds)
    shapes = {d.shape for d in koudian.decompose(hand, rules=preset, wildcards=wilds)}
    assert "thirteen_orphans" in shapes
    v = koudian.hand_value(hand, "9s", self_draw=True, rules=preset, wildcards=wilds)
    assert v.total == 9 * 2

    g = Game.arranged(
        ["19m19p19s123456z7m5p", "2223334445556m", "2223334445556p", "2223334445556s"],
        "8m8p8s9s",
        rules=preset,
        wilds=wilds,
        dealer=0,
    )
    g.step("ting 5p")
    assert Tile.RED in koudian.waits(g.hand(0), rules=preset, wildcards=wilds)
    drive(g, 0)
    assert g.observe(0).drawn == Tile.S9
    assert Action("win") in g.legal_actions()
    g.step("win")
    r = g.result
    assert r is not None and r.kind == "win" and r.winners == [0] and r.self_draw
    assert r.deltas == (3 * 18, -18, -18, -18)


# -- §3 Shanxi 扣点点 -----------------------------------------------------------


def _added_kong_deal(k: str) -> Game:
    """Seat 1 pongs ``k`` from the dealer; seat 2 declares ting waiting on
    3p/6p (45p); seat 1 then draws the 4th ``k`` and adds it to the pong."""
    g = Game.arranged(
        [
            f"{k}11m5m9m2s5s8s123456z",
            f"{k}{k}19p469s77z123z9m",
            "123456m789s55s45p",
            "24p99p13s567z2468m",
        ],
        f"4z1z2z{k}",
        rules="shanxi",
        dealer=0,
    )
    g.step(f"discard {k}")
    assert g.to_act == 1 and Action("pong") in g.legal_actions()
    g.step("pong")
    g.step("discard 9m")
    assert g.to_act == 2
    g.step("ting 4z")
    assert set(koudian.waits(g.hand(2))) == {Tile.P3, Tile.P6}
    g.step("discard 1z")
    g.step("discard 2z")
    assert g.to_act == 1 and Action("added_kong", k) in g.legal_actions()
    g.step(f"added_kong {k}")
    return g


def test_three_to_five_point_tile_cannot_be_robbed_from_a_kong() -> None:
    """docs/rules.md §3 Who may win:
    "`standard` (default): 1-2 points never; 3-5 only by self-draw; 6+ by
    self-draw or on a discard (including robbing a kong)."

    Seat 2 (ting) waits on 3p and 6p. Seat 1 adds the 4th 3p to its pong:
    3p is worth 3, so seat 2 is not offered the rob and the kong goes
    through (seat 1 draws its replacement). The same deal with 6p instead
    offers the rob, so seat 2 is indeed waiting on the kong's kind."""
    g = _added_kong_deal("3p")
    assert g.to_act == 1 and g.observe(1).pending == "turn"
    assert g.legal_actions(2) == []
    assert [(m.kind, m.tile) for m in g.observe(0).melds[1]] == [(MeldKind.ADDED_KONG, Tile.P3)]
    assert g.observe(1).kongs == 1
    assert g.observe(2).may_win_discards  # no rob was offered, so no 过胡 either

    control = _added_kong_deal("6p")
    assert control.to_act == 2 and control.observe(2).pending == "added_kong"
    assert Action("win") in control.legal_actions()


def _ready_with_a_quad() -> Game:
    # The dealer holds 5555p and is one tile from 555p 56p 123m 456m 99s.
    return Game.arranged(
        ["5555p6p123m456m99s1z", "2223334445556s", "2223334445556z", "1112223334447m"],
        "8m8s8p2z7p",
        rules="shanxi",
        dealer=0,
    )


def test_declining_a_concealed_kong_forfeits_nothing() -> None:
    """docs/rules.md §3 Claims and priority:
    "Declining a concealed kong forfeits nothing."

    The dealer is offered the concealed kong of 5p and discards instead; on
    his next turn the kong is offered again (and can be made); he declines
    it once more to declare ting and then still wins on a discard."""
    g = _ready_with_a_quad()
    assert Action("concealed_kong", "5p") in g.legal_actions()
    g.step("discard 1z")
    drive(g, 0)
    assert g.observe(0).drawn == Tile.SOUTH
    legal = g.legal_actions()
    assert Action("concealed_kong", "5p") in legal and Action("ting", "2z") in legal
    made = g.copy()
    made.step("concealed_kong 5p")
    assert [(m.kind, m.tile) for m in made.observe(0).melds[0]] == [
        (MeldKind.CONCEALED_KONG, Tile.P5)
    ]
    g.step("ting 2z")
    assert g.observe(0).may_win_discards
    drive(g, 0, "discard")
    assert g.observe(0).pending_tile == Tile.P7 and g.observe(0).pending_from == 1
    g.step("win")
    r = g.result
    assert r is not None and r.winners == [0] and r.from_seat == 1 and r.tile == Tile.P7


def _wild_kinds(rules: str | Ruleset, seeds: int) -> list[list[Tile]]:
    out = []
    for seed in range(seeds):
        g = Game(rules, seed=seed)
        wilds = g.wilds
        # Announced to all, and no tile leaves the wall for it.
        assert all(g.observe(s).wilds == wilds for s in range(4))
        assert g.wall_remaining == g.rules.tile_total - 53
        out.append(wilds)
    return out


def test_random_wild_kind_is_uniform_over_the_kinds_in_play() -> None:
    """docs/rules.md §3 Wildcard choice:
    "`random` (default, as the seed says): after dealing, the wild kind is
    drawn uniformly from the kinds in play (from the 7 honors for
    `feng-haozi`; two different kinds for `double-haozi`) with the game's
    seeded RNG, and announced to all; no tile leaves the wall for it."

    Over 2000 seeded deals per preset: every allowed kind occurs, no other
    kind does, and no kind is far from its uniform share."""
    n = 2000

    def check(picks: list[list[Tile]], size: int, allowed: set[Tile]) -> None:
        counts: Counter[Tile] = Counter()
        for w in picks:
            assert len(w) == size and len(set(w)) == size
            counts.update(w)
        assert set(counts) == allowed
        expected = n * size / len(allowed)
        for kind, c in counts.items():
            assert 0.5 * expected < c < 1.5 * expected, (kind, c, expected)

    every = set(Tile)
    honors = {t for t in Tile if int(t) >= 27}
    check(_wild_kinds("shanxi-haozi", n), 1, every)
    check(_wild_kinds("shanxi-feng-haozi", n), 1, honors)
    check(_wild_kinds("shanxi-double-haozi", n), 2, every)
    # Without honors only the 27 suited kinds are in play.
    suited = Ruleset.preset("shanxi-haozi", no_honors=True, thirteen_orphans=False)
    check(_wild_kinds(suited, n), 1, every - honors)
    # The seed decides: the same seed gives the same wild kinds.
    assert Game("shanxi-double-haozi", seed=77).wilds == Game("shanxi-double-haozi", seed=77).wilds


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_turn_order_goes_to_the_next_seat_and_the_dealer_starts_with_fourteen(
    preset: str,
) -> None:
    """docs/rules.md §3 Table:
    "Dealer holds 14, others 13. … Turn order goes to the dealer's 下家
    (next seat), then around." (§4 and §5 deal the same way.)

    For every dealer seat: the dealer starts with 14 tiles and acts first,
    the others hold 13; while nobody claims, turns go dealer, dealer + 1,
    dealer + 2, … (mod 4)."""
    for dealer in range(4):
        g = Game(preset, seed=dealer + 10, dealer=dealer)
        assert g.dealer == dealer and g.to_act == dealer
        sizes = [len(g.hand(s)) for s in range(4)]
        assert sizes == [14 if s == dealer else 13 for s in range(4)]
        assert g.observe((dealer + 2) % 4).concealed_count == tuple(sizes)
        assert len(koudian.parse(deal_event(g)["hands"][dealer])) == 14  # type: ignore[index]
        turns = []
        while not g.done and len(turns) < 40:
            o = g.observe(g.to_act)  # type: ignore[arg-type]
            if o.pending == "turn":
                turns.append(o.seat)
            idle(g)
        assert len(turns) == 40
        assert turns == [(dealer + i) % 4 for i in range(40)]


def _drawn_hand(rules: Ruleset, kong: bool) -> Game:
    """A hand dealt by seat 1 played to exhaustion by everyone discarding
    what they draw; the dealer first konges his 5555p when ``kong``."""
    g = Game.arranged(
        ["1112223334445s", "5555p123m456m789s1z", "2223334445556z", "6667778889999m"],
        rules=rules,
        dealer=1,
    )
    if kong:
        g.step("concealed_kong 5p")
    else:
        g.step("discard 1z")
    play_out(g)
    r = g.result
    assert r is not None and r.kind == "exhausted" and r.any_kong == kong
    return g


def test_round_rotation_keeps_the_deal_on_a_drawn_hand_unless_a_kong_was_made() -> None:
    """docs/rules.md §3 Dealer rotation:
    "`round` (一圈/带庄哆五分): the dealer keeps the deal when he wins,
    otherwise it passes to his 下家; a drawn hand passes it on if any kong
    was made, else the dealer keeps it."

    Seat 1 deals a hand that is drawn: with `round` he deals again after a
    drawn hand without a kong, seat 2 deals after one with a kong; with
    the default `winner` a drawn hand passes the deal in both cases."""
    rnd = Ruleset.preset("shanxi", dealer_rotation="round")
    default = Ruleset.preset("shanxi")
    assert default.dealer_rotation == "winner"
    for rules, kong, next_dealer in [
        (rnd, False, 1),
        (rnd, True, 2),
        (default, False, 2),
        (default, True, 2),
    ]:
        m = MatchState(rules, seed=3)
        m.record(_drawn_hand(rules, kong))
        assert m.dealer == next_dealer, (rules.dealer_rotation, kong)


# -- §4 Linxian 抠点 ------------------------------------------------------------


def test_linxian_dice_set_the_dealer_and_the_break_point() -> None:
    """docs/rules.md §4:
    "Dice decide the first dealer and the wall's break point; every die
    comes from the game's seeded RNG."

    The Linxian text: every seat rolls two dice and the highest deals
    first (the tied highest roll again); the dealer rolls a pair (sum d),
    the owner of wall (dealer + d - 1) mod 4 rolls a pair (sum o), and the
    wall opens d + o stacks into that owner's side: tile
    (owner × 34 + 2 (d + o)) mod 136. The header's wall is the dice-less
    shuffle of the same seed rotated there, and the hands are dealt from
    its front: 13 each from the dealer round, then the dealer's 14th."""
    no_dice = Ruleset.preset("linxian", dice=False)
    breaks = set()
    for seed in range(60):
        g = Game("linxian", seed=seed)
        h = header(g)
        dice = h["dice"]
        assert isinstance(dice, list) and len(dice) == 4 and all(1 <= d <= 6 for d in dice)
        rolls = h["dealer_rolls"]
        assert isinstance(rolls, list)
        seats, rest = [0, 1, 2, 3], list(rolls)
        while True:
            sums = [a + b for a, b in rest[: len(seats)]]
            rest = rest[len(seats) :]
            top = [s for s, x in zip(seats, sums, strict=True) if x == max(sums)]
            if len(top) == 1:
                break
            seats = top
        assert not rest
        dealer = top[0]
        assert h["dealer"] == g.dealer == dealer
        d, o = dice[0] + dice[1], dice[2] + dice[3]
        owner = (dealer + d - 1) % 4
        start = (owner * 34 + 2 * (d + o)) % 136
        breaks.add(start)
        shuffled = koudian.parse(header(Game(no_dice, seed=seed))["wall"])  # type: ignore[arg-type]
        wall = koudian.parse(h["wall"])  # type: ignore[arg-type]
        assert wall == shuffled[start:] + shuffled[:start]
        hands = deal_event(g)["hands"]
        for i in range(4):
            seat = (dealer + i) % 4
            dealt = wall[13 * i : 13 * i + 13] + ([wall[52]] if i == 0 else [])
            assert koudian.fmt(hands[seat]) == koudian.fmt(dealt)  # type: ignore[index]
            assert g.hand(seat).tiles == sorted(dealt)
    assert len(breaks) > 10


def _linxian_deal() -> Game:
    # Seat 1 deals: 123456789m 99s 78p 1z (ting 1z waits 6p/9p); seat 3
    # holds 123456789s 11p 45m (waits 3m/6m after declaring with 7z).
    return Game.arranged(
        ["2223334445556z", "123456789m99s78p1z", "2223334445556p", "123456789s11p45m"],
        "7z7z7z9p6z6m",
        rules="linxian",
        dealer=1,
    )


def test_linxian_dealer_keeps_the_deal_when_he_wins_else_it_passes_to_his_next_seat() -> None:
    """docs/rules.md §4:
    "Dealer: keeps the deal when he wins, else it passes to his 下家; a
    drawn hand passes it to the 下家 (decision)."

    Seat 1 deals. When he self-draws 9p he deals again; when seat 3 wins
    instead, the deal goes to seat 2 (his 下家), not to the winner; a drawn
    hand also passes it to seat 2."""
    g = _linxian_deal()
    g.step("ting 1z")
    drive(g, 1)
    assert g.observe(1).drawn == Tile.P9
    g.step("win")
    assert g.result is not None and list(g.result.winners) == [1]
    m = MatchState("linxian", seed=1)
    m.record(g)
    assert m.dealer == 1

    g = _linxian_deal()
    g.step("discard 1z")
    drive(g, 3)
    assert g.observe(3).drawn == Tile.RED
    g.step("ting 7z")
    drive(g, 3)
    assert g.observe(3).drawn == Tile.M6
    g.step("win")
    assert g.result is not None and list(g.result.winners) == [3]
    m = MatchState("linxian", seed=1)
    m.record(g)
    assert m.dealer == 2

    g = _linxian_deal()
    play_out(g)
    assert g.result is not None and g.result.kind == "exhausted"
    m = MatchState("linxian", seed=1)
    m.record(g)
    assert m.dealer == 2


# -- §5 Sichuan 四川麻将 --------------------------------------------------------


def test_sichuan_discarder_deals_next_after_several_winners_on_one_discard() -> None:
    """docs/rules.md §5 Payment:
    "On a discard: the discarder alone pays each winner; several players
    may win on one discard (一炮多响), and the discarder then deals next."

    Seat 3 deals; seat 0 discards 5s, on which seats 1 and 2 both win. The
    next dealer is seat 0 (the discarder): neither the dealer nor a
    winner."""
    g = Game.arranged(
        [
            "5s11m23p98p1s7s9s2s3s5p",
            "123456789m99m46s",
            "123456789p22p46s",
            "567m346p889s13s7s7p8m",
        ],
        "6p",
        rules="sichuan",
        dealer=3,
    )
    g.step("discard 8m")
    drive(g, 0)
    g.step("discard 5s")
    assert g.to_act == 1 and Action("win") in g.legal_actions()
    g.step("win")
    assert g.to_act == 2 and Action("win") in g.legal_actions()
    g.step("win")
    r = g.result
    assert r is not None and r.winners == [1, 2] and r.from_seat == 0
    assert r.deltas[0] < 0 < min(r.deltas[1], r.deltas[2]) and r.deltas[3] == 0
    m = MatchState("sichuan", seed=1)
    m.record(g)
    assert m.dealer == 0


def test_sichuan_concealed_kongs_are_shown_to_other_players() -> None:
    """docs/rules.md §5:
    "Concealed kongs are shown ("碰、杠后的牌要亮出牌面")."

    The dealer konges 5555p concealed: every other seat's observation shows
    the kong's kind at once, while the hand goes on (Linxian hides it)."""
    g = Game.arranged(
        ["5555p123m456m789m1s", "1112223334446s", "6667778889999p", "2223334445556m"],
        rules="sichuan",
        dealer=0,
    )
    assert g.rules.hide_concealed_kong is False
    g.step("concealed_kong 5p")
    assert not g.done
    for s in range(4):
        (m,) = g.observe(s).melds[0]
        assert m.kind == MeldKind.CONCEALED_KONG and m.tile == Tile.P5
        assert g.observe(s).to_json()["melds"][0][0]["tile"] == "5p"
        assert g.observe(s).planes()[5 + (0 - s) % 4, int(Tile.P5)] == 4


# -- §6 Engine-wide requirements ------------------------------------------------


def _account(g: Game, wall: list[Tile]) -> None:
    """Every tile is in exactly one place: a hand (melds included), a
    discard still on the table, the undrawn part of the header's wall, or
    (after 抢杠) the robbed winning tile."""
    total = g.rules.tile_total
    in_play = total // 4
    back = g.observe(0).kongs if g.rules.kong_draw == "tail" else 0
    front = total - g.wall_remaining - back
    counts = Counter(wall[front : total - back])
    for s in range(4):
        counts.update(g.hand(s).tiles)
        for m in g.hand(s).melds:
            counts.update(m.tiles)
        for d in g.observe(s).discards:
            if d.seat == s and not d.claimed:
                assert d.tile is not None  # one's own face-down discard is seen
                counts[d.tile] += 1
    r = g.result
    if r is not None and r.robbed_kong:
        # The robbed 4th tile left the konger's meld as the winning tile.
        assert r.tile is not None
        counts[r.tile] += 1
    assert sum(counts.values()) == total
    assert {int(t): n for t, n in counts.items()} == {k: 4 for k in range(in_play)}
    census = g.tile_census()
    assert (census[:in_play] == 4).all() and (census[in_play:] == 0).all()


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_every_tile_is_accounted_for_at_every_step(preset: str) -> None:
    """docs/rules.md §6:
    "Settlements are zero-sum; the 136 (or 108) tiles are always all
    accounted for."

    At every step of eagerly played games (pongs, kongs, ting, robbed kongs
    and wins), the hands, melds, discards on the table and the undrawn wall
    hold exactly 4 of each kind in play: 136 tiles, or 108 in Sichuan."""
    rng = random.Random(preset)
    seen: Counter[str] = Counter()
    for seed in range(30):
        g = Game(preset, seed=seed)
        wall = koudian.parse(header(g)["wall"])  # type: ignore[arg-type]
        assert len(wall) == g.rules.tile_total == (108 if preset == "sichuan" else 136)
        while True:
            _account(g, wall)
            if g.done:
                break
            a = eager_choice(g, rng)
            seen[a.kind] += 1
            g.step(a)
        r = g.result
        assert r is not None and sum(r.deltas) == 0
    assert seen["pong"] > 0 and seen["win"] > 0 and seen["kong"] + seen["concealed_kong"] > 0
    if preset == "shanxi":
        # A robbed added kong (抢杠), played step by step.
        g = _added_kong_deal("6p")
        wall = koudian.parse(header(g)["wall"])  # type: ignore[arg-type]
        _account(g, wall)
        g.step("win")
        assert g.result is not None and g.result.robbed_kong
        _account(g, wall)
