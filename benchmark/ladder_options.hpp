// gpureduce_ladder's command line. Defaults reproduce seed 004's setting: 32M floats, summed.
#pragma once

#include <gpureduce/gpureduce.hpp>

#include <cstdint>
#include <string>

#include "cases.hpp"

namespace gpureduce_bench {

enum class OutputFormat { table, csv, json };

struct LadderOptions {
  std::int64_t n = std::int64_t(1) << 25;  // seed 004: 32M elements
  ElemType type = ElemType::f32;
  OpKind op = OpKind::sum;
  gpureduce::Pipeline pipeline = gpureduce::Pipeline::last_block;
  OutputFormat format = OutputFormat::table;
  bool verbose = false;   // print each rung's LaunchPlan
  bool flush_l2 = false;  // evict the input from L2 before every timed repeat
  int repeats = 30;       // timed runs per row; the median is reported
  int warmups = 3;
  std::uint64_t seed = 0;
  bool seed_given = false;
};

// Parses argv; on --help prints usage to stdout and returns false with exit_code 0, on a bad
// argument prints why to stderr and returns false with exit_code 1.
bool parse_ladder_options(int argc, char** argv, LadderOptions& options, int& exit_code);

}  // namespace gpureduce_bench
