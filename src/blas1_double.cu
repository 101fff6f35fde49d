// Compiled BLAS level-1 reductions of double (blas.hpp). One file per input type so the build
// parallelises.
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/blas1.cuh"

GPUREDUCE_DECLARE_BLAS1(double, double, )
