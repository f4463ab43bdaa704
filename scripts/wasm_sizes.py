"""What each crate costs in the wasm download: function body bytes per crate, read from the
linked module's code and `name` sections before wasm-bindgen and wasm-opt (which strip the
names), plus the data segments. Proportions carry over to the shipped file; absolute bytes
shrink by roughly the ratio the table prints."""

import re
from collections import Counter
from pathlib import Path


def _leb(buf, i):
    result = shift = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, i


def _sections(buf):
    assert buf[:4] == b"\0asm", "not a wasm module"
    i = 8
    while i < len(buf):
        sid = buf[i]
        size, i = _leb(buf, i + 1)
        yield sid, buf[i:i + size]
        i += size


def _imported_functions(payload):
    count, i = _leb(payload, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            n, i = _leb(payload, i)
            i += n
        kind = payload[i]
        i += 1
        if kind == 0:
            _, i = _leb(payload, i)
            funcs += 1
        elif kind == 1:  # table: reftype + limits
            i += 1
            flags, i = _leb(payload, i)
            _, i = _leb(payload, i)
            if flags & 1:
                _, i = _leb(payload, i)
        elif kind == 2:  # memory: limits
            flags, i = _leb(payload, i)
            _, i = _leb(payload, i)
            if flags & 1:
                _, i = _leb(payload, i)
        elif kind == 3:  # global: valtype + mutability
            i += 2
        else:  # tag
            i += 1
            _, i = _leb(payload, i)
    return funcs


def _function_names(payload):
    n, i = _leb(payload, 0)
    if payload[i:i + n] != b"name":
        return {}
    i += n
    names = {}
    while i < len(payload):
        sub = payload[i]
        size, i = _leb(payload, i + 1)
        if sub == 1:
            j = i
            count, j = _leb(payload, j)
            for _ in range(count):
                idx, j = _leb(payload, j)
                ln, j = _leb(payload, j)
                names[idx] = payload[j:j + ln].decode("utf-8", "replace")
                j += ln
        i += size
    return names


def crate_of(symbol):
    """The crate a (legacy-mangled or plain) symbol belongs to; for `<T as Trait>` impls, T's."""
    m = re.match(r"_ZN(\d+)(.*)", symbol)
    if m:
        first = m.group(2)[: int(m.group(1))]
        first = first.replace("_$LT$", "").replace("$LT$", "").lstrip("_")
        self_type, _, trait = first.partition("$u20$as$u20$")
        if trait and ".." not in self_type:  # `<T as a::Trait>`: a blanket impl, the trait's crate
            first = trait
        return re.split(r"\.\.|\$|\[", first)[0] or "?"
    m = re.match(r"_R.*?C(?:s[0-9A-Za-z]*_)?(\d+)", symbol)  # v0 mangling: the first crate root
    if m:
        start = m.end()
        return symbol[start:start + int(m.group(1))]
    m = re.match(r"<*([A-Za-z_][A-Za-z0-9_]*)", symbol)
    return m.group(1) if m else "?"


def report(wasm_path, top=14):
    path = Path(wasm_path)
    if not path.exists():
        print(f"(no {path}: per-crate sizes skipped)")
        return
    buf = path.read_bytes()
    imported, bodies, names, data = 0, [], {}, 0
    for sid, payload in _sections(buf):
        if sid == 2:
            imported = _imported_functions(payload)
        elif sid == 10:
            count, i = _leb(payload, 0)
            for _ in range(count):
                size, j = _leb(payload, i)
                bodies.append(size + (j - i))
                i = j + size
        elif sid == 11:
            data = len(payload)
        elif sid == 0:
            names = _function_names(payload) or names
    per_crate = Counter()
    for k, size in enumerate(bodies):
        per_crate[crate_of(names.get(imported + k, "?"))] += size
    code = sum(bodies)
    print(f"What each crate costs (function bodies in {path.name} before wasm-bindgen/wasm-opt; "
          f"code {code:,} B, data {data:,} B):")
    for crate, size in per_crate.most_common(top):
        print(f"  {crate:<24} {size:>9,} B  {100 * size / code:5.1f} %")
