// Our own build of llama.cpp for the page (issue 42, part 4): libllama and llama.cpp's common
// library compiled here with Debian's emscripten (scripts/own_engine/build.sh), driven through
// the C functions below by worker.js. It answers one OpenAI-format chat request the way
// llama-server does, for the parts the app asks for:
//
// - the prompt: llama.cpp's own Jinja chat template code (common_chat_templates_apply), as
//   llama-server applies it, so a model's default system prompt and special tokens are the same;
// - sampling: llama.cpp's common sampler with llama-server's defaults and the request's
//   temperature, top_p and seed (temperature 0: greedy);
// - the logprobs: llama-server's default (before sampling): a softmax over every token's raw
//   logit at that position, the top `top_logprobs` listed, and the sampled token's own;
// - the text: each token's piece without special tokens, a token that ends inside a UTF-8
//   character held back until the character is whole (its alternatives then dropped, as
//   llama-server drops them), the end-of-generation token listed with an empty text.
//
// - images: with a projector loaded, each image_url part becomes llama.cpp's media marker in
//   the templated prompt and its bytes go through llama.cpp's mtmd library, as llama-server
//   does; without one, a request with an image is refused with llama-server's words.
//
// - each image view is encoded once (issue 57): its embeddings are kept, keyed by the image's
//   bytes (mtmd's SHA-256 id), the view's place and its token count, for as long as the
//   projector is loaded and within EMBD_CACHE_BYTES, so a second criterion, candidate, Explain
//   or lab row with the same image reads them instead of running the vision tower again;
// - the image detail (`image_url.detail`, OpenAI's field, which llama-server ignores): "high"
//   reads every view the projector's file asks for; "low" reads the global view alone, as
//   SmolVLM's processor writes an image it does not split (transformers'
//   processing_idefics3.py, `_prompt_single_image`: <fake_token_around_image><global-img>
//   <image>x64<fake_token_around_image>), where the projector tiles that way (idefics3's
//   layout, checked token by token; elsewhere every view is read); none ("auto") encodes the
//   global view first, times it, and reads every view only when they would take at most
//   AUTO_BUDGET_MS on this device, else the global view alone. Decided once per image and load.
//
// - prompt prefixes are reused (issue 71), as llama-server's cache_prompt, but so that the numbers
//   are those of a fresh read: a prompt is decoded in units (UNIT text tokens from the start of
//   each text piece, or one view), and a new request keeps the longest run of whole units that
//   match, token for token and view for view (the image's SHA-256, the view's place and detail),
//   of what the cache holds or of a kept copy of an earlier prompt's cache (up to SAVED_BYTES,
//   least recently used first), and decodes the rest. The kept units sit in the same cells, at
//   the same positions, and the rest is decoded in the same batches as a fresh read would, so
//   the logits are the same bits (ggml's CPU attention groups cells in tiles of 64 and batches
//   of 64 queries or more take another path than smaller ones: docs/performance.md). The last
//   unit is always decoded again (its logits are the answer's first). `"hj_fresh": true` in a
//   request reads it afresh (the measurement's baseline); `timings.cache_n` counts the tokens
//   taken from the cache, as llama-server's does.
//
// One request at a time, in steps, so that the worker can hear a cancel between them:
// hj_begin (template and tokens), hj_prefill (one unit of the prompt, or one view of an image),
// hj_step (one token), hj_result (the answer's JSON); hj_progress says where a request is;
// hj_text and hj_stop let the worker end an answer by the request's stop rule (`hj_stop`:
// {after: a regular expression, flags, note}), which the core sends where the score needs
// nothing after the match (crates/core/src/providers/in_browser/stop.rs).
#include <emscripten/emscripten.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <unistd.h>

#include "chat.h"
#include "common.h"
#include "gguf.h"
#include "json.h"
#include "log.h"
#include "llama.h"
#include "mtmd-helper.h"
#include "mtmd.h"
#include "sampling.h"

