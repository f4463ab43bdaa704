"""The metrics as the registry lists them (`each_metric!` in src/metrics/mod.rs, one line per
room: `room: Variant Variant,`), for the scripts that must know every metric without a list
of their own (structure.py, check_site_json.py). A metric's id is its name in snake case
(`RefFleur` -> `ref_fleur`); src/metrics/mod.rs's tests hold every `MetricInfo::id` to that."""

import re
from pathlib import Path

REGISTRY = Path(__file__).resolve().parent.parent / "src" / "metrics" / "mod.rs"


def rooms(path=REGISTRY):
    """[(room, [variant, ...]), ...] in the list's order."""
    text = Path(path).read_text()
    m = re.search(r"macro_rules! each_metric \{.*?\{ \{ \$\(\$args\)\* \}\n(.*?)\n\s*\}", text, re.S)
    if not m:
        raise SystemExit(f"{path}: no `each_metric!` list found")
    out = []
    for line in m.group(1).splitlines():
        line = line.strip().rstrip(",")
        if not line:
            continue
        room, _, variants = line.partition(":")
        out.append((room.strip(), variants.split()))
    return out


def snake(name):
    """`RefFleur` -> `ref_fleur`, `GVeval` -> `g_veval`."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def ids(path=REGISTRY):
    """Every metric id, in the metric selector's order."""
    return [snake(v) for _, vs in rooms(path) for v in vs]


if __name__ == "__main__":
    for room, vs in rooms():
        print(room, *(f"{v}={snake(v)}" for v in vs))
