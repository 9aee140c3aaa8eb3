/**
 * The contract test: every operation of the published OpenAPI description is run through the
 * gateway of a full stack, and every answer must have a status the document lists for that
 * operation, a documented media type and required headers, and a body valid against the
 * document's schema for that status. The operations come from the document itself, so an
 * endpoint added to any area is covered without touching this file.
 *
 * Requests are built from the document: the example of the request body (or one synthesised
 * from its schema when there is none) with a fresh email address wherever one appears, and
 * examples or schema-derived values for required parameters.
 */
import { createHash, randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { recordedAnswers, type HttpClient, type TestResponse } from '@storefront/testing';
import { startStack, type Stack } from '@storefront/platform-testing';
import { loyalty } from '@storefront/proto';
import { buildOpenApiDocument } from '../src/api';
import type { OpenApiDocument } from '../src/kit/api-docs';
import type { JsonSchema } from '../src/kit/api-docs';
import {
  listOperations,
  sessionRequirement,
  type MediaTypeView,
  type Operation,
  type ResponseView,
} from '../src/published/api-reference';
import { undocumentedAnswers } from './support/documented-answers';
import { signedInStaff } from './support/console';
import { completePayment, confirmOnOrderPage } from '../../checkout/test/support';
import { checkout, inventory } from '@storefront/proto';

const CONTRACT_STAFF = {
  id: 'contract-staff',
  role: 'staff',
  email: 'contract-staff@shop.test',
  clientAddress: '192.0.2.30',
} as const;

// startStack leaves PUBLIC_BASE_URL at its default.
const DOCUMENT = buildOpenApiDocument('http://localhost:8080');
const OPERATIONS = listOperations(DOCUMENT);
const SIGN_UP = { method: 'post', path: '/api/auth/signup' } as const;
const LOG_IN = 'POST /api/auth/login';
const CREATE_CHECKOUT = { method: 'post', path: '/api/create-checkout' } as const;
const CONFIRM_RESET = 'POST /api/auth/password-reset/confirm';
const VERIFY_EMAIL = 'POST /api/auth/verify-email';
/** Operations that read an order by the reference in their path example: the order is made first. */
const READ_ORDER = new Set(['GET /api/orders/{checkout_reference}', 'GET /api/admin/orders/{checkout_reference}']);
/**
 * Operations that change an order by the reference in their path example: the order is made first, in the state the
 * change starts from.
 */
const CHANGE_ORDER: Record<string, 'pending_payment' | 'paid' | 'dispatched'> = {
  'POST /api/admin/orders/{checkout_reference}/cancel': 'pending_payment',
  'POST /api/admin/orders/{checkout_reference}/dispatch': 'paid',
  'POST /api/admin/orders/{checkout_reference}/delivered': 'dispatched',
  'POST /api/admin/orders/{checkout_reference}/refunds': 'paid',
};
/** The customer search: a customer with the example's email signs up first. */
const FIND_CUSTOMER = 'GET /api/admin/customers';
/** Operations on the customer account in their path example: its loyalty account is opened first. */
const CUSTOMER_ACCOUNT = new Set(['GET /api/admin/customers/{id}/loyalty', 'POST /api/admin/customers/{id}/points']);
/** Ending the promo code in its path example: the code is created first. */
const EXPIRE_PROMO = 'POST /api/admin/promos/{code}/expire';
/** Operations on the batch in their path example: it is received first. */
const BATCH_IN_PATH = new Set([
  'GET /api/admin/batches/{number}/orders',
  'POST /api/admin/batches/{number}/quarantine',
  'POST /api/admin/batches/{number}/release',
]);
/** Applies a previewed catalog import: its example is previewed first, for the digest. */
const IMPORT_CATALOG = 'POST /api/admin/catalog/import';

/** Checks answers against the document; schemas are compiled from the document itself. */
class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });

  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: document.components });
  }

  /** Every problem with the answer; empty when it honours the contract. */
  problems(operation: Operation, res: TestResponse): string[] {
    const responses = operation.view.responses ?? {};
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((candidate) => responses[candidate]);
    if (!key)
      return [
        `status ${res.status} is not documented (documented: ${Object.keys(responses).join(', ')}); ` +
          `body ${res.text.slice(0, 300)}`,
      ];
    const documented = responses[key] as ResponseView;
    const problems = Object.entries(documented.headers ?? {})
      .filter(([name, header]) => (header as { required?: boolean }).required && !res.headers.has(name))
      .map(([name]) => `required header ${name} is missing`);
    if (res.text === '') return problems;

    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const content = Object.entries(documented.content ?? {}).find(([type]) => type.split(';')[0]!.trim() === mediaType);
    if (!content)
      return [
        ...problems,
        `${res.status} answered ${mediaType || 'no media type'}, documented: ` +
          `${Object.keys(documented.content ?? {}).join(', ') || 'no body'}`,
      ];
    const schema = content[1].schema;
    if (!schema) return problems;
    const validate = this.ajv.compile(this.resolvable(schema));
    const body = mediaType.endsWith('json') ? JSON.parse(res.text) : res.text;
    if (!validate(body)) {
      problems.push(
        `${res.status} body does not match the schema: ${this.ajv.errorsText(validate.errors)}; body ` +
          `${res.text.slice(0, 300)}`,
      );
    }
    return problems;
  }

  /** Points the schema's local references at the document registered above. */
  private resolvable(schema: JsonSchema): JsonSchema {
    return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
  }
}

