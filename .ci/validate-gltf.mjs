#!/usr/bin/env node
// Validate glTF/GLB files with the Khronos glTF-Validator (npm package `gltf-validator`).
//
// Usage: node .ci/validate-gltf.mjs FILE.glb [FILE2.glb ...]
// The package is found, in order, under $GLTF_VALIDATOR_DIR/node_modules (the folder where
// `npm install gltf-validator` was run), then the folders in $NODE_PATH, then the usual lookup
// from this script. Prints one summary line per file (errors, warnings, infos, hints) and every
// error/warning message; exits 1 if any file has an error or cannot be read, 2 on bad usage or a
// missing package.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const require = createRequire(import.meta.url);

function loadValidator() {
  const roots = [];
  if (process.env.GLTF_VALIDATOR_DIR) {
    roots.push(path.join(process.env.GLTF_VALIDATOR_DIR, 'node_modules'));
  }
  for (const p of (process.env.NODE_PATH || '').split(path.delimiter)) {
    if (p) roots.push(p);
  }
  for (const r of roots) {
    try {
      return require(require.resolve('gltf-validator', { paths: [r] }));
    } catch (_) { /* try the next root */ }
  }
  try {
    return require('gltf-validator');
  } catch (_) {
    console.error('gltf-validator not found: run `npm install gltf-validator` in a folder and set ' +
      'GLTF_VALIDATOR_DIR to that folder (or NODE_PATH to its node_modules)');
    process.exit(2);
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node .ci/validate-gltf.mjs FILE.glb [...]');
  process.exit(2);
}
const validator = loadValidator();
let failed = false;
for (const file of files) {
  try {
    const bytes = new Uint8Array(await readFile(file));
    const report = await validator.validateBytes(bytes, { uri: file, maxIssues: 100 });
    const i = report.issues;
    console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ` +
      `${i.numHints} hints (validator ${report.validatorVersion})`);
    for (const m of i.messages) {
      if (m.severity <= 1) {
        const kind = m.severity === 0 ? 'error' : 'warning';
        console.log(`  ${kind} ${m.code} at ${m.pointer ?? m.offset ?? ''}: ${m.message}`);
      }
    }
    if (i.numErrors > 0) failed = true;
  } catch (e) {
    console.log(`${file}: cannot validate: ${e}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
