/**
 * The one validation layer at the edge: request bodies, queries and tool arguments are checked against the schemas
 * the OpenAPI document publishes (kit/schema.ts). Failures are 400 Errors naming the field.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RequestHandler } from 'express';
import { invalidArgument } from '@storefront/errors';
import { PLAIN_TEXT_PATTERN } from '@storefront/formats';
import { COMPONENTS_PREFIX, componentOf, type TSchema } from './schema';

/** An operation's parameter as the document describes it. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema?: TSchema;
  example?: unknown;
}

/** Where a checked value came from, as a refusal names it. */
type Where = 'body' | 'query' | 'arguments';

/** The schema the document of the components' references is registered under. */
const DOCUMENT_ID = 'api';

export class RequestValidator {
  private readonly ajv: Ajv2020;
  /** Query values arrive as strings; this one turns `limit=10` into the integer the schema describes. */
  private readonly queryAjv: Ajv2020;
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  /** `components`: every named schema a checked schema may refer to (the document's). */
  constructor(components: Record<string, unknown>) {
    this.ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false });
    addFormats(this.ajv);
    this.queryAjv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: true });
    addFormats(this.queryAjv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: components } });
  }

  private validatorFor(schema: object): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      const named = componentOf(schema);
      validate = named
        ? this.ajv.getSchema(`${DOCUMENT_ID}${COMPONENTS_PREFIX}${named.name}`)
        : this.ajv.compile(resolvable(schema));
      if (!validate) throw new Error(`no component schema named ${named!.name}`);
      this.compiled.set(schema, validate);
    }
    return validate;
  }

  /** Throws a 400 AppError naming the first problem. */
  check(schema: object, value: unknown, where: Where): void {
    const validate = this.validatorFor(schema);
    if (!validate(value)) throw invalidArgument(describe(validate.errors?.[0], where));
  }

  /** The same check, compiled on its first use: start-up compiles none of the edge's schemas. */
  checker(schema: object, where: Where): (value: unknown) => void {
    let validate: ValidateFunction | undefined;
    return (value) => {
      validate ??= this.validatorFor(schema);
      if (!validate(value)) throw invalidArgument(describe(validate.errors?.[0], where));
    };
  }

  /** Middleware checking a parsed JSON body. */
  body(schema: object): RequestHandler {
    const check = this.checker(schema, 'body');
    return (req, _res, next) => {
      // No body at all counts as an empty object; a JSON `null` body is not an object.
      check(req.body === undefined ? {} : req.body);
      next();
    };
  }

  /** Middleware checking the query string against an operation's `in: query` parameters. */
  queryParameters(parameters: readonly Parameter[]): RequestHandler {
    const check = this.queryCheck(parameters);
    return (req, _res, next) => {
      check(req.query);
      next();
    };
  }

  /** Throws the 400 naming what is wrong when `query` (parsed as Express parses it) breaks the query parameters. */
  queryCheck(parameters: readonly Parameter[]): (query: object) => void {
    const inQuery = parameters.filter((parameter) => parameter.in === 'query');
    let validate: ValidateFunction | undefined;
    return (query) => {
      validate ??= this.queryAjv.compile({
        type: 'object',
        required: inQuery.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        properties: Object.fromEntries(inQuery.map((parameter) => [parameter.name, parameter.schema ?? {}])),
      });
      if (!validate({ ...query })) throw invalidArgument(describe(validate.errors?.[0], 'query'));
    };
  }
}

/** The schema with its references pointed at the document registered with the validator. */
function resolvable(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replaceAll(`"${COMPONENTS_PREFIX}`, `"${DOCUMENT_ID}${COMPONENTS_PREFIX}`));
}

function describe(error: ErrorObject | undefined, where: string): string {
  if (!error) return `${where} is invalid`;
  const field = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : where;
  switch (error.keyword) {
    case 'required':
      return (
        `${field === where ? '' : `${field}.`}${(error.params as { missingProperty: string }).missingProperty} ` +
        'is required'
      );
    case 'additionalProperties':
      return (
        `${field === where ? '' : `${field}.`}${(error.params as { additionalProperty: string }).additionalProperty} ` +
        'is not an allowed field'
      );
    case 'type':
      return field === where
        ? `${where} must be a JSON ${(error.params as { type: string }).type}`
        : `${field} ${error.message}`;
    case 'pattern':
      return (error.params as { pattern: string }).pattern === PLAIN_TEXT_PATTERN
        ? `${field} must not contain control characters (line breaks, tabs and the like)`
        : `${field} ${error.message}`;
    default:
      return `${field} ${error.message}`;
  }
}
