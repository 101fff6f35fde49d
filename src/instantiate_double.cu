// Compiled instantiations for double: Sum(double -> double), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(double, double, )
GPUREDUCE_DECLARE_MINMAX(double, )
