#!/usr/bin/env bash
# Every test of the package: lint, formatting, type check, verify (the packed package as n8n's
# scanner sees it), then jest (unit, harness, workflow tests in n8n-core) and the end-to-end run
# in real n8n installs side by side. Ends with one line that counts them all.
#
# Side by side because the end-to-end run spends most of its time waiting for n8n's polls (at
# most one a minute) and installs: jest's 10 minutes of work fit in those waits. jest's output
# goes to .tmp/jest.log and is printed after the end-to-end run; a line says when jest ends.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
status=0

# These run this project, so they inherit its npm settings on purpose. The nested npm calls that
# install n8n do not: test/e2e/install-n8n.sh drops them (see there).
npm run lint || status=1
npm run format:check || status=1
npm run typecheck || status=1
# verify builds dist/ and packs it, as the end-to-end run does: not at the same time.
npm run verify || status=1

rm -f .tmp/jest-results.json .tmp/e2e-results.json
# In a process group of its own (job control), so that an interrupted run stops jest and its
# workers. Not in a session of its own: Linux schedules each session as one group (autogroup),
# and the end-to-end run's nice below only gives way to processes of its own group.
set -m
bash -c '
	npx jest --ci --json --outputFile=.tmp/jest-results.json >.tmp/jest.log 2>&1
	code=$?
	summary=$(grep -E "^Tests:" .tmp/jest.log | tail -1)
	echo "jest ended (${summary:-no summary}); its output follows the end-to-end run"
	exit $code
' </dev/null &
jest_pid=$!
set +m
trap 'kill -- -$jest_pid 2>/dev/null; exit 130' INT TERM

# The end-to-end run gives way to jest (nice): its waits are minutes long, and jest's runs of
# n8n's engine give its checks a few seconds of wall-clock time.
FORMSWTF_E2E_RESULTS=.tmp/e2e-results.json nice -n 5 npm run test:e2e || status=1
wait $jest_pid || status=1
trap - INT TERM
echo
echo "jest (.tmp/jest.log):"
cat .tmp/jest.log

node -e '
const fs = require("fs");
const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return null; } };
const jest = read(".tmp/jest-results.json"), e2e = read(".tmp/e2e-results.json");
const passed = (jest ? jest.numPassedTests : 0) + (e2e ? e2e.passed : 0);
const failed = (jest ? jest.numFailedTests : 1) + (e2e ? e2e.failed : 1);
console.log(`\njest: ${jest ? jest.numPassedTests + " passed, " + jest.numFailedTests + " failed" : "did not run"}; end-to-end: ${e2e ? e2e.passed + " passed, " + e2e.failed + " failed" : "did not run"}`);
console.log(`tests: ${passed} passed, ${failed} failed`);
'
exit $status