function exampleOf(media: MediaTypeView | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const named = Object.values(media.examples ?? {})[0];
  if (named?.value !== undefined) return named.value;
  return media.schema ? synthesise(media.schema) : undefined;
}

/** A small valid value for a schema with no example: its example, enum, const or bounds. */
function synthesise(schema: JsonSchema): unknown {
  const resolved = resolve(schema);
  if (resolved.example !== undefined) return resolved.example;
  if (resolved.const !== undefined) return resolved.const;
  if (Array.isArray(resolved.enum)) return resolved.enum[0];
  const type = ([] as unknown[]).concat(resolved.type ?? 'object')[0];
  switch (type) {
    case 'object': {
      const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
      const required = (resolved.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, synthesise(properties[name] ?? {})]));
    }
    case 'array':
      return Array.from({ length: Number(resolved.minItems ?? 0) }, () =>
        synthesise((resolved.items ?? {}) as JsonSchema),
      );
    case 'integer':
    case 'number':
      return Number(
        resolved.minimum ?? (resolved.exclusiveMinimum !== undefined ? Number(resolved.exclusiveMinimum) + 1 : 1),
      );
    case 'boolean':
      return true;
    default:
      return (
        { email: uniqueEmail(), uri: 'https://storefront.test/', 'date-time': new Date().toISOString() }[
          String(resolved.format)
        ] ?? 'x'.repeat(Number(resolved.minLength ?? 1))
      );
  }
}

function resolve(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string'
    ? (DOCUMENT.components.schemas[ref.replace('#/components/schemas/', '')] ?? {})
    : schema;
}

function uniqueEmail(): string {
  return `contract-${randomUUID().slice(0, 8)}@example.com`;
}

/** The example with every email replaced, so each run signs up new customers. */
function withFreshEmails(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withFreshEmails);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [
      key,
      key === 'email' && typeof member === 'string' ? uniqueEmail() : withFreshEmails(member),
    ]),
  );
}

/** The example without the members its schema does not require. */
function requiredOnly(value: unknown, schema: JsonSchema | undefined): unknown {
  if (!schema || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const resolved = resolve(schema);
  const required = new Set((resolved.required ?? []) as string[]);
  const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => required.has(key))
      .map(([key, member]) => [key, requiredOnly(member, properties[key])]),
  );
}

function requestPath(operation: Operation): string {
  let path = operation.path;
  const query = new URLSearchParams();
  for (const parameter of operation.view.parameters ?? []) {
    if (!parameter.required) continue;
    const value = String(parameter.example ?? synthesise(parameter.schema ?? { type: 'string' }));
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
    if (parameter.in === 'query') query.set(parameter.name, value);
  }
  return query.size > 0 ? `${path}?${query}` : path;
}

