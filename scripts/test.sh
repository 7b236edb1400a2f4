#!/usr/bin/env bash
# Install what the tests need and run the whole suite (the README's test command).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not browser"`. The tests run on two
# workers (pytest-xdist), each taking whole test files, so a file's shared fixtures are built once, the
# costliest first (tests/scheduling.py);
# SEQLAB_TEST_WORKERS=0 runs them in this process.
set -euo pipefail
cd "$(dirname "$0")/.."

python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

# The browser test drives Debian's chromium (Playwright's own browser download is not used).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing and cannot be installed without root: apt-get install chromium" >&2
    exit 1
  fi
fi

set +e
python -m pytest -n "${SEQLAB_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"
status=$?
set -e
if [ "$status" = 5 ]; then  # pytest's "no tests collected" is a failure here
  echo "pytest collected no tests" >&2
  exit 1
fi
exit "$status"
