import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { lintOpenApiDocument } from '../../src/cli/lint-openapi';
import { jsonResponse, type ApiPart } from '../../src/kit/api-docs';
import { documentedOnly } from '../../src/kit/routes';
import { Type } from '../../src/kit/schema';
import { SHOP_API, buildOpenApiDocument } from '../../src/api';
import { RequestValidator } from '../../src/kit/validator';
import { listOperations, sessionRequirement } from '../../src/published/api-reference';

const DOCUMENT = buildOpenApiDocument('https://shop.test');
const OPERATIONS = listOperations(DOCUMENT);

describe('gateway: the OpenAPI description', () => {
  let workDir: string;
  before(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'storefront-openapi-'));
  });
  after(() => fs.rmSync(workDir, { recursive: true, force: true }));

  it('is OpenAPI 3.1.0, version 1.0.0, on the public base URL', () => {
    expect(DOCUMENT.openapi).to.equal('3.1.0');
    expect(DOCUMENT.info.version).to.equal('1.0.0');
    expect(DOCUMENT.servers).to.deep.equal([{ url: 'https://shop.test' }]);
    expect(DOCUMENT.components.securitySchemes.sessionCookie).to.include({
      type: 'apiKey',
      in: 'cookie',
      name: 'svc_sess',
    });
  });

  it('has no lint errors under Redocly’s recommended rules (npm run lint:openapi)', async () => {
    const problems = await lintOpenApiDocument(path.join(workDir, 'openapi.json'), 'https://shop.test');
    const errors = problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    expect(errors).to.deep.equal([]);
  });

  it('lint fails a document that breaks the rules', async () => {
    const broken: ApiPart = {
      routes: [
        documentedOnly({
          method: 'get',
          path: '/api/broken/',
          operation: {
            operationId: 'broken',
            summary: 'Broken',
            tags: [],
            responses: {
              '200': jsonResponse('Refers to nothing', Type.Unsafe({ $ref: '#/components/schemas/Missing' })),
            },
          },
        }),
      ],
    };
    const problems = await lintOpenApiDocument(path.join(workDir, 'broken.json'), 'https://shop.test', [
      ...SHOP_API,
      broken,
    ]);
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => problem.ruleId);
    expect(errors).to.include.members(['no-path-trailing-slash', 'no-unresolved-refs']);
  });

  it('names every operation uniquely', () => {
    const ids = OPERATIONS.map((operation) => operation.view.operationId);
    for (const [index, id] of ids.entries())
      expect(id, `${OPERATIONS[index]!.method} ${OPERATIONS[index]!.path}`).to.be.a('string').and.not.empty;
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('describes every error answer with the Error schema', () => {
    for (const { method, path: route, view } of OPERATIONS) {
      for (const [status, response] of Object.entries(view.responses ?? {})) {
        if (Number(status) < 400) continue;
        expect(response.content, `${method} ${route} ${status}`).to.deep.equal({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
    }
  });

  it('documents 401 on every operation that requires the session', () => {
    const secured = OPERATIONS.filter((operation) => sessionRequirement(operation.view) === 'required');
    for (const { method, path: route, view } of secured)
      expect(view.responses, `${method} ${route}`).to.have.property('401');
  });

  it('documents 429 with Retry-After on every rate-limited operation', () => {
    const limited = [
      'POST /api/auth/signup',
      'POST /api/auth/login',
      'POST /api/create-checkout',
      'GET /api/validate-promo',
    ];
    for (const name of limited) {
      const operation = OPERATIONS.find(({ method, path: route }) => `${method.toUpperCase()} ${route}` === name);
      expect(operation, name).to.not.equal(undefined);
      const tooMany = operation!.view.responses?.['429'] as { headers?: Record<string, unknown> } | undefined;
      expect(tooMany?.headers, name).to.have.property('Retry-After');
    }
  });

  it('refers only to schemas it defines, and the validator compiles each request body schema', () => {
    const names = new Set(Object.keys(DOCUMENT.components.schemas));
    for (const match of JSON.stringify(DOCUMENT).matchAll(/"\$ref":"#\/components\/schemas\/([^"/]+)/g)) {
      expect(names.has(match[1]!), match[1]).to.equal(true);
    }
    const validator = new RequestValidator(DOCUMENT.components.schemas);
    for (const { method, path: route, view } of OPERATIONS) {
      const schema = view.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const name = String(schema.$ref ?? '').replace('#/components/schemas/', '');
      expect(
        name,
        `${method} ${route}: request bodies are named component schemas, the ones the gateway validates with`,
      ).to.not.equal('');
      // Compiled on first use: checking a value compiles it; a refusal of the empty body is the validator working.
      const check = validator.checker(DOCUMENT.components.schemas[name]!, 'body');
      expect(() => {
        try {
          check({});
        } catch (error) {
          if (!(error instanceof AppError && error.kind === 'invalid_argument')) throw error;
        }
      }, `${method} ${route}`).to.not.throw();
    }
  });
});
