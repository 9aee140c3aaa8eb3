/**
 * The one validation layer at the edge: request bodies and queries are checked against the
 * component schemas of the published OpenAPI document. Failures are 400 Errors naming the field.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RequestHandler } from 'express';
import { invalidArgument } from '@storefront/errors';
import type { ApiArea, JsonSchema } from './api-docs';

interface QueryParameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}

export class RequestValidator {
  private readonly ajv: Ajv2020;
  /** Query values arrive as strings; this one turns `limit=10` into the integer the schema describes. */
  private readonly queryAjv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: ApiArea['paths'];

  constructor(areas: ApiArea[]) {
    this.ajv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: false });
    addFormats(this.ajv);
    this.queryAjv = new Ajv2020({ allErrors: false, strict: false, coerceTypes: true });
    addFormats(this.queryAjv);
    const schemas = Object.assign({}, ...areas.map((area) => area.schemas));
    this.ajv.addSchema({ $id: 'api', components: { schemas } });
    this.paths = Object.assign({}, ...areas.map((area) => area.paths));
  }

  private validatorFor(schemaName: string): ValidateFunction {
    let validate = this.compiled.get(schemaName);
    if (!validate) {
      validate = this.ajv.getSchema(`api#/components/schemas/${schemaName}`);
      if (!validate) throw new Error(`no component schema named ${schemaName}`);
      this.compiled.set(schemaName, validate);
    }
    return validate;
  }

  /** Throws a 400 AppError naming the first problem. */
  check(schemaName: string, value: unknown, where: 'body' | 'query' | 'arguments'): void {
    const validate = this.validatorFor(schemaName);
    if (!validate(value)) throw invalidArgument(describe(validate.errors?.[0], where));
  }

  /** A check of a self-contained schema (references inlined), failing with the same 400 as the edge. */
  checker(schema: JsonSchema, where: 'body' | 'query' | 'arguments'): (value: unknown) => void {
    const validate = this.ajv.compile(schema);
    return (value) => {
      if (!validate(value)) throw invalidArgument(describe(validate.errors?.[0], where));
    };
  }

  body(schemaName: string): RequestHandler {
    this.validatorFor(schemaName);
    return (req, _res, next) => {
      // No body at all counts as an empty object; a JSON `null` body is not an object.
      this.check(schemaName, req.body === undefined ? {} : req.body, 'body');
      next();
    };
  }

  /** The query string against the `in: query` parameters the document declares for the operation. */
  queryParameters(path: string, method: string): RequestHandler {
    const check = this.queryCheck(path, method);
    return (req, _res, next) => {
      check(req.query);
      next();
    };
  }

  /**
   * Throws the 400 naming what is wrong when `query` (parsed as Express parses it) breaks the operation's query
   * parameters.
   */
  queryCheck(path: string, method: string): (query: object) => void {
    const operation = this.paths[path]?.[method] as { parameters?: QueryParameter[] } | undefined;
    if (!operation) throw new Error(`no operation ${method.toUpperCase()} ${path}`);
    const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
    const validate = this.queryAjv.compile({
      type: 'object',
      required: parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
      properties: Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.schema ?? {}])),
    });
    return (query) => {
      if (!validate({ ...query })) throw invalidArgument(describe(validate.errors?.[0], 'query'));
    };
  }
}

function describe(error: ErrorObject | undefined, where: string): string {
  if (!error) return `${where} is invalid`;
  const field = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : where;
  switch (error.keyword) {
    case 'required':
      return `${field === where ? '' : `${field}.`}${(error.params as { missingProperty: string }).missingProperty} is required`;
    case 'additionalProperties':
      return `${field === where ? '' : `${field}.`}${(error.params as { additionalProperty: string }).additionalProperty} is not an allowed field`;
    case 'type':
      return field === where
        ? `${where} must be a JSON ${(error.params as { type: string }).type}`
        : `${field} ${error.message}`;
    default:
      return `${field} ${error.message}`;
  }
}
