// Compiled segmented reductions of double (segmented.hpp): Sum, Min, Max, ArgMin,
// ArgMax, their fixed-size forms and describe. One file per input type so the build parallelises.
#define GPUREDUCE_BUILDING_LIBRARY
#include "gpureduce/segmented.cuh"

GPUREDUCE_DECLARE_SEGMENTED_SUM(double, double, )
GPUREDUCE_DECLARE_SEGMENTED_MINMAX(double, )