namespace {

// The most bytes of image embeddings kept (SmolVLM-256M: 64 tokens x 576 floats, 147 KiB a
// view, so about 450 views); the least recently used go first.
constexpr size_t EMBD_CACHE_BYTES = 64u << 20;
// "auto" reads every view of an image when they would take at most this long here.
constexpr double AUTO_BUDGET_MS = 20000;
// Text tokens decoded at once: ggml's tile of queries (GGML_FA_TILE_Q), so that a unit is
// decoded by the same kernel whether or not the units before it came from the cache.
constexpr size_t UNIT = 64;
// The most bytes of earlier prompts' caches kept beside the live one (SmolLM2-135M: 23 KiB a
// token, so about ten 400-token prompts); the least recently used go first.
constexpr size_t SAVED_BYTES = 96u << 20;

// A projector's F16 tensors are held as F32 (issue 71) when that adds at most this many bytes
// (SmolVLM-256M's: 181 MB more); a larger one keeps F16.
constexpr size_t WIDEN_MAX_ADDED = 512000000;
// Where the F32 copy is written for mtmd to read (the worker's memory file system); removed
// once the projector is loaded.
constexpr const char *WIDENED_PATH = "/tmp/hj-projector-f32.gguf";

// One piece of the prompt as it is read: text tokens, or one view of an image.
struct item {
    std::vector<llama_token> tokens;           // text
    const mtmd_input_chunk *chunk = nullptr;   // a view (owned by state::chunks)
    std::string key;                           // the view's cache key
};

// The views of one image in the tokenized prompt (mtmd gives every view the image's id).
struct image_views {
    std::string id;
    std::vector<size_t> at;      // indexes into the chunks, in order
    bool can_low = false;        // the global view can be read alone (idefics3's layout)
    size_t global = 0;           // which of `at` is the global view
    std::string detail;          // "low", "high", or "" (auto)
};

// One unit of a prompt as decoded: text tokens, or one view (its cache key). Equal units read
// after equal units leave the same cache.
struct unit {
    std::vector<llama_token> tokens;
    std::string key;
    const mtmd_input_chunk *chunk = nullptr;  // this request's view (not compared)
    bool operator==(const unit &o) const { return key == o.key && tokens == o.tokens; }
};

// An earlier prompt's cache (llama_state_seq_get_data of sequence 0 after its prompt), its
// units and the position after each.
struct saved_prompt {
    std::vector<unit> units;
    std::vector<llama_pos> ends;
    std::vector<uint8_t> state;
};

struct embd_cache {
    std::list<std::pair<std::string, std::vector<float>>> lru;  // most recent first
    std::unordered_map<std::string, decltype(lru)::iterator> at;
    size_t bytes = 0;
    const std::vector<float> *get(const std::string &k) {
        auto it = at.find(k);
        if (it == at.end()) return nullptr;
        lru.splice(lru.begin(), lru, it->second);
        return &it->second->second;
    }
    void put(const std::string &k, const float *v, size_t n) {
        if (at.count(k)) return;
        lru.emplace_front(k, std::vector<float>(v, v + n));
        at[k] = lru.begin();
        bytes += n * sizeof(float);
        while (bytes > EMBD_CACHE_BYTES && lru.size() > 1) {
            bytes -= lru.back().second.size() * sizeof(float);
            at.erase(lru.back().first);
            lru.pop_back();
        }
    }
    void clear() {
        lru.clear();
        at.clear();
        bytes = 0;
    }
};

struct step {
    llama_token tok;
    std::string text;  // what this step adds to the answer's text
    float prob;
    std::vector<std::pair<llama_token, float>> top;
};

struct state {
    llama_model *model = nullptr;
    llama_context *ctx = nullptr;
    common_chat_templates_ptr tmpls;
    mtmd_context *mtmd = nullptr;
    std::string name;
    // the request in progress
    common_sampler *smpl = nullptr;
    std::vector<llama_token> prompt;  // a prompt without images: its tokens
    size_t fed = 0;
    bool fresh = false;          // "hj_fresh": nothing taken from the cache
    std::vector<unit> units;     // the prompt as it is decoded, once planned
    size_t unit_next = 0;        // the next unit to decode
    size_t cache_n = 0;          // prompt tokens taken from the cache
    // what sequence 0 of the cache holds: the prompt units decoded (their ends' positions),
    // then possibly the tokens an answer wrote; and earlier prompts' caches
    std::vector<unit> kv_units;
    std::vector<llama_pos> kv_ends;
    std::list<saved_prompt> saved;
    size_t saved_bytes = 0;
    // a prompt with images: mtmd's chunks, the images in them, and the plan read from them
    // (one item per hj_prefill), made once every "auto" image is decided
    mtmd_input_chunks *chunks = nullptr;
    std::vector<image_views> images;
    std::vector<item> plan;
    bool planned = false;
    bool matched = false;  // take_prefix has run
    llama_pos n_past = 0;
    // this request's views: read, encoded here, taken from the cache; encoding's time
    int views = 0, views_full = 0, view_now = 0, encoded = 0, reused = 0;
    double encode_ms = 0;
    std::string error;  // why hj_prefill returned -2
    std::set<std::string> encoded_now;  // views this request encoded (not counted as reused)
    size_t n_prompt = 0;
    int n_predict = -1;
    int n_probs = 0;
    std::vector<step> steps;
    std::string text;
    size_t sent = 0;  // bytes of `text` already given to a step
    int n_gen = 0;
    bool done = false;
    std::string finish = "stop";
    std::string note;  // added to the text where a stop rule ended the answer (hj_stop)
    double t_start = 0, t_prompt = 0, t_gen = 0;
    std::string out;
    // since the projector was loaded: embeddings kept, views encoded and their time, and the
    // detail each image got ("auto" decides once per image)
    embd_cache cache;
    int encoded_total = 0, reused_total = 0;
    double encode_ms_total = 0;
    std::map<std::string, bool> full_views;  // image id -> every view read (else the global)
};

state S;

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// llama.cpp's log lines go to the worker, which keeps the last few: a refused file says why.
void on_log(ggml_log_level level, const char *text, void *) {
    if (level >= GGML_LOG_LEVEL_INFO || level == GGML_LOG_LEVEL_CONT) fputs(text, stderr);
}

const char *answer(const std::string &s) {
    S.out = s;
    return S.out.c_str();
}

const char *error(int status, const std::string &msg) {
    common_json e = common_json::object();
    e["status"] = status;
    e["message"] = msg;
    return answer(e.dump_safe());
}

// The bytes of a `data:…;base64,…` URL (the app sends images so), or nothing.
std::vector<unsigned char> data_url_bytes(const std::string &url) {
    std::vector<unsigned char> out;
    size_t comma = url.find(',');
    if (url.rfind("data:", 0) != 0 || comma == std::string::npos) return out;
    if (url.substr(0, comma).find(";base64") == std::string::npos) return out;
    unsigned int acc = 0;
    int bits = 0;
    for (size_t i = comma + 1; i < url.size(); ++i) {
        char c = url[i];
        int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
              : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' ? 62 : c == '/' ? 63 : -1;
        if (v < 0) continue;  // padding, whitespace
        acc = (acc << 6) | (unsigned) v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back((unsigned char) ((acc >> bits) & 0xFF));
        }
    }
    return out;
}

// Bytes of `s` up to the last whole UTF-8 character: a token may end inside one.
size_t whole_utf8(const std::string &s) {
    size_t n = s.size();
    for (size_t back = 1; back <= 4 && back <= n; ++back) {
        unsigned char c = s[n - back];
        size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (need) return back < need ? n - back : n;
        if ((c & 0xC0) != 0x80) return n;  // an ASCII byte: nothing is cut
    }
    return n;
}

std::string piece(llama_token t) {
    return common_token_to_piece(S.ctx, t, false);
}

void end_request() {
    if (S.smpl) common_sampler_free(S.smpl);
    S.smpl = nullptr;
    if (S.chunks) mtmd_input_chunks_free(S.chunks);
    S.chunks = nullptr;
    S.images.clear();
    S.plan.clear();
    S.planned = false;
    S.matched = false;
    S.units.clear();
    S.prompt.clear();
    S.steps.clear();
    S.text.clear();
    S.note.clear();
    S.encoded_now.clear();
}

