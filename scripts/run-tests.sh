#!/usr/bin/env bash
# `make test`: every test, the slow ones (browser, server, notebook, packaging) in the
# foreground and, beside them, mypy and the fast tests, whose output is kept in LOGS and
# shown when the slow part ends. The slow tests spend most of their time waiting for a
# page, a kernel or a build (a run of 500 s used 390 CPU s: under one of two cores), so
# the rest fits in the cores they leave idle.
#   run-tests.sh PYTHON LOGS FAST_MARKERS FAST_WORKERS SLOW_WORKERS
# Exits 0 only when all three passed. Ctrl-C or a stop of make stops all three.
set -u
py=$1 logs=$2 fast_markers=$3 fast_workers=$4 slow_workers=$5
mkdir -p "$logs"
echo "== mypy and the fast tests run beside the slow ones (their output: $logs/, shown when the slow part ends)"
"$py" -m mypy > "$logs/mypy.log" 2>&1 &
typed_pid=$!
"$py" -m pytest -n "$fast_workers" --dist loadgroup -m "$fast_markers" > "$logs/fast.log" 2>&1 &
fast_pid=$!
# the two beside ignore INT (a script's background jobs do): TERM stops them
trap 'kill "$typed_pid" "$fast_pid" 2>/dev/null; wait; exit 130' INT TERM
# in the foreground, so that Ctrl-C reaches it and it stops its servers and browsers
"$py" -m pytest -n "$slow_workers" --dist loadgroup -m "not ($fast_markers)" --durations=15
slow=$?
wait "$typed_pid"; typed=$?
wait "$fast_pid"; fast=$?
echo "== mypy"; cat "$logs/mypy.log"
echo "== fast tests"; cat "$logs/fast.log"
echo "== mypy: exit $typed; fast tests: exit $fast; slow tests (browser, server, notebook, packaging): exit $slow"
[ "$typed" -eq 0 ] && [ "$fast" -eq 0 ] && [ "$slow" -eq 0 ]
