/* Tests of the correctness pass (valid): each names the defect it guards. */
#include "harness.h"

SUITE(suite_valid) = {
    {NULL, NULL},
};