// The token that `text` is, or -1 when it is not one token in this vocabulary.
llama_token single_token(const char *text) {
    std::vector<llama_token> t = common_tokenize(S.ctx, text, false, true);
    return t.size() == 1 ? t[0] : -1;
}

// Whether text chunk `i` ends with `a` `b` (b < 0: any token).
bool text_ends_with(size_t i, llama_token a, llama_token b) {
    const mtmd_input_chunk *c = mtmd_input_chunks_get(S.chunks, i);
    if (mtmd_input_chunk_get_type(c) != MTMD_INPUT_CHUNK_TYPE_TEXT) return false;
    size_t n = 0;
    const llama_token *t = mtmd_input_chunk_get_tokens_text(c, &n);
    return n >= 2 && t[n - 2] == a && (b < 0 || t[n - 1] == b);
}

// The images in the tokenized prompt, their views in order, and whether the global view can be
// read alone: idefics3's layout, where the tiles come first, each after
// <fake_token_around_image><row_y_col_x>, and the global view last, after
// <fake_token_around_image><global-img> (mtmd.cpp's MTMD_SLICE_TMPL_IDEFICS3).
void find_images(const std::vector<std::string> &details) {
    const llama_token fake = single_token("<fake_token_around_image>");
    const llama_token global = single_token("<global-img>");
    const llama_token first_tile = single_token("<row_1_col_1>");
    size_t count = mtmd_input_chunks_size(S.chunks);
    for (size_t i = 0; i < count; ++i) {
        const mtmd_input_chunk *c = mtmd_input_chunks_get(S.chunks, i);
        if (mtmd_input_chunk_get_type(c) != MTMD_INPUT_CHUNK_TYPE_IMAGE) continue;
        std::string id = mtmd_input_chunk_get_id(c) ? mtmd_input_chunk_get_id(c) : "";
        if (S.images.empty() || S.images.back().id != id) S.images.push_back({id, {}, false, 0, ""});
        S.images.back().at.push_back(i);
    }
    for (size_t k = 0; k < S.images.size(); ++k) {
        image_views &im = S.images[k];
        im.detail = k < details.size() ? details[k] : "";
        size_t first = im.at.front(), last = im.at.back();
        im.global = im.at.size() - 1;
        im.can_low = im.at.size() > 1 && fake >= 0 && global >= 0 && first_tile >= 0 && first > 0 &&
                     text_ends_with(first - 1, fake, first_tile) && text_ends_with(last - 1, fake, global);
    }
}

std::string view_key(const image_views &im, size_t k) {
    const mtmd_input_chunk *c = mtmd_input_chunks_get(S.chunks, im.at[k]);
    return im.id + "#" + std::to_string(k) + "/" + std::to_string(im.at.size()) + "#" +
           std::to_string(mtmd_input_chunk_get_n_tokens(c));
}

double ms_per_view() {
    return S.encoded_total > 0 ? S.encode_ms_total / S.encoded_total : 0;
}

// Runs the vision tower on one view and keeps its embeddings. False when llama.cpp failed.
bool encode_view(const mtmd_input_chunk *c, const std::string &key) {
    double t0 = now_ms();
    if (mtmd_encode_chunk(S.mtmd, c) != 0) return false;
    const float *embd = mtmd_get_output_embd(S.mtmd);
    size_t n = mtmd_input_chunk_get_n_tokens(c) * (size_t) llama_model_n_embd_inp(S.model);
    S.cache.put(key, embd, n);
    double dt = now_ms() - t0;
    S.encode_ms += dt;
    S.encode_ms_total += dt;
    ++S.encoded;
    ++S.encoded_total;
    S.encoded_now.insert(key);
    return true;
}

// Whether image `im` is read whole (every view) or by its global view alone.
bool reads_every_view(const image_views &im) {
    if (!im.can_low || im.detail == "high") return true;
    if (im.detail == "low") return false;
    auto it = S.full_views.find(im.id);
    return it != S.full_views.end() && it->second;
}

// The prompt as it will be read, once every image's views are decided. False (with S.error)
// when it does not fit the context.
bool make_plan() {
    size_t count = mtmd_input_chunks_size(S.chunks);
    std::vector<bool> drop(count, false);
    std::map<size_t, size_t> cut_tail, keep_tail;  // text chunk -> tokens cut from / kept at its end
    std::map<size_t, std::string> keys;
    S.views = S.views_full = 0;
    for (const image_views &im : S.images) {
        S.views_full += (int) im.at.size();
        if (reads_every_view(im)) {
            S.views += (int) im.at.size();
            for (size_t k = 0; k < im.at.size(); ++k) keys[im.at[k]] = view_key(im, k);
            continue;
        }
        // the global view alone: <fake_token_around_image><global-img> view <fake_token_around_image>
        size_t first = im.at.front(), global = im.at[im.global];
        cut_tail[first - 1] = 2;  // <fake_token_around_image><row_1_col_1>
        for (size_t j = first; j < global - 1; ++j) drop[j] = true;  // the tiles and their labels
        keep_tail[global - 1] = 2;  // "\n\n" dropped
        keys[global] = view_key(im, im.global);
        S.views += 1;
    }
    S.plan.clear();
    S.n_prompt = 0;
    for (size_t i = 0; i < count; ++i) {
        if (drop[i]) continue;
        const mtmd_input_chunk *c = mtmd_input_chunks_get(S.chunks, i);
        item it;
        if (mtmd_input_chunk_get_type(c) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
            size_t n = 0;
            const llama_token *t = mtmd_input_chunk_get_tokens_text(c, &n);
            size_t from = keep_tail.count(i) ? n - std::min(n, keep_tail[i]) : 0;
            size_t to = cut_tail.count(i) ? n - std::min(n, cut_tail[i]) : n;
            if (from >= to) continue;
            it.tokens.assign(t + from, t + to);
            S.n_prompt += it.tokens.size();
        } else if (mtmd_input_chunk_get_type(c) == MTMD_INPUT_CHUNK_TYPE_IMAGE && keys.count(i)) {
            it.chunk = c;
            it.key = keys[i];
            S.n_prompt += mtmd_input_chunk_get_n_tokens(c);
        } else {
            S.error = "this engine reads text and images only";
            return false;
        }
        S.plan.push_back(std::move(it));
    }
    S.planned = true;
    if (S.plan.empty() || S.plan.back().chunk) {
        S.error = "the prompt must end with text after its images";
        return false;
    }
    if ((int) S.n_prompt >= (int) llama_n_ctx(S.ctx)) {
        S.error = "the request exceeds the available context size (" + std::to_string(S.n_prompt) + " tokens, " +
                  std::to_string(llama_n_ctx(S.ctx)) + " available)";
        return false;
    }
    return true;
}

