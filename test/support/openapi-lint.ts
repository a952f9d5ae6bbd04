import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { OpenAPIObject } from '@nestjs/swagger';

/** The repository's root, where .spectral.yaml and redocly.yaml are (this file runs from .test-build/test/support). */
const ROOT = join(__dirname, '..', '..', '..');
const SPECTRAL_SEVERITIES = ['error', 'warn', 'info', 'hint'] as const;

/**
 * The configuration whose document is linted: a production one, with the request limit on (the default,
 * which the tests turn off) and a browser origin allowed, so that the rate-limit and CORS headers are described.
 */
export const OPENAPI_LINT_ENV = { RATE_LIMIT_ENABLED: 'true', CORS_ORIGINS: 'https://ops.example.org' };

export interface LintFinding {
  linter: 'spectral' | 'redocly';
  severity: string;
  rule: string;
  /** A JSON pointer-like path into the document. */
  where: string;
  message: string;
}

interface SpectralResult {
  code: string;
  severity: number;
  path: string[];
  message: string;
}

/** Spectral's CLI with the repository's .spectral.yaml (spectral:oas and the OWASP API Security ruleset), as a developer runs it. */
async function spectral(file: string): Promise<LintFinding[]> {
  const cli = require.resolve('@stoplight/spectral-cli/dist/index.js');
  const run = promisify(execFile)(process.execPath, [cli, 'lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', file], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  // It exits 1 when it finds errors; its findings are on stdout either way.
  const { stdout } = await run.catch((failure: { stdout?: string; stderr?: string; message: string }) => {
    if (!failure.stdout?.trim().startsWith('[')) {
      throw new Error(`spectral failed: ${failure.stderr ?? failure.message}`);
    }
    return { stdout: failure.stdout };
  });
  return (JSON.parse(stdout) as SpectralResult[]).map((result) => ({
    linter: 'spectral',
    severity: SPECTRAL_SEVERITIES[result.severity],
    rule: result.code,
    where: `#/${result.path.join('/')}`,
    message: result.message,
  }));
}

/** Redocly's lint with the repository's redocly.yaml (its recommended rules). */
async function redocly(file: string): Promise<LintFinding[]> {
  const { lint, loadConfig } = await import('@redocly/openapi-core');
  const problems = await lint({ ref: file, config: await loadConfig({ configPath: join(ROOT, 'redocly.yaml') }) });
  return problems.map((problem) => ({
    linter: 'redocly',
    severity: problem.severity,
    rule: problem.ruleId,
    where: problem.location[0]?.pointer ?? '#/',
    message: problem.message,
  }));
}

/** Every finding of both linters on `document`, as the running service served it. */
export async function lintOpenApiDocument(document: OpenAPIObject): Promise<LintFinding[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    return [...(await spectral(file)), ...(await redocly(file))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One line per finding, and the counts, for a failure message or the lint command. */
export function describeFindings(findings: LintFinding[]): string {
  const count = (linter: string, severity: string) => findings.filter((finding) => finding.linter === linter && finding.severity === severity).length;
  const lines = findings.map(({ linter, severity, rule, where, message }) => `${linter} ${severity} ${rule} ${where}: ${message}`);
  const totals = (['spectral', 'redocly'] as const).map((linter) => `${linter}: ${count(linter, 'error')} errors, ${count(linter, 'warn')} warnings`);
  return [...lines, totals.join('; ')].join('\n');
}
