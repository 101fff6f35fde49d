// Compiled segmented reductions of std::int32_t (segmented.hpp): Sum, Min, Max, ArgMin,
// ArgMax, their fixed-size forms and describe. One file per input type so the build parallelises.
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/segmented.cuh"

GPUREDUCE_DECLARE_SEGMENTED_SUM(std::int32_t, std::int32_t, )
GPUREDUCE_DECLARE_SEGMENTED_MINMAX(std::int32_t, )
