// The engine instantiated for a type pair libgpureduce.a does not ship (bytes summed into 64 bits),
// so that the dispatch templates, not only the declarations, are compiled with the warning flags.
#include <gpureduce/device_reduce.cuh>

template cudaError_t gpureduce::DeviceReduce::Sum<std::uint8_t, std::uint64_t>(
    void*, std::size_t&, const std::uint8_t*, std::uint64_t*, std::int64_t, cudaStream_t,
    const gpureduce::Options&);
