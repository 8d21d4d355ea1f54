#!/usr/bin/env bash
# Runs every test file on its own (`npx vitest run <file>`), a few at a time, and lists the
# files that fail alone: a file that passes only after another has warmed a cache, started a
# server or left a module in some state hides a bug that `npm test` cannot show.
# It takes minutes, so CI does not run it; run it after moving or sharing test set-up.
#
#   scripts/check-files-alone.sh [file-or-folder ...]   (default: every test/**/*.test.ts)
#   JOBS=3 scripts/check-files-alone.sh                 (files at a time; default 2)
#
# Each file's output is kept in a folder printed at the end; exit status 1 when any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

jobs="${JOBS:-2}"
logs="$(mktemp -d "${TMPDIR:-/tmp}/files-alone.XXXXXX")"
if [ "$#" -gt 0 ]; then
  mapfile -t files < <(find "$@" -name '*.test.ts' -type f | sort)
else
  mapfile -t files < <(find test -name '*.test.ts' -type f | sort)
fi
echo "files-alone: ${#files[@]} test files, ${jobs} at a time; output in ${logs}"

run_one() {
  local file="$1" logs="$2" log started elapsed
  log="${logs}/$(echo "$file" | tr '/' '_').log"
  started=$(date +%s)
  if npx vitest run "$file" >"$log" 2>&1; then
    elapsed=$(($(date +%s) - started))
    echo "ok    ${elapsed}s  ${file}"
  else
    elapsed=$(($(date +%s) - started))
    echo "FAIL  ${elapsed}s  ${file}" | tee -a "${logs}/failed"
  fi
}
export -f run_one

started=$(date +%s)
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$logs"
echo "files-alone: done in $(($(date +%s) - started)) s"
if [ -s "${logs}/failed" ]; then
  echo "files-alone: $(wc -l <"${logs}/failed") failed alone (logs in ${logs}):"
  cat "${logs}/failed"
  exit 1
fi
echo "files-alone: every file passes on its own"
