#!/usr/bin/env python3
"""Writes a test model shaped like SmolVLM-256M-Instruct: its vision projector with random
weights, and the suite's SmolLM2-135M with SmolVLM's image tokens added to its vocabulary.

Why: SmolVLM-256M is the vision model a visitor would really load in the page, and its image
path is far dearer than the suite's tiny projector (scripts/make_projector.py: 64 px, 17
tokens). No registry ships its weights, so this file reproduces its *shapes*, which decide the
cost: a SigLIP-B/16 tower at 512 px (12 blocks, width 768, 12 heads, FFN 3072), llama.cpp's
`idefics3` projector (pixel shuffle by 4: 64 tokens per 512 px view) and a projection to
SmolLM2's width, 576. What an image shows has no meaningful effect on the answers.

    make_smolvlm.py projector OUT.gguf [--no-preproc-size] [--width 576] [--q8]
    make_smolvlm.py text SmolLM2-135M-Instruct.Q4_1.gguf OUT.gguf

`projector`: every key and tensor llama.cpp's loader (tools/mtmd/clip.cpp) reads for an
idefics3 projector, named and typed as its converter (conversion/smolvlm.py) writes them for
SmolVLM-256M: matrices in F16, the embeddings, norms and biases in F32. By default it carries
`clip.vision.preproc_image_size = 2048`, the longest edge today's converter writes for
SmolVLM-256M: llama.cpp then resizes every image to 2048 on its longest side and cuts it into
512 px tiles plus one global view (a 640x480 photo: 13 encodes). `--no-preproc-size` leaves the
key out, as older conversions did (the same photo: 2 encodes). `--q8` stores the same matrices
in Q8_0 (gguf-py's quantizer, as llama.cpp's converter does with `--outtype q8_0`): in the page
their products have wasm SIMD kernels, where F16's have none (docs/performance.md).

`text`: mtmd wraps each view in `<fake_token_around_image>`, `<global-img>` and
`<row_R_col_C>`, which plain SmolLM2 lacks (llama-server answers every image request 400
"Invalid token"). SmolVLM-256M's tokenizer appends 40 tokens to SmolLM2's 49152 (49152
`<global-img>`, 49153-49188 `<row_1_col_1>`..`<row_6_col_6>`, 49189
`<fake_token_around_image>`, 49190 `<image>`, 49191 `<end_of_utterance>`); they are appended
here as control tokens, each embedding row a copy of one of SmolLM2's unused special tokens'
rows (ids 3-16, `<repo_name>`..`<empty_output>`), so the text model's answers to text do not
move and its cost is the same. Every other key and tensor is copied byte for byte, and the
vocabulary size keys follow.

The seed is fixed and nothing depends on the clock, so both files are the same bytes on every
machine (scripts/smolvlm_model.sh caches them). Needs numpy and the PyPI package gguf.
"""
import argparse
import os

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter, Keys
from gguf.quants import quantize

SIDE, PATCH, DIM, HEADS, FFN, BLOCKS, SCALE = 512, 16, 768, 12, 3072, 12, 4
PREPROC_LONGEST_EDGE = 2048

# SmolVLM-256M's added tokens, in id order from 49152.
ADDED_TOKENS = (
    ["<global-img>"]
    + [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]
    + ["<fake_token_around_image>", "<image>", "<end_of_utterance>"]
)
CONTROL = 3  # llama.cpp's LLAMA_TOKEN_TYPE_CONTROL, as its converter marks special added tokens
SPARE_ROWS = range(3, 17)  # SmolLM2's unused special tokens: their rows are copied


