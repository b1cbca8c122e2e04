"""placeholder"""

from typing import Any


def add_subparser(sub: Any) -> None:
    pass
