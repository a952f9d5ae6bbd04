// The architecture's import rules, checked by `npm run lint` (docs/architecture.md names the rooms).
// Each folder under src/ is a module whose index.ts is its only door; src/cli holds entry points and has
// no door, so nothing may import it. Unit specs are cruised too: a spec beside the code may read its own
// module's files, and reaches another module only through that module's door, like the code it tests.
// Paths are relative to the folder depcruise runs in, so test/architecture.e2e-spec.ts can run these
// same rules on a fixture tree of its own.
import { join } from 'node:path';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle makes the load order decide what a module sees at start-up.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'module-through-its-door',
      severity: 'error',
      comment: "A module reaches another module only through that module's index.ts.",
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'audit-rooms-through-their-doors',
      severity: 'error',
      comment: "Inside src/audit, a room (write/, trail/, api/) reaches another only through that room's index.ts.",
      from: { path: '^src/audit/([^/]+)/' },
      to: { path: '^src/audit/[^/]+/', pathNot: ['^src/audit/$1/', '^src/audit/[^/]+/index\\.ts$'] },
    },
    {
      name: 'audit-rooms-in-order',
      severity: 'error',
      comment: 'api/ reads what write/ appends and trail/ proves; write/ chains with trail/; trail/ needs neither, so it can be checked alone.',
      from: { path: '^src/audit/(trail|write)/' },
      to: { path: '^src/audit/api/' },
    },
    {
      name: 'audit-trail-stands-alone',
      severity: 'error',
      comment: 'The chain, the tree and their verification depend on no way of writing or reading the trail.',
      from: { path: '^src/audit/trail/' },
      to: { path: '^src/audit/write/' },
    },
    {
      name: 'wiring-through-the-door',
      severity: 'error',
      comment: "The top-level files (main.ts, app.module.ts, ...) reach a module only through its index.ts.",
      from: { path: '^src/[^/]+$' },
      to: { path: '^src/[^/]+/', pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment: 'A migration is history: it computes the same thing forever, so it reads no live code, only its own folder and packages.',
      from: { path: '^src/database/migrations/' },
      to: { pathNot: ['^src/database/migrations/', '^node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'common-imports-nothing-from-src',
      severity: 'error',
      comment: 'Every module may import common, so common imports no other module.',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/common/' },
    },
    {
      name: 'http-imports-only-common',
      severity: 'error',
      comment: 'The HTTP layer serves every feature module, so it imports none of them: only common.',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: '^src/(http|common)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: reaching past a door for a type couples to an inside all the same.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: join(import.meta.dirname, 'tsconfig.json') },
  },
};
