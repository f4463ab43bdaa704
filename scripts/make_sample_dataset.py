#!/usr/bin/env python3
"""Writes public/sample-dataset.zip, the small sample the lab's import box offers for download:
dataset.jsonl (six captions of three pictures, with human ratings and best-of-N choices) and
the pictures as PNGs, drawn here so the file is reproducible byte for byte (fixed timestamps).
Unzip it and choose both files in the lab's Dataset field, or choose the .jsonl with the .zip."""

import json
import struct
import zipfile
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "public" / "sample-dataset.zip"


def png(width, height, pixel):
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


PICTURES = {
    # A red square on a blue sky over green grass.
    "red-square.png": lambda x, y: (200, 30, 30) if 20 <= x < 44 and 14 <= y < 38 else ((70, 130, 200) if y < 40 else (60, 150, 60)),
    # A yellow sun in a dark sky.
    "sun.png": lambda x, y: (250, 210, 40) if (x - 32) ** 2 + (y - 24) ** 2 < 120 else (20, 30, 70),
    # Black and white stripes.
    "stripes.png": lambda x, y: (0, 0, 0) if (x // 8) % 2 else (255, 255, 255),
}

ROWS = [
    {"id": "square-good", "task": "ic", "text": "A red square above green grass under a blue sky.", "image": "red-square.png", "human_overall": 5, "group": "square", "chosen": True},
    {"id": "square-bad", "task": "ic", "text": "A cat sleeping on a sofa.", "image": "red-square.png", "human_overall": 1, "group": "square"},
    {"id": "sun-good", "task": "ic", "text": "A yellow sun in a dark blue sky.", "image": "sun.png", "human_overall": 4, "group": "sun", "chosen": True},
    {"id": "sun-vague", "task": "ic", "text": "Something round.", "image": "sun.png", "human_overall": 2, "group": "sun"},
    {"id": "stripes-vqa", "task": "vqa", "question": "What colours are the stripes?", "text": "Black and white.", "image": "stripes.png", "human_overall": 5},
    {"id": "stripes-wrong", "task": "vqa", "question": "What colours are the stripes?", "text": "Red and green.", "image": "stripes.png", "human_overall": 1},
]


def main():
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(OUT, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name, data):
            info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        add("dataset.jsonl", "".join(json.dumps(r) + "\n" for r in ROWS))
        for name, pixel in PICTURES.items():
            add(name, png(64, 48, pixel))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
