#!/usr/bin/env bash
# compute-sanitizer --leak-check full on gpureduce_leak_check (a CTest test, label gpu): no leak
# when the program calls release_cached_state before exit, and a leak reported when it does not
# (so the check itself can fail). Skips without a GPU (fails under GPUREDUCE_REQUIRE_GPU=1).
set -uo pipefail
program=${1:?usage: leak_check.sh PATH/TO/gpureduce_leak_check}
probe=$("$program" --skip-release 2>&1 | head -1)
if [[ "$probe" == "no CUDA GPU found" ]]; then
  echo "no CUDA GPU found"
  [[ "${GPUREDUCE_REQUIRE_GPU:-0}" == 1 ]] && exit 1
  exit 0
fi
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[[ -x "$sanitizer" ]] || { echo "compute-sanitizer not found"; exit 1; }

clean=$("$sanitizer" --leak-check full --error-exitcode 99 "$program" 2>&1); clean_status=$?
echo "$clean"
leaky=$("$sanitizer" --leak-check full --error-exitcode 99 "$program" --skip-release 2>&1); leaky_status=$?
echo "$leaky" | grep -E "Leaked|LEAK SUMMARY|ERROR SUMMARY"
status=0
if [[ $clean_status != 0 ]] || grep -q "Leaked" <<<"$clean"; then
  echo "FAIL: a leak with release_cached_state called"; status=1
fi
if [[ $leaky_status != 99 ]] || ! grep -q "Leaked" <<<"$leaky"; then
  echo "FAIL: no leak reported without release_cached_state (the check cannot fail)"; status=1
fi
[[ $status == 0 ]] && echo "leak check passed: none with release, reported without"
exit $status
