"""Reading a dataset's ``_manifest.json`` strictly (``koudian.dataset``'s
``read_manifest``): bounded in size, UTF-8, strict JSON (no ``NaN``), and
every key the readers rely on present with its type and a value in range,
so that a damaged or edited manifest is a ``KoudianError`` naming the file
rather than a ``JSONDecodeError``, an ``AttributeError`` or, worse, a
dataset read as something it is not."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from koudian._core import (
    MASK_BYTES,
    N_ACTIONS,
    OBS_BYTES,
    OBS_BYTES_V1,
    OBS_BYTES_V2,
    KoudianError,
)

FORMAT = "koudian-dataset"
FORMAT_VERSIONS = (1, 2, 3)
"""The manifest format versions this koudian reads: 1 (no checksums, no
``complete``), 2 (per-shard ``bytes`` and ``sha256``, ``complete``), 3
(the shards have the ``expert_values`` column)."""

MAX_MANIFEST_BYTES = 64 << 20
"""The largest ``_manifest.json`` read (about 300,000 shards' entries)."""

PLANES = {1: 29, 2: 66, 3: 79}
"""Planes of each observation encoding version."""

OBS_WIDTH = {1: OBS_BYTES_V1, 2: OBS_BYTES_V2, 3: OBS_BYTES}
"""The packed ``obs`` width of each encoding version."""

_SHA256 = re.compile(r"[0-9a-f]{64}")


def _fail(path: Path, why: str) -> KoudianError:
    return KoudianError(f"{path}: {why}")


def _int(path: Path, obj: dict[str, Any], key: str, where: str = "", low: int = 0) -> int:
    """``obj[key]``, an integer (not a bool) of at least ``low``."""
    if key not in obj:
        raise _fail(path, f"no {where}{key!r}")
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise _fail(path, f"{where}{key} must be an integer >= {low}, not {v!r}")
    return v


def _str(path: Path, obj: dict[str, Any], key: str) -> str:
    if not isinstance(obj.get(key), str):
        raise _fail(path, f"{key} must be a string, not {obj.get(key)!r}")
    return str(obj[key])


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load(path: Path) -> dict[str, Any]:
    """The manifest at ``path``, checked (``KoudianError`` otherwise)."""
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        raise KoudianError(f"{path.parent} is not a koudian dataset: no {path.name}") from None
    except OSError as e:
        raise _fail(path, f"cannot read the manifest: {e}") from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise _fail(path, f"a manifest is at most {MAX_MANIFEST_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _fail(path, f"not UTF-8 text ({e})") from None
    try:
        m = json.loads(text, parse_constant=_reject_constant)
    except ValueError as e:  # JSONDecodeError is a ValueError
        raise _fail(path, f"not valid JSON ({e})") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise KoudianError(f"{path} is not a koudian dataset manifest")
    check(path, m)
    return m


def check(path: Path, m: dict[str, Any]) -> None:
    """Checks a parsed manifest's keys, types and values in place (a
    version 1 manifest gets ``complete: true``, which it implied)."""
    version = m.get("format_version")
    if isinstance(version, bool) or version not in FORMAT_VERSIONS:
        raise _fail(
            path,
            f"format_version {version!r} is not one this koudian reads "
            f"({', '.join(map(str, FORMAT_VERSIONS))}); a newer koudian may read it",
        )
    for key in ("koudian_version", "rules"):
        _str(path, m, key)
    _int(path, m, "seed")
    _int(path, m, "hands")
    rows = _int(path, m, "rows")
    seats = m.get("seats")
    if (
        not isinstance(seats, list)
        or not all(type(s) is int and 0 <= s <= 3 for s in seats)
        or len(set(seats)) != len(seats)
    ):
        raise _fail(path, f"seats must be distinct seat numbers 0-3, not {seats!r}")
    agents = m.get("agents")
    if (
        not isinstance(agents, list)
        or len(agents) != 4
        or not all(isinstance(a, str) for a in agents)
    ):
        raise _fail(path, f"agents must be 4 strings, not {agents!r}")
    if version >= 2:
        if not isinstance(m.get("complete"), bool):
            raise _fail(path, f"complete must be true or false, not {m.get('complete')!r}")
    else:
        m["complete"] = True
    _check_encoding(path, m.get("encoding"))
    shards = m.get("shards")
    if not isinstance(shards, list):
        raise _fail(path, f"shards must be a list, not {type(shards).__name__}")
    seen: set[str] = set()
    for k, s in enumerate(shards):
        _check_shard(path, s, k, version)
        if s["file"] in seen:
            raise _fail(path, f"shard {s['file']} is listed twice")
        seen.add(s["file"])
    total = sum(int(s["rows"]) for s in shards)
    if total != rows:
        raise _fail(path, f"rows {rows} is not the sum of the shards' rows ({total})")


def _check_encoding(path: Path, enc: Any) -> None:
    if not isinstance(enc, dict):
        raise _fail(path, f"encoding must be an object, not {type(enc).__name__}")
    version = _int(path, enc, "version", "encoding ")
    if version not in PLANES:
        raise _fail(path, f"encoding version {version} is not one this koudian reads")
    want = {
        "planes": PLANES[version],
        "kinds": 34,
        "obs_bytes": OBS_WIDTH[version],
        "n_actions": N_ACTIONS,
        "mask_bytes": MASK_BYTES,
    }
    for key, value in want.items():
        got = _int(path, enc, key, "encoding ")
        if got != value:
            raise _fail(path, f"encoding {key} {got} is not version {version}'s {value}")
    _int(path, enc, "pack_version", "encoding ")


def _check_shard(path: Path, s: Any, k: int, version: int) -> None:
    if not isinstance(s, dict):
        raise _fail(path, f"shard {k} must be an object, not {type(s).__name__}")
    name = s.get("file")
    # A plain name in the dataset's own folder: never a path out of it.
    if (
        not isinstance(name, str)
        or not name.endswith(".parquet")
        or name.startswith(".")
        or Path(name).name != name
        or "\\" in name
    ):
        raise _fail(path, f"shard {k}'s file must be a .parquet name in the folder, not {name!r}")
    where = f"shard {name} "
    _int(path, s, "start", where)
    _int(path, s, "rows", where)
    if "hands" in s:
        _int(path, s, "hands", where)
    if version >= 2:
        _int(path, s, "bytes", where)
        digest = s.get("sha256")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise _fail(path, f"{where}sha256 must be 64 hex digits, not {digest!r}")
