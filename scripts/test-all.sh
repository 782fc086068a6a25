#!/usr/bin/env bash
# Every test of the package: lint, formatting, type check, verify (the packed package as n8n's
# scanner sees it), jest (unit, harness, workflow tests in n8n-core), then the end-to-end run in
# real n8n installs. Ends with one line that counts them all.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp
status=0

# These run this project, so they inherit its npm settings on purpose. The nested npm calls that
# install n8n do not: test/e2e/install-n8n.sh drops them (see there).
npm run lint || status=1
npm run format:check || status=1
npm run typecheck || status=1
npm run verify || status=1
npx jest --json --outputFile=.tmp/jest-results.json || status=1
FORMSWTF_E2E_RESULTS=.tmp/e2e-results.json npm run test:e2e || status=1

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
