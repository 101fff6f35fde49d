// Compiled instantiations for float: Sum(float -> float and -> double), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(float, float, )
GPUREDUCE_DECLARE_SUM(float, double, )
GPUREDUCE_DECLARE_MINMAX(float, )
