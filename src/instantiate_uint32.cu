// Compiled instantiations for std::uint32_t: Sum(std::uint32_t -> std::uint32_t), Min, Max. One file per input type so
// the build parallelises (the RAFT runtime-API pattern).
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/device_reduce.cuh"

GPUREDUCE_DECLARE_SUM(std::uint32_t, std::uint32_t, )
GPUREDUCE_DECLARE_MINMAX(std::uint32_t, )
