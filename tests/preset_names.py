"""Every preset name, in the order ``koudian rules --list`` prints them.

The tests that cover every preset share this list; ``test_ruleset`` checks
it against the TOML presets the wheel ships.
"""

ALL_PRESETS = [
    "shanxi",
    "shanxi-haozi",
    "shanxi-feng-haozi",
    "shanxi-double-haozi",
    "linxian",
    "sichuan",
]
