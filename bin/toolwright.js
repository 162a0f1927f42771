#!/usr/bin/env node
// Runs the compiled CLI. `npm ci` builds dist/ through the `prepare` script.
import "../dist/cli/main.js"
