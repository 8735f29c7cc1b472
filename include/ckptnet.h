/* ckptnet: how much training time do checkpoints cost on this fabric?
 * The declarations now live in src/api/ckpt.h (being split off). */
#ifndef CKPTNET_H
#define CKPTNET_H

#include "../src/api/ckpt.h"

#endif
