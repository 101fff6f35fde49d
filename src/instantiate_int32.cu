// Compiled instantiations for std::int32_t: Sum(std::int32_t -> std::int32_t), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(std::int32_t, std::int32_t, )
GPUREDUCE_DECLARE_MINMAX(std::int32_t, )