// The prompt's units, once it is planned: each text piece in UNIT tokens from its start, each
// view alone (a prompt without images: its tokens as one text piece).
void make_units() {
    S.units.clear();
    auto text = [](const llama_token *t, size_t n) {
        for (size_t at = 0; at < n; at += UNIT) {
            unit u;
            u.tokens.assign(t + at, t + std::min(n, at + UNIT));
            S.units.push_back(std::move(u));
        }
    };
    if (!S.chunks) {
        text(S.prompt.data(), S.prompt.size());
    } else {
        for (const item &it : S.plan) {
            if (!it.chunk) {
                text(it.tokens.data(), it.tokens.size());
                continue;
            }
            unit u;
            u.key = it.key;
            u.chunk = it.chunk;
            S.units.push_back(std::move(u));
        }
    }
    S.unit_next = 0;
    S.planned = true;
}

// How many units from the start `a` shares with this request's.
size_t common_units(const std::vector<unit> &a) {
    size_t n = 0;
    while (n < a.size() && n < S.units.size() && a[n] == S.units[n]) ++n;
    return n;
}

// Before the first unit is decoded: keeps the longest run of this prompt's units that the cache
// holds, or that a kept earlier prompt holds (then put back in the cache first), all but the
// last unit at most; drops the rest of the cache (the earlier answer's tokens too).
void take_prefix() {
    llama_memory_t mem = llama_get_memory(S.ctx);
    const size_t most = S.units.size() - 1;
    size_t live = S.fresh ? 0 : std::min(most, common_units(S.kv_units));
    size_t best = live;
    std::list<saved_prompt>::iterator from = S.saved.end();
    if (!S.fresh) {
        for (auto it = S.saved.begin(); it != S.saved.end(); ++it) {
            size_t m = std::min(most, common_units(it->units));
            if (m > best) {
                best = m;
                from = it;
            }
        }
    }
    if (from != S.saved.end()) {
        llama_memory_clear(mem, true);
        if (llama_state_seq_set_data(S.ctx, from->state.data(), from->state.size(), 0) == 0) {
            best = 0;
        } else {
            S.kv_units = from->units;
            S.kv_ends = from->ends;
            S.saved.splice(S.saved.begin(), S.saved, from);  // most recently used
        }
    }
    if (best == 0) {
        llama_memory_clear(mem, true);
        S.kv_units.clear();
        S.kv_ends.clear();
    } else {
        llama_memory_seq_rm(mem, 0, S.kv_ends[best - 1], -1);
        S.kv_units.resize(best);
        S.kv_ends.resize(best);
    }
    S.unit_next = best;
    S.n_past = best ? S.kv_ends[best - 1] : 0;
    S.fed = S.cache_n = 0;
    for (size_t i = 0; i < best; ++i) {
        const unit &u = S.units[i];
        size_t n = u.chunk ? mtmd_input_chunk_get_n_tokens(u.chunk) : u.tokens.size();
        S.fed += n;
        S.cache_n += n;
        if (u.chunk) {  // a view read from the cache: taken from memory
            ++S.view_now;
            ++S.reused;
            ++S.reused_total;
        }
    }
}

// After the prompt: a copy of the cache kept for later prompts that share a part of it (those
// it contains are dropped), within SAVED_BYTES.
void save_prompt() {
    for (auto it = S.saved.begin(); it != S.saved.end();) {
        bool within = it->units.size() <= S.kv_units.size() &&
                      std::equal(it->units.begin(), it->units.end(), S.kv_units.begin());
        if (within) {
            S.saved_bytes -= it->state.size();
            it = S.saved.erase(it);
        } else {
            ++it;
        }
    }
    size_t n = llama_state_seq_get_size(S.ctx, 0);
    if (n == 0 || n > SAVED_BYTES) return;
    saved_prompt sp;
    sp.units = S.kv_units;
    sp.ends = S.kv_ends;
    sp.state.resize(n);
    if (llama_state_seq_get_data(S.ctx, sp.state.data(), n, 0) == 0) return;
    S.saved_bytes += n;
    S.saved.push_front(std::move(sp));
    while (S.saved_bytes > SAVED_BYTES && !S.saved.empty()) {
        S.saved_bytes -= S.saved.back().state.size();
        S.saved.pop_back();
    }
}

