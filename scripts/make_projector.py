#!/usr/bin/env python3
"""Writes a small vision projector (mmproj GGUF) whose weights are random numbers.

It is not a vision model. It exists so that a real llama.cpp accepts image parts for a
text model that has none, and so runs its real image path (decode, resize, encode, inject)
in our end-to-end tests. What the image shows has no meaningful effect on the answers.

The layout is llama.cpp's "mlp" (LLaVA-1.5 style) projector: a tiny ViT whose patch
embeddings are mapped by two linear layers to the text model's embedding width
(576 for SmolLM2-135M). The seed is fixed, so the file is the same on every machine.

Usage: make_projector.py OUT.gguf [--width 576] [--f16]   (needs the PyPI packages gguf and numpy)

`--f16` stores the same matrices' values in F16 (as most published projectors are): the
suite checks with it that the page's engine holds F16 tensors as F32 and answers as native
llama-server does with the F16 file.
"""
import argparse

import gguf
import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=576, help="text model embedding width")
    ap.add_argument("--f16", action="store_true", help="the matrices in F16 (the same draws)")
    args = ap.parse_args()

    side, patch, dim, heads, hidden, blocks = 64, 16, 64, 4, 128, 2
    positions = (side // patch) ** 2 + 1  # patches plus the class token
    rng = np.random.default_rng(20261122)

    def noise(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def matrix(*shape: int) -> np.ndarray:
        m = noise(*shape)
        return m.astype(np.float16) if args.f16 else m

    def ones(n: int) -> np.ndarray:
        return np.ones(n, np.float32)

    def zeros(n: int) -> np.ndarray:
        return np.zeros(n, np.float32)

    g = gguf.GGUFWriter(args.out, "clip")
    g.add_string("general.name", "harmonic-judge test projector (random weights, not a model)")
    g.add_uint32("general.file_type", 1 if args.f16 else 0)  # MOSTLY_F16, ALL_F32
    g.add_bool("clip.has_vision_encoder", True)
    g.add_bool("clip.has_text_encoder", False)
    g.add_string("clip.projector_type", "mlp")
    g.add_bool("clip.use_gelu", True)
    for key, value in [
        ("image_size", side), ("patch_size", patch), ("embedding_length", dim),
        ("feed_forward_length", hidden), ("projection_dim", args.width),
        ("attention.head_count", heads), ("block_count", blocks),
    ]:
        g.add_uint32(f"clip.vision.{key}", value)
    g.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    g.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    g.add_array("clip.vision.image_std", [0.25, 0.25, 0.25])

    # GGUF stores shapes in ggml order; numpy's is the reverse.
    g.add_tensor("v.class_embd", noise(dim))
    g.add_tensor("v.patch_embd.weight", noise(dim, 3, patch, patch))
    g.add_tensor("v.position_embd.weight", noise(positions, dim))
    g.add_tensor("v.pre_ln.weight", ones(dim))
    g.add_tensor("v.pre_ln.bias", zeros(dim))
    for b in range(blocks):
        p = f"v.blk.{b}"
        for proj in ("attn_q", "attn_k", "attn_v", "attn_out"):
            g.add_tensor(f"{p}.{proj}.weight", matrix(dim, dim))
            g.add_tensor(f"{p}.{proj}.bias", zeros(dim))
        for norm in ("ln1", "ln2"):
            g.add_tensor(f"{p}.{norm}.weight", ones(dim))
            g.add_tensor(f"{p}.{norm}.bias", zeros(dim))
        g.add_tensor(f"{p}.ffn_up.weight", matrix(hidden, dim))
        g.add_tensor(f"{p}.ffn_up.bias", zeros(hidden))
        g.add_tensor(f"{p}.ffn_down.weight", matrix(dim, hidden))
        g.add_tensor(f"{p}.ffn_down.bias", zeros(dim))
    g.add_tensor("mm.0.weight", matrix(args.width, dim))
    g.add_tensor("mm.0.bias", zeros(args.width))
    g.add_tensor("mm.2.weight", matrix(args.width, args.width))
    g.add_tensor("mm.2.bias", zeros(args.width))

    g.write_header_to_file()
    g.write_kv_data_to_file()
    g.write_tensors_to_file()
    g.close()


if __name__ == "__main__":
    main()
