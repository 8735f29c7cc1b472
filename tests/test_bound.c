/* Tests of the correctness pass (bound): each names the defect it guards. */
#include "harness.h"

SUITE(suite_bound) = {
    {NULL, NULL},
};
