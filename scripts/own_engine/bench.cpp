// Throwaway timing harness (issue 42, part 4): prompt and generation tokens/s of a llama.cpp
// build, natively or under Node (V8, the engine Chromium runs the page's wasm on).
#include "llama.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "bench MODEL PROMPT_TOKENS [GEN]\n"); return 2; }
    int n_prompt = atoi(argv[2]);
    int n_gen = argc > 3 ? atoi(argv[3]) : 32;
    llama_backend_init();
    auto mp = llama_model_default_params();
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) { fprintf(stderr, "load failed\n"); return 1; }
    auto cp = llama_context_default_params();
    cp.n_ctx = 2048; cp.n_batch = 2048; cp.n_ubatch = 512; cp.n_threads = 1; cp.n_threads_batch = 1;
    llama_context *ctx = llama_init_from_model(model, cp);
    const llama_vocab *vocab = llama_model_get_vocab(model);
    std::string text;
    while ((int)text.size() < n_prompt * 8) text += "A small red boat floats on a calm lake under a grey sky, and two ducks swim beside it. ";
    std::vector<llama_token> toks(n_prompt * 8 + 16);
    int n = llama_tokenize(vocab, text.c_str(), text.size(), toks.data(), toks.size(), true, false);
    if (n < n_prompt) { fprintf(stderr, "too few tokens %d\n", n); return 1; }
    toks.resize(n_prompt);
    double t0 = now();
    if (llama_decode(ctx, llama_batch_get_one(toks.data(), n_prompt))) { fprintf(stderr, "decode failed\n"); return 1; }
    double t1 = now();
    auto *smpl = llama_sampler_init_greedy();
    llama_token tok;
    for (int i = 0; i < n_gen; i++) {
        tok = llama_sampler_sample(smpl, ctx, -1);
        if (llama_decode(ctx, llama_batch_get_one(&tok, 1))) { fprintf(stderr, "gen failed\n"); return 1; }
    }
    double t2 = now();
    printf("prompt %d tokens %.2f tok/s; generation %d tokens %.2f tok/s\n", n_prompt, n_prompt / (t1 - t0), n_gen, n_gen / (t2 - t1));
    return 0;
}
