// Compiled instantiations for __half: Sum(__half -> float), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(__half, float, )
GPUREDUCE_DECLARE_MINMAX(__half, )