// Reads the next unit of the prompt: UNIT tokens of text at most, or one view. Returns what is
// left (at least 1 until the end), -1 when llama.cpp failed, -2 with S.error.
int prefill_units() {
    if (!S.planned) {
        // An "auto" image not decided yet: encode its global view (needed either way), time it,
        // and read every view only when they would take at most AUTO_BUDGET_MS here.
        for (const image_views &im : S.images) {
            if (!im.can_low || !im.detail.empty() || S.full_views.count(im.id)) continue;
            std::string key = view_key(im, im.global);
            if (!S.cache.get(key) && !encode_view(mtmd_input_chunks_get(S.chunks, im.at[im.global]), key)) return -1;
            S.full_views[im.id] = ms_per_view() * (double) im.at.size() <= AUTO_BUDGET_MS;
            return (int) std::max<size_t>(1, S.n_prompt);
        }
        if (!make_plan()) return -2;
        make_units();
    }
    if (!S.matched) {
        take_prefix();
        S.matched = true;
    }
    if (S.unit_next < S.units.size()) {
        const unit &u = S.units[S.unit_next];
        const bool last = S.unit_next + 1 == S.units.size();
        if (u.chunk) {
            const std::vector<float> *e = S.cache.get(u.key);
            if (!e) {
                if (!encode_view(u.chunk, u.key)) return -1;
                e = S.cache.get(u.key);
            } else if (!S.encoded_now.count(u.key)) {
                ++S.reused;
                ++S.reused_total;
            }
            ++S.view_now;
            llama_pos next = S.n_past;
            std::vector<float> embd(*e);  // a copy: the cache may move while llama.cpp reads
            if (mtmd_helper_decode_image_chunk(S.mtmd, S.ctx, u.chunk, embd.data(), S.n_past, 0, 512, &next, nullptr, nullptr) != 0)
                return -1;
            S.n_past = next;
            S.fed += mtmd_input_chunk_get_n_tokens(u.chunk);
        } else {
            size_t take = u.tokens.size();
            llama_batch b = llama_batch_init((int32_t) take, 0, 1);
            b.n_tokens = (int32_t) take;
            for (size_t i = 0; i < take; ++i) {
                b.token[i] = u.tokens[i];
                b.pos[i] = S.n_past + (llama_pos) i;
                b.n_seq_id[i] = 1;
                b.seq_id[i][0] = 0;
                b.logits[i] = last && i + 1 == take;  // logits for the prompt's last token only
            }
            int rc = llama_decode(S.ctx, b);
            llama_batch_free(b);
            if (rc != 0) return -1;
            S.n_past += (llama_pos) take;
            S.fed += take;
        }
        unit kept = u;
        kept.chunk = nullptr;  // this request's, freed with it
        S.kv_units.push_back(std::move(kept));
        S.kv_ends.push_back(S.n_past);
        ++S.unit_next;
    }
    if (S.unit_next == S.units.size()) {
        S.fed = S.n_prompt;
        if (!S.chunks)
            for (llama_token t : S.prompt) common_sampler_accept(S.smpl, t, false);
        S.t_prompt = now_ms() - S.t_start;
        save_prompt();
        return 0;
    }
    return (int) std::max<size_t>(1, S.n_prompt - std::min(S.fed, S.n_prompt));
}

// The projector file mtmd should load. llama.cpp's WebAssembly build converts each F16 element
// alone in F16 products and has SIMD products for F32, so an F16 tower encodes a view 3.6 to 5
// times slower than the same tower in Q8_0 or F32 (docs/performance.md). A projector with F16
// tensors is therefore copied with them widened to F32 (every value exact; the products then
// read the activations in F32 instead of rounding them to F16, as native F16 products do:
// docs/performance.md measures the difference against native llama-server), into a file in
// memory that is removed once the projector is loaded. `facts` says what was done, or why
// nothing was.
std::string widened_projector(const char *path, common_json &facts) {
    ggml_context *meta = nullptr;
    gguf_init_params ip = {true, &meta};
    gguf_context *src = gguf_init_from_file(path, ip);
    if (!src) return path;  // mtmd says what is wrong with it
    gguf_context *dst = nullptr;
    FILE *in = nullptr, *out = nullptr;
    auto done = [&](const std::string &use) {
        if (out) fclose(out);
        if (in) fclose(in);
        if (dst) gguf_free(dst);
        gguf_free(src);
        if (meta) ggml_free(meta);
        if (use == path) remove(WIDENED_PATH);
        return use;
    };
    const int64_t n = gguf_get_n_tensors(src);
    size_t f16 = 0;
    int count = 0;
    for (int64_t i = 0; i < n; ++i)
        if (gguf_get_tensor_type(src, i) == GGML_TYPE_F16) {
            f16 += gguf_get_tensor_size(src, i);
            ++count;
        }
    if (count == 0) return done(path);
    facts["f16_tensors"] = count;
    facts["added_bytes"] = f16;
    if (f16 > WIDEN_MAX_ADDED) {
        facts["kept"] = "too_large";
        return done(path);
    }
    const double t0 = now_ms();
    dst = gguf_init_empty();
    gguf_set_kv(dst, src);
    // The copy is written at the default alignment, which its readers then assume.
    gguf_remove_key(dst, "general.alignment");
    for (int64_t i = 0; i < n; ++i) {
        const char *name = gguf_get_tensor_name(src, i);
        gguf_add_tensor(dst, ggml_get_tensor(meta, name));
        if (gguf_get_tensor_type(src, i) == GGML_TYPE_F16) gguf_set_tensor_type(dst, name, GGML_TYPE_F32);
    }
    const size_t head = gguf_get_meta_size(dst);
    const size_t align = gguf_get_alignment(dst);
    const size_t last = gguf_get_tensor_offset(dst, n - 1) + gguf_get_tensor_size(dst, n - 1);
    const size_t total = head + (last + align - 1) / align * align;
    std::vector<uint8_t> meta_bytes(head);
    gguf_get_meta_data(dst, meta_bytes.data());
    in = fopen(path, "rb");
    out = fopen(WIDENED_PATH, "wb");
    // One allocation of the whole file first (the memory file system grows a file by copies).
    bool ok = in && out && ftruncate(fileno(out), (off_t) total) == 0 &&
              fwrite(meta_bytes.data(), 1, head, out) == head;
    constexpr size_t CHUNK = 1u << 20;  // elements per read
    std::vector<uint8_t> buf(CHUNK * sizeof(ggml_fp16_t));
    std::vector<float> wide(CHUNK);
    const size_t data = gguf_get_data_offset(src);
    for (int64_t i = 0; ok && i < n; ++i) {
        const bool half = gguf_get_tensor_type(src, i) == GGML_TYPE_F16;
        const size_t bytes = gguf_get_tensor_size(src, i);
        ok = fseek(in, (long) (data + gguf_get_tensor_offset(src, i)), SEEK_SET) == 0 &&
             fseek(out, (long) (head + gguf_get_tensor_offset(dst, i)), SEEK_SET) == 0;
        for (size_t at = 0; ok && at < bytes;) {
            const size_t take = std::min(bytes - at, buf.size());
            ok = fread(buf.data(), 1, take, in) == take;
            if (!ok) break;
            if (half) {
                const size_t k = take / sizeof(ggml_fp16_t);
                ggml_fp16_to_fp32_row((const ggml_fp16_t *) buf.data(), wide.data(), (int64_t) k);
                ok = fwrite(wide.data(), sizeof(float), k, out) == k;
            } else {
                ok = fwrite(buf.data(), 1, take, out) == take;
            }
            at += take;
        }
    }
    if (out) ok = fclose(out) == 0 && ok;
    out = nullptr;
    if (!ok) {
        facts["kept"] = "no_memory";
        return done(path);
    }
    facts["widened"] = true;
    facts["ms"] = now_ms() - t0;
    return done(WIDENED_PATH);
}

}  // namespace

