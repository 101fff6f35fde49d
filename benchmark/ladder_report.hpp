// The ladder's rows and how they are printed: an aligned table (seed 001's columns plus error and
// CUB equality), CSV or JSON. Knows nothing about CUDA; ladder_main.cpp fills the rows.
#pragma once

#include <string>
#include <vector>

#include "ladder_options.hpp"

namespace gpureduce_bench {

struct LadderRow {
  std::string name;         // rung (to_string), or "cub::DeviceReduce::Sum", "thrust::reduce", ...
  std::string pipeline;     // the gpureduce pipeline, or "" for the other rows
  std::string seed;         // seed step (seed_step) or where the row comes from
  std::string fixes;        // what_it_fixes, or what the row is
  bool measured = false;    // false: omitted, `note` says why
  double seconds = 0;       // median
  std::string result;       // the value, printed exactly enough to tell results apart
  double abs_error = 0, rel_error = 0;
  bool within_bound = true;
  std::string equals_cub;   // "yes", "no", or "-" (the CUB row itself)
  std::string plan;         // --verbose: the LaunchPlan
  std::string note;         // e.g. "includes cudaMemsetAsync of the output"
};

struct LadderHeader {
  std::string device, versions, peak, type_text, op, pipeline, timing;
  long long n = 0;
  unsigned long long seed = 0;
  double bytes = 0;               // input bytes read per reduction
  double peak_bytes_per_second = 0;  // 0: unknown
  bool l2_resident = false;
  std::size_t l2_bytes = 0;
};

void print_ladder(const LadderHeader& header, const std::vector<LadderRow>& rows,
                  const LadderOptions& options);

}  // namespace gpureduce_bench