/** Whether only an owner may do it: it documents the refusal of other roles. */
const ownersOnly = (operation: Operation) =>
  String((operation.view.responses?.['403'] as ResponseView | undefined)?.description ?? '').includes(
    'staff_role_refused',
  );

/** Whether the operation is the console staff's (its security names the staff cookie) rather than a customer's. */
const forStaff = (operation: Operation) =>
  (operation.view.security ?? []).some((requirement) => 'staffCookie' in requirement);

const jsonBodyOf = (operation: Operation) => operation.view.requestBody?.content?.['application/json'];

function send(client: HttpClient, operation: Operation, body: unknown): Promise<TestResponse> {
  const method = operation.method.toUpperCase();
  return body === undefined
    ? client.request(method, requestPath(operation))
    : client.request(method, requestPath(operation), { json: body });
}

describe('contract: every operation of /openapi.json through the gateway', () => {
  let stack: Stack;
  let contract: ResponseContract;
  let staffAdded = 0;

  /**
   * A client holding the session of a new customer, signed up through the documented
   * operation; `credentials` (a login example's email and password) replace the example's.
   */
  async function customer(credentials: Record<string, unknown> = {}): Promise<HttpClient> {
    const signUp = OPERATIONS.find(
      (operation) => operation.method === SIGN_UP.method && operation.path === SIGN_UP.path,
    );
    if (!signUp)
      throw new Error(
        `operations need a customer but the document has no ${SIGN_UP.method.toUpperCase()} ${SIGN_UP.path}`,
      );
    const client = stack.client();
    const media = jsonBodyOf(signUp);
    const body = { ...(withFreshEmails(requiredOnly(exampleOf(media), media?.schema)) as object), ...credentials };
    const res = await send(client, signUp, body);
    if (res.status !== 200) throw new Error(`signing up a customer answered ${res.status}: ${res.text}`);
    return client;
  }

  /**
   * A client holding the `svc_staff` session of a new console staff member, added with the ops
   * command and set up from its link: an owner for an operation that refuses other roles.
   */
  async function staffMember(operation: Operation): Promise<HttpClient> {
    const client = stack.client();
    staffAdded += 1;
    await signedInStaff(stack, client, `contract-${staffAdded}@shop.test`, ownersOnly(operation) ? 'owner' : 'staff');
    return client;
  }

  /**
   * What must exist before an example can succeed: the customer a login example names, the order
   * an order read names (a guest order from the create-checkout example under that reference), and
   * the reset a reset example's token names and the verification link a verification example's token names (each
   * recorded for a new customer as identity records one: by the token's SHA-256).
   */
  async function prepare(operation: Operation, name: string, example: unknown): Promise<void> {
    if (name === LOG_IN) await customer(example as Record<string, unknown>);
    if (name === CONFIRM_RESET) {
      const { profile } = (await (await customer()).get<{ user: { profile: { id: string } } }>('/api/auth/me')).body
        .user;
      const tokenHash = createHash('sha256')
        .update((example as { token: string }).token)
        .digest('hex');
      await stack.identity!.db('password_resets').insert({
        token_hash: tokenHash,
        user_id: profile.id,
        created_at: Date.now(),
        expires_at: Date.now() + 3600_000,
      });
    }
    if (name === VERIFY_EMAIL) {
      const { profile } = (
        await (await customer()).get<{ user: { profile: { id: string; email: string } } }>('/api/auth/me')
      ).body.user;
      await stack.identity!.db('email_verifications').insert({
        token_hash: createHash('sha256')
          .update((example as { token: string }).token)
          .digest('hex'),
        user_id: profile.id,
        email: profile.email,
        created_at: Date.now(),
        expires_at: Date.now() + 3600_000,
      });
    }
    if (name === IMPORT_CATALOG) {
      // The digest is the preview's of the catalog as it is now.
      const preview = await (
        await staffMember(operation)
      ).post<{ digest: string }>('/api/admin/catalog/import/preview', {
        catalog: (example as { catalog: string }).catalog,
      });
      (example as { digest: string }).digest = preview.body.digest;
    }
    if (READ_ORDER.has(name) || CHANGE_ORDER[name]) {
      const createCheckout = OPERATIONS.find(
        (candidate) => candidate.method === CREATE_CHECKOUT.method && candidate.path === CREATE_CHECKOUT.path,
      );
      if (!createCheckout)
        throw new Error(
          `${name} needs an order but the document has no ${CREATE_CHECKOUT.method.toUpperCase()} ` +
            `${CREATE_CHECKOUT.path}`,
        );
      const reference = String(operation.view.parameters?.find((parameter) => parameter.in === 'path')?.example);
      const res = await send(stack.client(), createCheckout, {
        ...(exampleOf(jsonBodyOf(createCheckout)) as object),
        checkout_reference: reference,
      });
      if (res.status !== 200) throw new Error(`creating the order ${name} reads answered ${res.status}: ${res.text}`);
      if (CHANGE_ORDER[name] === 'paid' || CHANGE_ORDER[name] === 'dispatched') {
        await completePayment((res.body as { hosted_checkout_url: string }).hosted_checkout_url, 'pay');
        await stack.checkout!.reconcileNow();
        await confirmOnOrderPage(stack.client(), reference, 'http://localhost:8080');
      }
      if (CHANGE_ORDER[name] === 'dispatched') {
        const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
        await rpc
          .dispatchOrder(
            { checkoutReference: reference, carrier: 'Royal Mail', trackingNumber: 'RM1' },
            { staff: CONTRACT_STAFF },
          )
          .finally(() => rpc.close());
      }
    }
    const parameterExample = (where: string) =>
      operation.view.parameters?.find((parameter) => parameter.in === where)?.example;
    if (name === FIND_CUSTOMER) await customer({ email: parameterExample('query') });
    if (CUSTOMER_ACCOUNT.has(name)) {
      const rpc = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'gateway');
      try {
        await rpc.openAccount({}, { customer: String(parameterExample('path')) });
      } finally {
        rpc.close();
      }
    }
    if (BATCH_IN_PATH.has(name)) {
      const rpc = stack.clientOf('inventory', inventory.InventoryServiceService, 'gateway');
      const number = String(parameterExample('path'));
      try {
        const received = await rpc.getBatch({ number }).then(
          () => true,
          () => false,
        );
        if (!received)
          await rpc.receiveBatch(
            {
              sku: 'bpc-157-5mg',
              number,
              units: 5,
              purityHundredths: 9942,
              testedOn: '2026-11-02',
              laboratory: 'Contract Laboratory',
              retestOn: '2028-11-02',
              note: '',
            },
            { staff: { ...CONTRACT_STAFF, role: 'owner' } },
          );
      } finally {
        rpc.close();
      }
    }
    if (name === EXPIRE_PROMO)
      await stack
        .checkout!.db('promo_codes')
        .insert({ code: parameterExample('path'), discount_basis_points: 1000, active_from: 0 });
  }

  before(async () => {
    stack = await startStack();
    contract = new ResponseContract(DOCUMENT);
  });
  after(async () => stack?.stop());

  it('runs against the document the gateway publishes', async () => {
    const res = await stack.client().get('/openapi.json');
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(DOCUMENT)));
    expect(OPERATIONS.length).to.be.greaterThan(0);
  });

  for (const operation of OPERATIONS) {
    const name = `${operation.method.toUpperCase()} ${operation.path}`;
    const session = sessionRequirement(operation.view);
    const media = jsonBodyOf(operation);

    describe(name, () => {
      it('succeeds with its documented example, answering as documented', async () => {
        const client =
          session !== 'required'
            ? stack.client()
            : forStaff(operation)
              ? await staffMember(operation)
              : await customer();
        const example = withFreshEmails(exampleOf(media));
        await prepare(operation, name, example);
        const answer = await send(client, operation, example);
        expect(contract.problems(operation, answer), `${name} example`).to.deep.equal([]);
        if (answer.status < 300) return;
        // Optional members may name data a fresh stack lacks (another customer's referral
        // code, say); the required members alone must then succeed.
        const minimal = await send(client, operation, withFreshEmails(requiredOnly(example, media?.schema)));
        expect(contract.problems(operation, minimal), `${name} required members of the example`).to.deep.equal([]);
        expect(
          minimal.status,
          `${name}: the example answered ${answer.status} ${answer.text.slice(0, 300)}; its required ` +
            `members ${minimal.status} ${minimal.text.slice(0, 300)}`,
        ).to.be.within(200, 299);
      });

      if (session === 'required') {
        it('answers 401 in the Error shape without a session', async () => {
          const answer = await send(stack.client(), operation, withFreshEmails(exampleOf(media)));
          expect(answer.status).to.equal(401);
          expect(contract.problems(operation, answer)).to.deep.equal([]);
        });
      }

      if (media?.schema && resolve(media.schema).type === 'object') {
        const unreadable = {
          'text/plain': { body: 'plain text', headers: { 'content-type': 'text/plain' } },
          'an oversized body': {
            body: JSON.stringify('x'.repeat(200 * 1024)),
            headers: { 'content-type': 'application/json' },
          },
        };
        for (const [label, options] of Object.entries(unreadable)) {
          it(`answers ${label} with a documented client error in the Error shape`, async () => {
            const client =
              session !== 'required'
                ? stack.client()
                : forStaff(operation)
                  ? await staffMember(operation)
                  : await customer();
            const answer = await client.request(operation.method.toUpperCase(), requestPath(operation), options);
            expect(answer.status, answer.text).to.be.within(400, 499);
            expect(contract.problems(operation, answer)).to.deep.equal([]);
          });
        }

        // 400 where the operation documents it; login has one refusal for what cannot be credentials, 401.
        const refusal = operation.view.responses?.['400'] ? 400 : 401;
        it(`answers ${refusal} in the Error shape to a body that is not an object`, async () => {
          const client =
            session !== 'required'
              ? stack.client()
              : forStaff(operation)
                ? await staffMember(operation)
                : await customer();
          const answer = await send(client, operation, ['not', 'an', 'object']);
          expect(answer.status).to.equal(refusal);
          expect(contract.problems(operation, answer)).to.deep.equal([]);
        });
      }
    });
  }
});

