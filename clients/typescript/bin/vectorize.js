#!/usr/bin/env node
// The command line, built into dist/ by `npm run build` (run by the root project's `npm ci`).
import '../dist/cli.js';
