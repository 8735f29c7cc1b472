/* Model catalog and checkpoint bytes per parameter.
 *
 * A model is a parameter count plus the shape facts the writer rules need
 * (transformer layers, the size of a layer's tensors relative to hidden^2).
 * Bytes per parameter come from the dtypes of the saved state: weights,
 * fp32 master weights, and the optimizer moments (Adam 2, SGD momentum 1).
 * Sources: docs/checkpoint.md (each model's paper or rules).
 */
#ifndef CKPT_MODEL_H
#define CKPT_MODEL_H

#include <stdint.h>

#include "../scenario/scenario.h"

struct model_spec {
    const char *name;     /* as in model.name */
    uint64_t params;
    uint32_t layers;      /* transformer layers */
    double kv_ratio;      /* K (and V) projection size / Q projection size */
    double ffn_ratio;     /* MLP hidden size / model hidden size */
    int optimizer_dtype;  /* the recipe's moment dtype (enum dtype) */
    const char *source;
};

/* Catalog entry for a model.name index (MODEL_CUSTOM gives a generic
 * Llama-like shape with params 0); NULL for MODEL_NONE. Static storage. */
const struct model_spec *model_lookup(int name);

/* Bytes of one element of a dtype (enum dtype; DTYPE_NONE = 0). */
uint32_t dtype_bytes(int dtype);

/* The saved state per parameter, split by what shards how: the working
 * weights, and everything the optimizer owns (master copy and moments). */
struct bytes_per_param {
    uint32_t weights;
    uint32_t optimizer;   /* master + moments */
};

/* Resolve the scenario's dtypes ("auto" = the catalog model's recipe). */
struct bytes_per_param model_bytes_per_param(const struct scenario *sc);

/* Parameter count of the scenario's model: the catalog's, or model.params
 * for custom; 0 for the simple form. */
uint64_t model_params(const struct scenario *sc);

#endif