/**
 * A root-level hook: it runs once after every test file of the run, so each answer any test
 * received through an HttpClient must have a status the description lists for its operation.
 */
after('every status the gateway answered during the run is documented', () => {
  const problems = undocumentedAnswers(DOCUMENT, recordedAnswers());
  expect(problems, `answers the OpenAPI description does not list:\n${problems.join('\n')}\n`).to.deep.equal([]);
});

describe('contract: the check that every answer of the run is documented', () => {
  const document = {
    ...DOCUMENT,
    paths: {
      '/things/{id}': { get: { responses: { '200': {}, '405': {} } }, post: { responses: { '2XX': {} } } },
      '/docs/': { get: { responses: { '200': {} } } },
    },
  };
  const check = (method: string, path: string, status: number) =>
    undocumentedAnswers(document, [{ method, path, status }]);

  it('accepts a status the operation lists, exactly or by its class', () => {
    expect(check('GET', '/things/7', 200)).to.deep.equal([]);
    expect(check('POST', '/things/7', 201)).to.deep.equal([]);
    expect(check('GET', '/docs', 200)).to.deep.equal([]);
  });

  it('names the operation and status the description does not list', () => {
    expect(check('GET', '/things/7', 503)).to.deep.equal(['GET /things/{id} answered 503, which it does not document']);
  });

  it('treats HEAD as the GET operation when the path documents no HEAD', () => {
    expect(check('HEAD', '/things/7', 200)).to.deep.equal([]);
    expect(check('HEAD', '/docs/', 404)).to.have.length(1);
  });

  it('wants the answer to a method the path does not offer documented on every operation of the path', () => {
    expect(check('DELETE', '/things/7', 405)).to.deep.equal([
      'DELETE /things/{id} (a method the path does not offer) answered 405, which POST /things/{id} does not document',
    ]);
  });

  it('matches paths case-sensitively, like the gateway, and ignores paths no operation has', () => {
    expect(check('GET', '/THINGS/7', 404)).to.deep.equal([]);
    expect(check('GET', '/things/7/more', 404)).to.deep.equal([]);
  });
});
