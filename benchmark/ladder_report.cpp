// Printing the ladder. The table keeps seed 001's columns (time, bandwidth, speed-up) and adds what
// the seeds could not show: error against the exact answer and bitwise equality with CUB.
#include "ladder_report.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gpureduce_bench {

namespace {

std::string fmt(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

struct Derived {
  std::string us, gbps, pct, speedup, abs_err, rel_err, ok;
};

Derived derive(const LadderHeader& h, const LadderRow& r, double first_seconds) {
  Derived d;
  if (!r.measured) return {"-", "-", "-", "-", "-", "-", "-"};
  d.us = fmt("%.1f", r.seconds * 1e6);
  d.gbps = fmt("%.1f", h.bytes / r.seconds * 1e-9);
  d.pct = h.peak_bytes_per_second > 0
              ? fmt("%.1f", 100.0 * h.bytes / r.seconds / h.peak_bytes_per_second)
              : "unknown";
  d.speedup = first_seconds > 0 ? fmt("%.2f", first_seconds / r.seconds) : "-";
  d.abs_err = fmt("%.3g", r.abs_error);
  d.rel_err = fmt("%.2g", r.rel_error);
  d.ok = r.within_bound ? "ok" : "WRONG";
  return d;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// JSON has no inf, nan, "-" or "unknown": anything but a finite number is written as null.
bool is_json_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(v);
}

std::string json_string(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') { q += "\\n"; continue; }
    q += c;
  }
  return q + "\"";
}

void print_table(const LadderHeader& h, const std::vector<LadderRow>& rows, double first,
                 bool verbose) {
  std::printf("gpureduce ladder: %s %s of %lld elements (%.1f MiB), gpureduce pipeline %s\n",
              h.op.c_str(), h.type_text.c_str(), h.n, h.bytes / (1024.0 * 1024.0),
              h.pipeline.c_str());
  std::printf("device:   %s\nversions: %s\npeak:     %s theoretical (memory clock x bus width x 2)\n",
              h.device.c_str(), h.versions.c_str(), h.peak.c_str());
  std::printf("timing:   %s\ninputs:   random, seed %llu (rerun with --seed %llu)\n",
              h.timing.c_str(), h.seed, h.seed);
  if (h.l2_resident)
    std::printf("note:     the input (%.0f bytes) fits in L2 (%zu bytes) and is not flushed: the "
                "GB/s below are cache bandwidth, not HBM (try --flush-l2)\n",
                h.bytes, h.l2_bytes);
  // The long text columns (seed step, what it fixes) go last so the numbers stay aligned.
  std::printf("\n%-3s %-28s %10s %9s %7s %8s  %-20s %9s %8s %-5s %-4s  %s\n", "#", "row",
              "time_us", "GB/s", "%peak", "speedup", "result", "abs_err", "rel_err", "check",
              "=CUB", "seed step | what it fixes [notes]");
  int index = 0;
  for (const LadderRow& r : rows) {
    const Derived d = derive(h, r, first);
    const std::string name = r.pipeline.empty() ? r.name : r.name + "/" + r.pipeline;
    std::string text = r.fixes.empty() ? r.seed : r.seed + " | " + r.fixes;
    if (!r.note.empty()) text += " [" + r.note + "]";
    std::printf("%-3d %-28s %10s %9s %7s %8s  %-20s %9s %8s %-5s %-4s  %s\n", index++,
                name.c_str(), d.us.c_str(), d.gbps.c_str(), d.pct.c_str(), d.speedup.c_str(),
                r.measured ? r.result.c_str() : "-", d.abs_err.c_str(), d.rel_err.c_str(),
                d.ok.c_str(), r.measured ? r.equals_cub.c_str() : "-", text.c_str());
    if (verbose && !r.plan.empty()) std::printf("    plan: %s\n", r.plan.c_str());
  }
  std::printf("\nspeedup: time of row 0 / time of the row. check: ok = exact (integer sums, min, "
              "max) or within the worst-case float bound (n-1)*u*sum|x|. =CUB: result bit pattern "
              "equal to cub::DeviceReduce's.\n");
}

void print_csv(const LadderHeader& h, const std::vector<LadderRow>& rows, double first) {
  // Facts that are not per-row go to stderr, so stdout is one clean CSV table.
  std::fprintf(stderr, "device: %s\nversions: %s\npeak: %s\nseed: %llu\ntiming: %s\n",
               h.device.c_str(), h.versions.c_str(), h.peak.c_str(), h.seed, h.timing.c_str());
  std::printf("device,type,op,n,row,pipeline,seed_step,time_us,gbps,pct_peak,speedup,result,"
              "abs_error,rel_error,check,bitwise_equal_cub,l2_resident,what_it_fixes,note\n");
  for (const LadderRow& r : rows) {
    const Derived d = derive(h, r, first);
    std::printf("%s,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%s,%s\n",
                csv_field(h.device).c_str(), h.type_text.c_str(), h.op.c_str(), h.n,
                csv_field(r.name).c_str(), r.pipeline.c_str(), csv_field(r.seed).c_str(),
                d.us.c_str(), d.gbps.c_str(), d.pct.c_str(), d.speedup.c_str(),
                r.measured ? r.result.c_str() : "-", d.abs_err.c_str(), d.rel_err.c_str(),
                d.ok.c_str(), r.measured ? r.equals_cub.c_str() : "-", int(h.l2_resident),
                csv_field(r.fixes).c_str(), csv_field(r.note).c_str());
  }
}

void print_json(const LadderHeader& h, const std::vector<LadderRow>& rows, double first) {
  std::printf("{\n  \"device\": %s,\n  \"versions\": %s,\n  \"peak\": %s,\n  \"type\": %s,\n"
              "  \"op\": %s,\n  \"n\": %lld,\n  \"pipeline\": %s,\n  \"seed\": %llu,\n"
              "  \"timing\": %s,\n  \"l2_resident\": %s,\n  \"rows\": [\n",
              json_string(h.device).c_str(), json_string(h.versions).c_str(),
              json_string(h.peak).c_str(), json_string(h.type_text).c_str(),
              json_string(h.op).c_str(), h.n, json_string(h.pipeline).c_str(), h.seed,
              json_string(h.timing).c_str(), h.l2_resident ? "true" : "false");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const LadderRow& r = rows[i];
    const Derived d = derive(h, r, first);
    const auto number = [&](const std::string& s) {
      return r.measured && is_json_number(s) ? s : std::string("null");
    };
    std::printf("    {\"row\": %s, \"pipeline\": %s, \"seed_step\": %s, \"measured\": %s, "
                "\"time_us\": %s, \"gbps\": %s, \"pct_peak\": %s, \"speedup\": %s, "
                "\"result\": %s, \"abs_error\": %s, \"rel_error\": %s, \"check\": %s, "
                "\"bitwise_equal_cub\": %s, \"what_it_fixes\": %s, \"note\": %s, \"plan\": %s}%s\n",
                json_string(r.name).c_str(), json_string(r.pipeline).c_str(),
                json_string(r.seed).c_str(), r.measured ? "true" : "false", number(d.us).c_str(),
                number(d.gbps).c_str(), number(d.pct).c_str(), number(d.speedup).c_str(),
                json_string(r.measured ? r.result : "").c_str(), number(d.abs_err).c_str(),
                number(d.rel_err).c_str(), json_string(d.ok).c_str(),
                json_string(r.measured ? r.equals_cub : "").c_str(), json_string(r.fixes).c_str(),
                json_string(r.note).c_str(), json_string(r.plan).c_str(),
                i + 1 < rows.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace

void print_ladder(const LadderHeader& header, const std::vector<LadderRow>& rows,
                  const LadderOptions& options) {
  const double first = !rows.empty() && rows[0].measured ? rows[0].seconds : 0.0;
  switch (options.format) {
    case OutputFormat::csv: print_csv(header, rows, first); break;
    case OutputFormat::json: print_json(header, rows, first); break;
    case OutputFormat::table: print_table(header, rows, first, options.verbose); break;
  }
}

}  // namespace gpureduce_bench
