/* Model catalog: parameter counts and shapes as published. */
#include "model.h"

#include <stddef.h>

/* Parameter counts are exact counts from the published shapes (hidden size,
 * layers, vocabulary, grouped-query K/V heads, untied output layer) where
 * the shape is public; kv_ratio and ffn_ratio only shape the tensor list
 * of the dcp writer rule. */
static const struct model_spec catalog[] = {
    [MODEL_LLAMA3_8B] = {"llama3-8b", UINT64_C(8030261248), 32, 0.25, 3.5,
                         DTYPE_FP32, "Llama 3 8B: hidden 4096, 32 layers, 8 of 32 KV heads, FFN 14336, vocab 128256"},
    [MODEL_LLAMA3_70B] = {"llama3-70b", UINT64_C(70553706496), 80, 0.125, 3.5,
                          DTYPE_FP32, "Llama 3 70B: hidden 8192, 80 layers, 8 of 64 KV heads, FFN 28672, vocab 128256"},
    [MODEL_LLAMA3_405B] = {"llama3-405b", UINT64_C(405853388800), 126, 0.0625, 3.25,
                           DTYPE_FP32, "Llama 3 405B: hidden 16384, 126 layers, 8 of 128 KV heads, FFN 53248, vocab 128256"},
    [MODEL_GPT3_175B] = {"gpt3-175b", UINT64_C(175000000000), 96, 1.0, 4.0,
                         DTYPE_FP32, "GPT-3 (Brown et al. 2020): 175.0e9 parameters, 96 layers, hidden 12288"},
    [MODEL_DEEPSEEK_V3] = {"deepseek-v3", UINT64_C(671000000000), 61, 1.0, 4.0,
                           DTYPE_BF16, "DeepSeek-V3 report: 671e9 total parameters (37e9 active), 61 layers; AdamW moments kept in BF16"},
    [MODEL_DENSE_1T] = {"dense-1t", UINT64_C(1008000000000), 128, 1.0, 4.0,
                        DTYPE_FP32, "Megatron-LM 1T (Narayanan et al. SC'21): 1008e9 parameters, 128 layers, hidden 25600"},
    [MODEL_LLAMA3_1T] = {"llama3-1t", UINT64_C(1183194060048), 128, 32.0 / 192.0, 98304.0 / 25872.0,
                         DTYPE_FP32, "MLPerf Storage llama3-1t (DLIO llama3_1t.yaml): hidden 25872, 128 layers, 32 of 192 KV heads, FFN 98304, vocab 128256"},
    [MODEL_CUSTOM] = {"custom", 0, 0, 0.125, 3.5, DTYPE_FP32,
                      "model.params; no layer structure (state splits evenly)"},
};

const struct model_spec *model_lookup(int name)
{
    if (name <= MODEL_NONE || name > MODEL_CUSTOM)
        return NULL;
    return &catalog[name];
}

uint32_t dtype_bytes(int dtype)
{
    switch (dtype) {
    case DTYPE_FP32:
        return 4;
    case DTYPE_BF16:
    case DTYPE_FP16:
        return 2;
    case DTYPE_FP8:
        return 1;
    default:
        return 0;
    }
}

uint64_t model_params(const struct scenario *sc)
{
    const struct model_spec *m = model_lookup(sc->model.name);
    if (!m)
        return 0;
    return sc->model.name == MODEL_CUSTOM ? sc->model.params : m->params;
}

struct bytes_per_param model_bytes_per_param(const struct scenario *sc)
{
    const struct model_spec *m = model_lookup(sc->model.name);
    int w = sc->model.weights_dtype, ms = sc->model.master_dtype,
        o = sc->model.optimizer_dtype;
    /* the mixed-precision recipe: bf16 weights, fp32 master, moments as the
     * model's recipe says */
    if (w == DTYPE_AUTO)
        w = DTYPE_BF16;
    if (ms == DTYPE_AUTO)
        ms = DTYPE_FP32;
    if (o == DTYPE_AUTO)
        o = m ? m->optimizer_dtype : DTYPE_FP32;
    uint32_t moments = sc->model.optimizer == OPT_ADAM ? 2 : 1;
    struct bytes_per_param b = {dtype_bytes(w),
                                dtype_bytes(ms) + moments * dtype_bytes(o)};
    return b;
}
