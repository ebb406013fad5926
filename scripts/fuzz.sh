#!/usr/bin/env bash
# Fuzz kubectl-arc's parsers and renderers with cargo-fuzz (libFuzzer), one target after the other.
#
#   scripts/fuzz.sh                    # every target, 600 s each (~1 h, plus the first build)
#   scripts/fuzz.sh value_decode       # one target, 600 s
#   scripts/fuzz.sh all 60             # every target, 60 s each
#   scripts/fuzz.sh --list             # the targets
#
# Targets (fuzz/fuzz_targets/): manifest_parse, value_decode, legacy_hash, diff_render, quantity,
# json_check_valid. Each runs as one process (-jobs=1 -workers=1) with libFuzzer's memory limits,
# so an input that makes an allocation or the resident set go past FUZZ_RSS_MB (default 2048) is a
# crash, as is a panic, an arithmetic overflow (overflow checks and debug assertions are on) or an
# input that runs longer than FUZZ_TIMEOUT seconds (default 10; 30 for manifest_parse, whose YAML
# alias budgets allow ~1M replayed events: ~2 s in a release build, ~15 s under the sanitizer).
# Crashing inputs are written to fuzz/artifacts/<target>/; reproduce one with
#   cargo +nightly fuzz run <target> fuzz/artifacts/<target>/crash-...
# and shrink it with `cargo +nightly fuzz tmin <target> <file>`.
#
# Seeds are read from fuzz/corpus/<target>/ (committed; fuzz/seeds.py regenerates them) and what the
# fuzzer learns goes to fuzz/target/corpus/<target>/ (not committed), which later runs reuse.
#
# Not part of scripts/test.sh or CI's default run: it needs a nightly toolchain (FUZZ_TOOLCHAIN,
# default nightly) and installs cargo-fuzz with `cargo install` when it is missing. Exit status 0
# when every target ran its time without a finding, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

targets_all=(manifest_parse value_decode legacy_hash diff_render quantity json_check_valid)
if [[ "${1:-}" == "--list" ]]; then
  printf '%s\n' "${targets_all[@]}"
  exit 0
fi
if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
target=${1:-all}
seconds=${2:-600}
toolchain=${FUZZ_TOOLCHAIN:-nightly}
rss_mb=${FUZZ_RSS_MB:-2048}

if [[ "$target" == all ]]; then
  targets=("${targets_all[@]}")
else
  found=0
  for t in "${targets_all[@]}"; do [[ "$t" == "$target" ]] && found=1; done
  if [[ $found == 0 ]]; then
    echo "fuzz: unknown target $target (one of: ${targets_all[*]}, or all)" >&2
    exit 2
  fi
  targets=("$target")
fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [[ "$seconds" == 0 ]]; then
  echo "fuzz: SECONDS must be a positive integer, not $seconds" >&2
  exit 2
fi

if ! cargo "+$toolchain" --version >/dev/null 2>&1; then
  echo "fuzz: the $toolchain toolchain is not installed (cargo-fuzz needs nightly; set FUZZ_TOOLCHAIN)" >&2
  exit 2
fi
if ! cargo "+$toolchain" fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz (cargo install cargo-fuzz --locked)..." >&2
  cargo install cargo-fuzz --locked
fi

# Inputs longer than this are not generated (the seeds are smaller; room to grow).
max_len() {
  case "$1" in
    manifest_parse) echo 65536 ;;
    quantity) echo 4096 ;;
    *) echo 32768 ;;
  esac
}
timeout_of() {
  case "$1" in
    manifest_parse) echo "${FUZZ_TIMEOUT:-30}" ;;
    *) echo "${FUZZ_TIMEOUT:-10}" ;;
  esac
}
dict() {
  case "$1" in
    manifest_parse) echo fuzz/dict/yaml.dict ;;
    quantity) echo fuzz/dict/quantity.dict ;;
    *) echo fuzz/dict/json.dict ;;
  esac
}

# Build every target first, so no compiler runs while a fuzzer is timed.
echo "fuzz: building the targets (cargo +$toolchain fuzz build)..." >&2
build_args=()
[[ ${#targets[@]} == 1 ]] && build_args=("${targets[0]}")
cargo "+$toolchain" fuzz build --fuzz-dir fuzz --features cli "${build_args[@]}"
# The binaries are run directly (`cargo fuzz run` would check the build again between targets).
triple=$(rustc "+$toolchain" -vV | sed -n 's/^host: //p')
bin_dir="$root/fuzz/target/$triple/release"

logs=fuzz/target/logs
mkdir -p "$logs"
failed=()
summary=()
for t in "${targets[@]}"; do
  work="fuzz/target/corpus/$t"
  mkdir -p "$work" "fuzz/artifacts/$t"
  log="$logs/$t.log"
  echo "fuzz: $t for ${seconds}s (log: $log)" >&2
  # libFuzzer with -jobs=1 runs the fuzzer in a child process whose output goes to fuzz-0.log in the
  # working directory; run in the log directory and keep that file as the target's log.
  rc=0
  (
    cd "$logs"
    rm -f fuzz-0.log
    "$bin_dir/$t" \
      -max_total_time="$seconds" -jobs=1 -workers=1 \
      -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" -timeout="$(timeout_of "$t")" \
      -max_len="$(max_len "$t")" -dict="$root/$(dict "$t")" \
      -artifact_prefix="$root/fuzz/artifacts/$t/" -print_final_stats=1 \
      "$root/$work" "$root/fuzz/corpus/$t"
  ) >"$log.driver" 2>&1 || rc=$?
  [[ -f "$logs/fuzz-0.log" ]] && mv "$logs/fuzz-0.log" "$log"
  [[ -f "$log" ]] || cp "$log.driver" "$log"
  # The last coverage line and libFuzzer's final statistics.
  last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/cov \1 ft \2/p' <<<"$last")
  if [[ $rc != 0 ]] || grep -qE '^==[0-9]+== ?ERROR|deadly signal|panicked at|SUMMARY: libFuzzer' "$log"; then
    failed+=("$t")
    status=FOUND
    grep -E 'panicked at|ERROR: libFuzzer|SUMMARY|Test unit written to|ERROR: AddressSanitizer' "$log" | head -n 8 >&2 || true
  else
    status=ok
  fi
  summary+=("$(printf '%-17s %-5s execs %-10s exec/s %-7s %-18s peak RSS %s MB' \
    "$t" "$status" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${rss:-?}")")
done

echo
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "fuzz: findings in: ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
