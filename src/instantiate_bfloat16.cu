// Compiled instantiations for __nv_bfloat16: Sum(__nv_bfloat16 -> float), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(__nv_bfloat16, float, )
GPUREDUCE_DECLARE_MINMAX(__nv_bfloat16, )
