// Compiled BLAS level-1 reductions of __half (blas.hpp). One file per input type so the build
// parallelises.
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/blas1.cuh"

GPUREDUCE_DECLARE_BLAS1(__half, float, )
