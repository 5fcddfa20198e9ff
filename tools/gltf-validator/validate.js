#!/usr/bin/env node
// Validates a .glb with the Khronos glTF validator.
// Usage: node validate.js FILE.glb   (or the bytes on stdin: node validate.js -)
// Prints the issue counts and every error as JSON; exits 0 when there are no errors, 1 otherwise.
'use strict';
const fs = require('fs');
const validator = require('gltf-validator');

const file = process.argv[2] || '-';
const bytes = new Uint8Array(fs.readFileSync(file === '-' ? 0 : file));
validator
  .validateBytes(bytes, { maxIssues: 100 })
  .then((report) => {
    const issues = report.issues;
    const errors = issues.messages.filter((m) => m.severity === 0);
    console.log(JSON.stringify({
      numErrors: issues.numErrors,
      numWarnings: issues.numWarnings,
      numInfos: issues.numInfos,
      errors,
    }));
    process.exit(issues.numErrors === 0 ? 0 : 1);
  })
  .catch((err) => {
    console.error('validator failed: ' + err);
    process.exit(2);
  });
