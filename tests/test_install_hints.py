"""Every install hint koudian prints gives the checkout's form first.

koudian is not on a package index yet, so ``pip install 'koudian[data]'``
fails for a user who followed the README; the hints come from one place,
``koudian._extras.install_hint``, which names ``".[extra]"`` first."""

from __future__ import annotations

import re
from pathlib import Path

import koudian
from koudian._extras import install_hint

SOURCE = Path(koudian.__file__).resolve().parent


def test_the_hint_names_the_checkout_form_first() -> None:
    hint = install_hint("web")
    assert hint.index('".[web]"') < hint.index("koudian[web]")


def test_no_module_spells_an_index_only_install() -> None:
    offenders = []
    for path in sorted(SOURCE.rglob("*.py")):
        if path.name == "_extras.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"pip install ['\"]?koudian\[", line):
                offenders.append(f"{path.relative_to(SOURCE)}:{n}: {line.strip()}")
    assert not offenders, "use koudian._extras.install_hint:\n" + "\n".join(offenders)
