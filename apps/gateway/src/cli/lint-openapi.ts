/**
 * `npm run lint:openapi [-- <file>]`: writes the OpenAPI description the gateway publishes
 * (default apps/gateway/dist/openapi.json) and lints it with Redocly's recommended rules.
 * Errors fail the run; warnings are printed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createConfig, formatProblems, getTotals, lint, type NormalizedProblem } from '@redocly/openapi-core';
import { EnvReader } from '@storefront/config';
import type { ApiPart } from '../kit/api-docs';
import { SHOP_API, buildOpenApiDocument } from '../api';

const DEFAULT_OUTPUT = path.resolve(__dirname, '../../dist/openapi.json');

/** Recommended rules, less the ones that do not fit this API; each says why. */
const RULES = {
  // Proprietary service: there is no licence to name.
  'info-license': 'off',
  // The server URL is PUBLIC_BASE_URL, which defaults to localhost for local runs.
  'no-server-example.com': 'off',
  // Health, version, stock and the published documents take no input, so no client error applies.
  'operation-4xx-response': 'off',
} as const;

/** Rule findings that are the contract's own choice, by rule and JSON pointer. */
const ACCEPTED = {
  // The spec publishes the reference at /docs/api/, a directory, so its relative links work.
  'no-path-trailing-slash': ['#/paths/~1docs~1api~1'],
  // The catalog example leaves out `shipping`: its numbers are checkout's alone, published live.
  'no-invalid-schema-examples': ['#/components/schemas/CatalogDocument/example'],
};

/** Writes the document to `file` and returns Redocly's findings for it. */
export async function lintOpenApiDocument(
  file: string,
  publicBaseUrl: string,
  parts: ApiPart[] = SHOP_API,
): Promise<NormalizedProblem[]> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(publicBaseUrl, parts), null, 2)}\n`);
  const ignore = {
    [file]: Object.fromEntries(Object.entries(ACCEPTED).map(([rule, pointers]) => [rule, new Set(pointers)])),
  };
  const config = await createConfig({ extends: ['recommended'], rules: RULES }, { ignore });
  return (await lint({ ref: file, config })).filter((problem) => !problem.ignored);
}

async function main(): Promise<void> {
  const file = path.resolve(process.argv[2] ?? DEFAULT_OUTPUT);
  const publicBaseUrl = new EnvReader().url('PUBLIC_BASE_URL', 'http://localhost:8080');
  const problems = await lintOpenApiDocument(file, publicBaseUrl);
  const totals = getTotals(problems);
  formatProblems(problems, { format: 'stylish', totals, command: 'lint' });
  process.stdout.write(`lint:openapi: ${file}: ${totals.errors} errors, ${totals.warnings} warnings\n`);
  process.exitCode = totals.errors > 0 ? 1 : 0;
}

if (require.main === module) void main();
