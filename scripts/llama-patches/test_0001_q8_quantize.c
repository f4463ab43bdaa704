// The test of 0001-wasm-q8-quantize-round-to-nearest.patch: llama.cpp's WebAssembly
// quantize_row_q8_0 and quantize_row_q8_1 (ggml-cpu/arch/wasm/quants.c, what quantizes the
// activations of every Q8_0, Q4_0 and Q4_1 matrix product in the page) against the reference C
// (ggml-quants.c, which the native x86 and ARM paths match), block for block, on 131,072 values.
// Built with emscripten (-msimd128) with both files of the tree under test and run with node by
// tests/e2e/test_engine_patches.py: exit 0 when every block matches; unpatched, every block
// differs.
#include "ggml-common.h"
#include "ggml-quants.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void quantize_row_q8_0(const float * x, void * vy, int64_t k);
void quantize_row_q8_1(const float * x, void * vy, int64_t k);

// Declared by the CPU backend's headers the wasm file includes; unused here.
float ggml_table_f32_f16[1 << 16];

#define K (32 * 4096)
static float x[K];
static block_q8_0 got0[K / 32], want0[K / 32];
static block_q8_1 got1[K / 32], want1[K / 32];

int main(void) {
    unsigned s = 12345;
    for (int i = 0; i < K; i++) {
        s = s * 1103515245u + 12345u;
        // Sevenths up to ±143, and one block in 97 a thousand times smaller: scaled values
        // spread over every fraction, so truncation and rounding part ways often.
        x[i] = ((int) (s >> 8) % 2001 - 1000) / 7.0f * ((i / 32) % 97 ? 1.0f : 1e-3f);
    }
    quantize_row_q8_0(x, got0, K);
    quantize_row_q8_0_ref(x, want0, K);
    quantize_row_q8_1(x, got1, K);
    quantize_row_q8_1_ref(x, want1, K);
    long differ0 = 0, differ1 = 0;
    for (int b = 0; b < K / 32; b++) {
        differ0 += memcmp(&got0[b], &want0[b], sizeof got0[b]) != 0;
        differ1 += memcmp(&got1[b], &want1[b], sizeof got1[b]) != 0;
    }
    printf("q8_0: %d blocks, %ld differ from the reference\n", K / 32, differ0);
    printf("q8_1: %d blocks, %ld differ from the reference\n", K / 32, differ1);
    return differ0 != 0 || differ1 != 0;
}