extern "C" {

// Loads the GGUF at `path` (a file the worker mounted), computing on `n_threads` threads (1
// in the one-thread build; the threaded build's worker has that many less one made already).
// Returns {"n_vocab", "n_ctx", "vision", "threads"} and, for a projector with F16 tensors,
// "projector": {"f16_tensors", "added_bytes", and "widened" (with "ms") or "kept" ("too_large",
// "no_memory")} (widened_projector); or {"status", "message"}.
EMSCRIPTEN_KEEPALIVE const char *hj_load(const char *path, const char *projector, const char *name, int n_ctx,
                                         int n_threads) {
    try {
        common_log_set_verbosity_thold(-1);  // common's logger would start a thread: none here
        llama_log_set(on_log, nullptr);
        llama_backend_init();
        if (S.mtmd) mtmd_free(S.mtmd);
        S.mtmd = nullptr;
        if (S.ctx) llama_free(S.ctx);
        if (S.model) llama_model_free(S.model);
        S.ctx = nullptr;
        S.model = nullptr;
        S.tmpls.reset();
        auto mp = llama_model_default_params();
        mp.load_mode = LLAMA_LOAD_MODE_NONE;  // read into memory once: the file is the worker's blob
        mp.n_gpu_layers = 0;
        S.model = llama_model_load_from_file(path, mp);
        if (!S.model) return error(500, "llama.cpp refused the file");
        auto cp = llama_context_default_params();
        cp.n_ctx = n_ctx;
        cp.n_batch = 2048;  // llama-server's defaults
        cp.n_ubatch = 512;
        n_threads = std::max(1, n_threads);
        cp.n_threads = n_threads;
        cp.n_threads_batch = n_threads;
        S.ctx = llama_init_from_model(S.model, cp);
        if (!S.ctx) return error(500, "llama.cpp could not make a context (out of memory?)");
        S.tmpls = common_chat_templates_init(S.model, "");
        common_json projector_facts = common_json::object();
        if (projector && *projector) {
            mtmd_helper_log_set(on_log, nullptr);
            auto pp = mtmd_context_params_default();
            pp.use_gpu = false;
            pp.n_threads = n_threads;
            pp.print_timings = false;
            pp.media_marker = mtmd_default_marker();
            const std::string file = widened_projector(projector, projector_facts);
            S.mtmd = mtmd_init_from_file(file.c_str(), S.model, pp);
            remove(WIDENED_PATH);
            if (!S.mtmd) return error(500, "llama.cpp refused the projector");
        }
        S.name = name;
        S.kv_units.clear();
        S.kv_ends.clear();
        S.saved.clear();
        S.saved_bytes = 0;
        S.cache.clear();
        S.full_views.clear();
        S.encoded_total = S.reused_total = 0;
        S.encode_ms_total = 0;
        common_json r = common_json::object();
        r["vision"] = S.mtmd != nullptr && mtmd_support_vision(S.mtmd);
        r["n_vocab"] = llama_vocab_n_tokens(llama_model_get_vocab(S.model));
        r["n_ctx"] = (int) llama_n_ctx(S.ctx);
        r["threads"] = n_threads;
        if (!projector_facts.empty()) r["projector"] = projector_facts;
        return answer(r.dump_safe());
    } catch (const std::exception &e) {
        return error(500, e.what());
    }
}

// Starts a chat completion from the request's JSON text. Returns {"n_prompt"} or
// {"status", "message"}, as llama-server would refuse it.
EMSCRIPTEN_KEEPALIVE const char *hj_begin(const char *body) {
    end_request();
    if (!S.ctx) return error(503, "no model is loaded");
    try {
        common_json req = common_json::parse(body);
        if (!req.contains("messages") || !req["messages"].is_array())
            return error(400, "'messages' is required");
        // Each image becomes the media marker, its bytes kept in order (llama-server's way).
        std::vector<std::vector<unsigned char>> images;
        std::vector<std::string> details;  // each image's `detail` ("" when not sent: auto)
        common_json &msgs = req["messages"];
        for (size_t i = 0; i < msgs.size(); ++i) {
            common_json &m = msgs[i];
            if (!m.contains("content") || !m["content"].is_array()) continue;
            common_json &parts = m["content"];
            for (size_t j = 0; j < parts.size(); ++j) {
                std::string type = parts[j].value("type", std::string());
                if (type == "text") continue;
                if (type != "image_url" || !S.mtmd)
                    return error(500, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj");
                std::string url = parts[j].contains("image_url") ? parts[j]["image_url"].value("url", std::string()) : "";
                images.push_back(data_url_bytes(url));
                std::string detail = parts[j]["image_url"].is_object() ? parts[j]["image_url"].value("detail", std::string()) : "";
                details.push_back(detail == "low" || detail == "high" ? detail : "");
                if (images.back().empty()) return error(400, "the image is not a base64 data URL");
                common_json marker = common_json::object();
                marker["type"] = "media_marker";
                marker["text"] = mtmd_default_marker();
                parts[j] = marker;
            }
        }
        common_chat_templates_inputs in;
        in.messages = common_chat_msgs_parse_oaicompat(req["messages"]);
        in.use_jinja = true;
        in.add_generation_prompt = true;
        common_chat_params chat = common_chat_templates_apply(S.tmpls.get(), in);
        S.n_past = 0;
        S.views = S.views_full = S.view_now = S.encoded = S.reused = 0;
        S.encode_ms = 0;
        S.cache_n = 0;
        S.fresh = req.value("hj_fresh", false);
        if (images.empty()) {
            S.prompt = common_tokenize(S.ctx, chat.prompt, true, true);
            S.n_prompt = S.prompt.size();
            if (!S.prompt.empty()) make_units();
        } else {
            std::vector<mtmd_bitmap *> bitmaps;
            auto opt = mtmd_helper_init_opt_default();
            for (auto &img : images) {
                auto w = mtmd_helper_bitmap_init_from_buf(S.mtmd, img.data(), img.size(), false, opt);
                if (!w.bitmap) {
                    for (auto *b : bitmaps) mtmd_bitmap_free(b);
                    return error(400, "Failed to load image or audio file");
                }
                bitmaps.push_back(w.bitmap);
            }
            mtmd_input_text text{chat.prompt.c_str(), chat.prompt.size(), true, true};
            S.chunks = mtmd_input_chunks_init();
            int32_t rc = mtmd_tokenize(S.mtmd, S.chunks, &text, (const mtmd_bitmap **) bitmaps.data(), bitmaps.size());
            for (auto *b : bitmaps) mtmd_bitmap_free(b);
            if (rc != 0) return error(400, "Failed to tokenize prompt");
            // llama-server's check of every prompt token: a text model without the tokens the
            // projector wraps views in (SmolLM2 with SmolVLM's projector) is refused so.
            const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(S.model));
            for (size_t i = 0; i < mtmd_input_chunks_size(S.chunks); ++i) {
                size_t n = 0;
                const llama_token *t = mtmd_input_chunk_get_tokens_text(mtmd_input_chunks_get(S.chunks, i), &n);
                for (size_t k = 0; t && k < n; ++k)
                    if (t[k] < 0 || t[k] >= n_vocab) return error(400, "Invalid token");
            }
            S.n_prompt = mtmd_helper_get_n_tokens(S.chunks);
            find_images(details);
            bool undecided = false;
            for (const image_views &im : S.images)
                undecided = undecided || (im.can_low && im.detail.empty() && !S.full_views.count(im.id));
            if (!undecided) {
                if (!make_plan()) return error(400, S.error);
                make_units();
            }
        }
        if (S.n_prompt == 0) return error(400, "the prompt is empty");
        if (!S.chunks && (int) S.n_prompt >= (int) llama_n_ctx(S.ctx))
            return error(400, "the request exceeds the available context size (" + std::to_string(S.n_prompt) +
                                  " tokens, " + std::to_string(llama_n_ctx(S.ctx)) + " available)");
        common_params_sampling sp;
        sp.temp = req.value("temperature", 0.8f);
        sp.top_p = req.value("top_p", 0.95f);
        if (req.contains("seed") && req["seed"].is_number()) sp.seed = req.value("seed", (uint32_t) LLAMA_DEFAULT_SEED);
        if (req.value("ignore_eos", false)) {  // llama-server's way: the end tokens never win
            const llama_vocab *vocab = llama_model_get_vocab(S.model);
            for (llama_token t = 0; t < llama_vocab_n_tokens(vocab); ++t)
                if (llama_vocab_is_eog(vocab, t)) sp.logit_bias.push_back({t, -INFINITY});
        }
        S.smpl = common_sampler_init(S.model, sp);
        if (!S.smpl) return error(400, "the sampling settings were refused");
        S.n_predict = req.value("max_tokens", -1);
        S.n_probs = req.value("logprobs", false) ? std::max(1, req.value("top_logprobs", 1)) : 0;
        S.fed = 0;
        S.n_gen = 0;
        S.sent = 0;
        S.done = false;
        S.finish = "stop";
        S.t_start = now_ms();
        S.t_gen = 0;
        common_json r = common_json::object();
        r["n_prompt"] = (int) S.n_prompt;
        return answer(r.dump_safe());
    } catch (const std::exception &e) {
        return error(400, e.what());
    }
}

// Reads the next unit of the prompt (UNIT tokens of text at most, or one view; the argument is
// kept for the worker and not used). Returns how many are left, -1 when llama.cpp failed, -2 when the request is refused
// (hj_error says why).
EMSCRIPTEN_KEEPALIVE int hj_prefill(int) {
    if (!S.smpl) return -1;
    return prefill_units();
}

// Samples one token and reads it. Returns 1 while more are to come, 0 when the answer is
// complete, -1 when llama.cpp failed.
EMSCRIPTEN_KEEPALIVE int hj_step() {
    if (!S.smpl || S.fed != S.n_prompt) return -1;
    if (S.done) return 0;
    double t0 = now_ms();
    const float *logits = llama_get_logits_ith(S.ctx, -1);
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(S.model));
    llama_token tok = common_sampler_sample(S.smpl, S.ctx, -1);
    common_sampler_accept(S.smpl, tok, true);
    step st{tok, "", 1.0f, {}};
    if (S.n_probs > 0) {
        // llama-server's probabilities: a softmax over all raw logits, highest first.
        std::vector<std::pair<float, llama_token>> cur(n_vocab);
        for (int i = 0; i < n_vocab; ++i) cur[i] = {logits[i], i};
        size_t top = std::min((size_t) S.n_probs, cur.size());
        std::partial_sort(cur.begin(), cur.begin() + top, cur.end(),
                          [](const auto &a, const auto &b) { return a.first > b.first; });
        float max_l = cur[0].first;
        float sum = 0.0f;
        for (auto &c : cur) sum += expf(c.first - max_l);
        st.prob = expf(logits[tok] - max_l) / sum;
        for (size_t i = 0; i < top; ++i) st.top.push_back({cur[i].second, expf(cur[i].first - max_l) / sum});
    }
    ++S.n_gen;
    const llama_vocab *vocab = llama_model_get_vocab(S.model);
    bool eog = llama_vocab_is_eog(vocab, tok);
    S.text += piece(tok);
    size_t whole = whole_utf8(S.text);
    if (whole == S.text.size()) {  // a token inside a character waits for the rest of it
        st.text = S.text.substr(S.sent);
        S.sent = S.text.size();
        S.steps.push_back(std::move(st));
    }
    if (eog) {
        S.done = true;
        S.finish = "stop";
    } else if (S.n_predict >= 0 && S.n_gen >= S.n_predict) {
        S.done = true;
        S.finish = "length";
    } else if ((int) (S.n_prompt + S.n_gen) + 1 >= (int) llama_n_ctx(S.ctx)) {
        S.done = true;
        S.finish = "length";
    } else {
        // positions follow the prompt's (after images, M-RoPE models count them differently)
        llama_batch b = llama_batch_init(1, 0, 1);
        b.n_tokens = 1;
        b.token[0] = tok;
        b.pos[0] = S.n_past++;
        b.n_seq_id[0] = 1;
        b.seq_id[0][0] = 0;
        b.logits[0] = true;
        int rc = llama_decode(S.ctx, b);
        llama_batch_free(b);
        if (rc != 0) return -1;
    }
    S.t_gen += now_ms() - t0;
    return S.done ? 0 : 1;
}

