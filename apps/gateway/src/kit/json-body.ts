/**
 * JSON bodies only, parsed by the routes that take one (after any session check, so a request
 * without a session is 401 whatever its body): a body of another media type is 415, and the
 * size limit is 413, both through the error handler.
 */
import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
import { BodyRefused } from './errors';

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: false });
  return (req, res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json'))
      return next(new BodyRefused(415, 'unsupported_media_type', 'Request body must be application/json'));
    parse(req, res, next);
  };
}

/**
 * Whether a request's body is plain UTF-8 JSON of a declared length within `limitBytes`: the one
 * form a route answered ahead of Express reads itself (readJsonBody). Anything else (another media
 * type or charset, a compressed or chunked body, an empty or oversized one) goes on to Express,
 * whose body parser answers it as for every other route.
 */
export function takesPlainJson(limitBytes: number): (request: IncomingMessage) => boolean {
  return ({ headers }) => {
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= limitBytes) || headers['transfer-encoding'] !== undefined) return false;
    if (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity')
      return false;
    const [type, ...parameters] = (headers['content-type'] ?? '').split(';');
    if (type!.trim().toLowerCase() !== 'application/json') return false;
    return parameters.every((parameter) => /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(parameter));
  };
}

/**
 * The body of a request `takesPlainJson` took, parsed as express.json parses it: any JSON value,
 * a byte-order mark dropped. Malformed JSON and a body cut short are the same refusals.
 */
export function readJsonBody(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('close', () => {
      if (!request.complete)
        reject(new BodyRefused(400, 'request_aborted', 'The request body was not received completely'));
    });
    request.on('error', reject);
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
      } catch {
        reject(new BodyRefused(400, 'malformed_json', 'Request body is not valid JSON'));
      }
    });
  });
}
