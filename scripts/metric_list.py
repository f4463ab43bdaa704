"""The metrics as the registry writes them out (crates/core/src/metrics/mod.rs), for the scripts that must
know every metric without a list of their own (structure.py, check_site_json.py): the variants
of `pub enum Metric`, in the metric selector's order, and the room (folder) of each, read from
`Metric::info`'s arms (`Metric::RefFleur => fleur::RefFleur::INFO`). A metric's id is its name
in snake case (`RefFleur` -> `ref_fleur`); crates/core/src/metrics/mod.rs's tests hold every
`MetricInfo::id` to that."""

import re
from pathlib import Path

REGISTRY = Path(__file__).resolve().parent.parent / "crates" / "core" / "src" / "metrics" / "mod.rs"


def variants(path=REGISTRY):
    """The variants of `pub enum Metric`, in order."""
    text = Path(path).read_text()
    m = re.search(r"pub enum Metric \{(.*?)\}", text, re.S)
    if not m:
        raise SystemExit(f"{path}: no `pub enum Metric` found")
    body = re.sub(r"//[^\n]*", "", m.group(1))
    return [v.strip() for v in body.split(",") if v.strip()]


def rooms(path=REGISTRY):
    """[(room, [variant, ...]), ...]: each room with its metrics, in the enum's order."""
    text = Path(path).read_text()
    room_of = dict(re.findall(r"Metric::(\w+) => (\w+)::\w+::INFO", text))
    out = []
    for v in variants(path):
        if v not in room_of:
            raise SystemExit(f"{path}: `Metric::info` has no arm naming {v}'s room")
        room = room_of[v]
        if out and out[-1][0] == room:
            out[-1][1].append(v)
        else:
            out.append((room, [v]))
    return out


def snake(name):
    """`RefFleur` -> `ref_fleur`, `GVeval` -> `g_veval`."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def ids(path=REGISTRY):
    """Every metric id, in the metric selector's order."""
    return [snake(v) for v in variants(path)]


if __name__ == "__main__":
    for room, vs in rooms():
        print(room, *(f"{v}={snake(v)}" for v in vs))
