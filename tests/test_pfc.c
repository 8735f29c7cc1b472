/* Tests of the correctness pass (pfc): each names the defect it guards. */
#include "harness.h"

SUITE(suite_pfc) = {
    {NULL, NULL},
};
