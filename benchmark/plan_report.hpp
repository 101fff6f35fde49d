// The launch plan a gpureduce call uses (DeviceReduce::PlanSum/PlanMin/PlanMax), put into a
// benchmark's JSON: with `automatic` tuned per size and device, a time is only explainable next to
// what was launched, and report.py shows it beside the ratio to CUB.
#pragma once

#include <benchmark/benchmark.h>
#include <gpureduce/gpureduce.hpp>

#include <string>

namespace gpureduce_bench {

// "plan: vectorized/last_block grid 64 x 256, 16 items/thread, 1 launch": grid blocks x block
// threads; launches counts kernels and memsets per call (LaunchPlan::launches). report.py reads
// the text after "plan: " up to the next ';' of the label.
inline std::string plan_text(const gpureduce::LaunchPlan& plan) {
  return std::string("plan: ") + gpureduce::to_string(plan.strategy) + "/" +
         gpureduce::to_string(plan.pipeline) + " grid " + std::to_string(plan.grid_blocks) + " x " +
         std::to_string(plan.block_threads) + ", " + std::to_string(plan.items_per_thread) +
         " items/thread, " + std::to_string(plan.launches) +
         (plan.launches == 1 ? " launch" : " launches");
}

// The same as plain counters, for tools that read numbers rather than labels.
inline void add_plan_counters(benchmark::State& st, const gpureduce::LaunchPlan& plan) {
  st.counters["plan_grid"] = benchmark::Counter(plan.grid_blocks);
  st.counters["plan_block"] = benchmark::Counter(plan.block_threads);
  st.counters["plan_items_per_thread"] = benchmark::Counter(plan.items_per_thread);
  st.counters["plan_launches"] = benchmark::Counter(plan.launches);
}

}  // namespace gpureduce_bench
