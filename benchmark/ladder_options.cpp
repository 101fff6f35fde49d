// Command-line parsing for gpureduce_ladder: "--flag value" and "--flag=value" both work.
#include "ladder_options.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gpureduce_bench {

namespace {

const char* const kUsage =
    "usage: gpureduce_ladder [options]\n"
    "  Runs every gpureduce rung in ladder order on one input, then CUB, Thrust and the seed\n"
    "  baselines, and prints time, bandwidth, error against an exact host reference and\n"
    "  whether each result is bitwise equal to cub::DeviceReduce's.\n"
    "  --n N            elements (integer or 2^k; default 2^25 = 32M, seed 004's size)\n"
    "  --type T         f32 | i32 | f64 | f16 (f16 is summed in float; default f32)\n"
    "  --op OP          sum | min | max (default sum)\n"
    "  --pipeline P     two_kernel | last_block | atomic | automatic (default last_block)\n"
    "  --csv | --json   machine-readable output on stdout (header facts go to stderr for CSV)\n"
    "  --verbose        print each row's LaunchPlan (grid, block, items/thread, launches)\n"
    "  --repeats N      timed runs per row, median reported (default 30)\n"
    "  --warmups N      untimed runs before timing (default 3)\n"
    "  --seed S         input seed (default: from the clock; always printed)\n"
    "  --flush-l2       evict the input from L2 before every timed run\n";

bool parse_count(const std::string& text, std::int64_t& value) {
  if (text.size() > 2 && text[0] == '2' && text[1] == '^') {
    char* end = nullptr;
    const long k = std::strtol(text.c_str() + 2, &end, 10);
    if (*end != '\0' || k < 0 || k > 40) return false;
    value = std::int64_t(1) << k;
    return true;
  }
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1) return false;
  value = v;
  return true;
}

bool parse_pipeline(const std::string& text, gpureduce::Pipeline& pipeline) {
  for (gpureduce::Pipeline p : gpureduce::kAllPipelines)
    if (text == gpureduce::to_string(p)) return pipeline = p, true;
  if (text == gpureduce::to_string(gpureduce::Pipeline::automatic))
    return pipeline = gpureduce::Pipeline::automatic, true;
  return false;
}

}  // namespace

bool parse_ladder_options(int argc, char** argv, LadderOptions& o, int& exit_code) {
  exit_code = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    const bool takes_value = arg == "--n" || arg == "--type" || arg == "--op" ||
                             arg == "--pipeline" || arg == "--repeats" || arg == "--warmups" ||
                             arg == "--seed";
    const auto eq = arg.find('=');
    if (eq != std::string::npos && arg.rfind("--", 0) == 0) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (takes_value) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "gpureduce_ladder: %s needs a value\n%s", arg.c_str(), kUsage);
        return false;
      }
      value = argv[++i];
    }
    std::int64_t count = 0;
    bool ok = true;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      exit_code = 0;
      return false;
    } else if (arg == "--n") {
      ok = parse_count(value, o.n);
    } else if (arg == "--type") {
      ok = parse(value, o.type);
    } else if (arg == "--op") {
      ok = parse(value, o.op);
    } else if (arg == "--pipeline") {
      ok = parse_pipeline(value, o.pipeline);
    } else if (arg == "--repeats" || arg == "--warmups") {
      ok = parse_count(value, count) && count <= 100000;
      if (ok) (arg == "--repeats" ? o.repeats : o.warmups) = int(count);
    } else if (arg == "--seed") {
      char* end = nullptr;
      o.seed = std::strtoull(value.c_str(), &end, 0);
      ok = !value.empty() && *end == '\0';
      o.seed_given = true;
    } else if (arg == "--csv") {
      o.format = OutputFormat::csv;
    } else if (arg == "--json") {
      o.format = OutputFormat::json;
    } else if (arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "--flush-l2") {
      o.flush_l2 = true;
    } else {
      std::fprintf(stderr, "gpureduce_ladder: unknown argument '%s'\n%s", argv[i], kUsage);
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "gpureduce_ladder: bad value '%s' for %s\n%s", value.c_str(),
                   arg.c_str(), kUsage);
      return false;
    }
  }
  return true;
}

}  // namespace gpureduce_bench