// The finished answer, as llama-server's OpenAI-format chat completion.
EMSCRIPTEN_KEEPALIVE const char *hj_result() {
    try {
        common_json msg = common_json::object();
        msg["role"] = "assistant";
        std::string content = S.text.substr(0, whole_utf8(S.text));
        if (!S.note.empty()) content += (content.empty() || content.back() == '\n' ? "" : "\n") + S.note;
        msg["content"] = content;
        common_json choice = common_json::object();
        choice["index"] = 0;
        choice["message"] = msg;
        choice["finish_reason"] = S.finish;
        if (S.n_probs > 0) {
            common_json content = common_json::array();
            for (const step &st : S.steps) {
                common_json alts = common_json::array();
                for (const auto &[t, p] : st.top) {
                    std::string txt = piece(t);
                    common_json bytes = common_json::array();
                    for (unsigned char c : txt) bytes.push_back((int) c);
                    common_json a = common_json::object();
                    a["id"] = t;
                    a["token"] = txt.substr(0, whole_utf8(txt));
                    a["bytes"] = bytes;
                    a["logprob"] = p == 0.0f ? -3.4028234663852886e38 : (double) logf(p);
                    alts.push_back(a);
                }
                common_json bytes = common_json::array();
                for (unsigned char c : st.text) bytes.push_back((int) c);
                common_json s = common_json::object();
                s["id"] = st.tok;
                s["token"] = st.text;
                s["bytes"] = bytes;
                s["logprob"] = st.prob == 0.0f ? -3.4028234663852886e38 : (double) logf(st.prob);
                s["top_logprobs"] = alts;
                content.push_back(s);
            }
            common_json lp = common_json::object();
            lp["content"] = content;
            choice["logprobs"] = lp;
        }
        common_json r = common_json::object();
        r["object"] = "chat.completion";
        r["model"] = S.name;
        common_json choices = common_json::array();
        choices.push_back(choice);
        r["choices"] = choices;
        common_json usage = common_json::object();
        usage["prompt_tokens"] = (int) S.n_prompt;
        usage["completion_tokens"] = S.n_gen;
        usage["total_tokens"] = (int) S.n_prompt + S.n_gen;
        r["usage"] = usage;
        common_json tm = common_json::object();
        // as llama-server's: the tokens read, and those taken from the cache
        const size_t read = S.n_prompt - std::min(S.cache_n, S.n_prompt);
        tm["cache_n"] = (int) S.cache_n;
        tm["prompt_n"] = (int) read;
        tm["prompt_ms"] = S.t_prompt;
        tm["prompt_per_second"] = S.t_prompt > 0 ? 1e3 * read / S.t_prompt : 0.0;
        tm["predicted_n"] = S.n_gen;
        tm["predicted_ms"] = S.t_gen;
        tm["predicted_per_second"] = S.t_gen > 0 ? 1e3 * S.n_gen / S.t_gen : 0.0;
        if (S.chunks) {
            // ours, beside llama-server's fields: the image views read, encoded and reused
            common_json im = common_json::object();
            im["views"] = S.views;
            im["views_full"] = S.views_full;
            im["encoded"] = S.encoded;
            im["reused"] = S.reused;
            im["encode_ms"] = S.encode_ms;
            tm["images"] = im;
        }
        r["timings"] = tm;
        std::string out = r.dump_safe();
        end_request();
        return answer(out);
    } catch (const std::exception &e) {
        end_request();
        return error(500, e.what());
    }
}

