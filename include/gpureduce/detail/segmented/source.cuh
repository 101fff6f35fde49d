// Segmented reductions: how a kernel reads a range of a segment. A source makes the engine's reader
// (readers.cuh) for the items from absolute offset `first` on, so every piece (group, warp, block)
// runs the same reader code as DeviceReduce. ArgMin/ArgMax report the index within the segment
// (as CUB): a range that starts inside it is rebased.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../readers.cuh"

namespace gpureduce::detail::segmented {

// A raw array, each item converted to Accum (Sum, Min, Max, Reduce of a pointer).
template <class In, class Accum>
struct ArraySource {
  using value_type = In;
  using Reader = InputReader<In, Accum>;
  static constexpr bool kPointer = true;  // pointer(): what the host checks
  const In* data;
  __host__ __device__ Reader reader(std::int64_t first) const { return Reader(data + first); }
  __device__ static void rebase(Accum&, std::int64_t) {}
  const void* pointer() const { return data; }
};

// ArgMin / ArgMax: {index, value} pairs. The reader counts indices from the range's first item;
// rebase moves a range's result to in-segment indices (a uniform shift: the same winner).
template <class In, class Accum>
struct IndexedSource {
  using value_type = In;
  using Reader = IndexedReader<In, Accum>;
  static constexpr bool kPointer = true;
  const In* data;
  __host__ __device__ Reader reader(std::int64_t first) const { return Reader(data + first); }
  __device__ static void rebase(Accum& a, std::int64_t first_index) { a.index += first_index; }
  const void* pointer() const { return data; }
};

template <class Source>
inline constexpr bool kIndexedSource = false;
template <class In, class Accum>
inline constexpr bool kIndexedSource<IndexedSource<In, Accum>> = true;

// Any random-access iterator (Reduce): read item by item.
template <class Iterator, class Accum>
struct IteratorSource {
  using Reader = IteratorReader<Iterator, Accum>;
  using value_type = typename Reader::value_type;
  static constexpr bool kPointer = false;  // an iterator: nothing the host can check
  Iterator data;
  __host__ __device__ Reader reader(std::int64_t first) const { return Reader{data + first, {}}; }
  __device__ static void rebase(Accum&, std::int64_t) {}
  const void* pointer() const { return nullptr; }
};

// The source Reduce and the shipped calls use for `InputIt`: pointers keep vector loads.
template <class InputIt, class Accum>
using source_for_t =
    std::conditional_t<std::is_pointer_v<InputIt>,
                       ArraySource<std::remove_cv_t<std::remove_pointer_t<InputIt>>, Accum>,
                       IteratorSource<InputIt, Accum>>;

}  // namespace gpureduce::detail::segmented