def write_projector(out: str, width: int, preproc: bool, q8: bool = False) -> None:
    rng = np.random.default_rng(20260257)

    def matrix(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float16)

    def put(name: str, data: np.ndarray) -> None:
        # the same F16 values, or those values in Q8_0 (the matrices only: 2-D F16)
        if q8 and data.dtype == np.float16 and data.ndim == 2:
            g.add_tensor(name, quantize(data.astype(np.float32), GGMLQuantizationType.Q8_0),
                         raw_dtype=GGMLQuantizationType.Q8_0)
        else:
            g.add_tensor(name, data)

    def embedding(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape, dtype=np.float32) * 0.02

    def ones(n: int) -> np.ndarray:
        return np.ones(n, np.float32)

    def zeros(n: int) -> np.ndarray:
        return np.zeros(n, np.float32)

    tmp = f"{out}.part"
    g = GGUFWriter(tmp, "clip")
    g.add_type("mmproj")
    g.add_string("general.name", "harmonic-judge SmolVLM-256M-shaped projector (random weights, not a model)")
    g.add_uint32(Keys.General.FILE_TYPE, 7 if q8 else 1)  # MOSTLY_Q8_0, MOSTLY_F16
    g.add_bool("clip.has_vision_encoder", True)
    g.add_string("clip.projector_type", "idefics3")
    g.add_bool("clip.use_gelu", True)
    for key, value in [
        ("projection_dim", width), ("image_size", SIDE), ("patch_size", PATCH),
        ("embedding_length", DIM), ("feed_forward_length", FFN), ("block_count", BLOCKS),
        ("attention.head_count", HEADS), ("projector.scale_factor", SCALE),
    ]:
        g.add_uint32(f"clip.vision.{key}", value)
    g.add_array("clip.vision.image_mean", [0.5, 0.5, 0.5])
    g.add_array("clip.vision.image_std", [0.5, 0.5, 0.5])
    g.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-6)
    if preproc:
        g.add_uint32("clip.vision.preproc_image_size", PREPROC_LONGEST_EDGE)

    # numpy shapes are ggml's reversed: a linear layer is (out, in).
    put("v.patch_embd.weight", embedding(DIM, 3, PATCH, PATCH))
    put("v.patch_embd.bias", zeros(DIM))
    put("v.position_embd.weight", embedding((SIDE // PATCH) ** 2, DIM))
    for b in range(BLOCKS):
        p = f"v.blk.{b}"
        for proj in ("attn_q", "attn_k", "attn_v", "attn_out"):
            put(f"{p}.{proj}.weight", matrix(DIM, DIM))
            put(f"{p}.{proj}.bias", zeros(DIM))
        for norm in ("ln1", "ln2"):
            put(f"{p}.{norm}.weight", ones(DIM))
            put(f"{p}.{norm}.bias", zeros(DIM))
        put(f"{p}.ffn_up.weight", matrix(FFN, DIM))
        put(f"{p}.ffn_up.bias", zeros(FFN))
        put(f"{p}.ffn_down.weight", matrix(DIM, FFN))
        put(f"{p}.ffn_down.bias", zeros(DIM))
    put("v.post_ln.weight", ones(DIM))
    put("v.post_ln.bias", zeros(DIM))
    # The pixel shuffle stacks SCALE x SCALE neighbours: the projection reads DIM * SCALE^2.
    put("mm.model.fc.weight", matrix(width, DIM * SCALE * SCALE))
    _finish(g, tmp, out)


def _finish(g: GGUFWriter, tmp: str, out: str) -> None:
    try:
        g.write_header_to_file()
        g.write_kv_data_to_file()
        g.write_tensors_to_file()
        g.close()
        os.replace(tmp, out)
    except BaseException:
        g.close()
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _copy_fields(reader: GGUFReader, writer: GGUFWriter, n_vocab: int, tokens: list, types: list) -> None:
    arch = reader.get_field(Keys.General.ARCHITECTURE).contents()
    for field in reader.fields.values():
        name = field.name
        if name.startswith("GGUF.") or name == Keys.General.ARCHITECTURE:
            continue
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == GGUFValueType.ARRAY else None
        value = field.contents()
        if name == Keys.Tokenizer.LIST:
            value = tokens
        elif name == Keys.Tokenizer.TOKEN_TYPE:
            value = types
        elif name == f"{arch}.vocab_size":
            value = n_vocab
        elif name == Keys.General.NAME:
            value = f"{value} + SmolVLM-256M image tokens (harmonic-judge test model)"
        writer.add_key_value(name, value, vtype, sub_type=sub_type)


def write_text(src: str, out: str) -> None:
    reader = GGUFReader(src)
    tokens = list(reader.get_field(Keys.Tokenizer.LIST).contents())
    types = list(reader.get_field(Keys.Tokenizer.TOKEN_TYPE).contents())
    if len(tokens) != 49152 or any(t in tokens for t in ADDED_TOKENS):
        raise SystemExit(f"{src}: expected SmolLM2's 49152 tokens without SmolVLM's, got {len(tokens)}")
    tokens += ADDED_TOKENS
    types += [CONTROL] * len(ADDED_TOKENS)

    tmp = f"{out}.part"
    arch = reader.get_field(Keys.General.ARCHITECTURE).contents()
    writer = GGUFWriter(tmp, arch, endianess=reader.endianess)
    writer.data_alignment = reader.alignment
    _copy_fields(reader, writer, len(tokens), tokens, types)

    data = []
    for t in reader.tensors:
        arr = t.data
        if t.name == "token_embd.weight":
            # One row per token (quantized rows are whole blocks, so bytes copy as they are).
            spare = [SPARE_ROWS[k % len(SPARE_ROWS)] for k in range(len(ADDED_TOKENS))]
            arr = np.concatenate([arr, arr[spare]], axis=0)
        writer.add_tensor_info(t.name, arr.shape, arr.dtype, arr.nbytes, raw_dtype=t.tensor_type)
        data.append(arr)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for arr in data:
            writer.write_tensor_data(arr, tensor_endianess=reader.endianess)
        writer.close()
        os.replace(tmp, out)
    except BaseException:
        writer.close()
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("projector", help="the idefics3 projector, random weights")
    p.add_argument("out")
    p.add_argument("--no-preproc-size", action="store_true",
                   help="leave out clip.vision.preproc_image_size (no 2048 px tiling)")
    p.add_argument("--width", type=int, default=576, help="the text model's embedding width")
    p.add_argument("--q8", action="store_true", help="the matrices in Q8_0 instead of F16")
    t = sub.add_parser("text", help="SmolLM2 with SmolVLM-256M's image tokens")
    t.add_argument("src")
    t.add_argument("out")
    args = ap.parse_args()
    if args.what == "projector":
        write_projector(args.out, args.width, not args.no_preproc_size, args.q8)
    else:
        write_text(args.src, args.out)


if __name__ == "__main__":
    main()