// Where the request in progress is, and this load's image figures: {"views" (0 until decided),
// "views_full", "view" (views read so far), "to_encode" (views left that are not in memory),
// "encoded", "reused", "encode_ms", "fed",
// "n_prompt", "encoded_total", "reused_total", "ms_per_view"}.
EMSCRIPTEN_KEEPALIVE const char *hj_progress() {
    common_json r = common_json::object();
    r["views"] = S.planned ? S.views : 0;
    int full = 0;
    for (const image_views &im : S.images) full += (int) im.at.size();
    r["views_full"] = full;
    r["view"] = S.view_now;
    // the views still to read that are not in memory (each costs an encode)
    int to_encode = 0;
    for (size_t i = S.unit_next; i < S.units.size(); ++i)
        if (S.units[i].chunk && !S.cache.at.count(S.units[i].key)) ++to_encode;
    r["to_encode"] = to_encode;
    r["encoded"] = S.encoded;
    r["reused"] = S.reused;
    r["encode_ms"] = S.encode_ms;
    r["fed"] = (int) S.fed;
    r["n_prompt"] = (int) S.n_prompt;
    r["encoded_total"] = S.encoded_total;
    r["reused_total"] = S.reused_total;
    r["ms_per_view"] = ms_per_view();
    return answer(r.dump_safe());
}

// The answer's text so far (whole characters): the worker tests the request's stop rule on it.
EMSCRIPTEN_KEEPALIVE const char *hj_text() {
    return answer(S.text.substr(0, whole_utf8(S.text)));
}

// Ends the answer here, as the request's stop rule says (issue 71's "Stop at the rating"):
// finish_reason "stop", and `note` added to its text to say where it was cut.
EMSCRIPTEN_KEEPALIVE void hj_stop(const char *note) {
    S.done = true;
    S.finish = "stop";
    S.note = note ? note : "";
}

// Why hj_prefill refused the request (-2), as llama-server's error.
EMSCRIPTEN_KEEPALIVE const char *hj_error() {
    std::string why = S.error;
    end_request();
    return error(400, why);
}

// Drops the request in progress (a cancel).
EMSCRIPTEN_KEEPALIVE void hj_cancel() {
    end_request();
}

}  // extern "C"
