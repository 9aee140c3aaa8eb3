/**
 * JSON bodies only, parsed by the routes that take one (after any session check, so a request
 * without a session is 401 whatever its body): a body of another media type is 415, and the
 * size limit is 413, both through the error handler.
 */
import express, { type RequestHandler } from 'express';
import { BodyRefused } from './errors';

export function jsonBody(limitBytes: number): RequestHandler {
  const parse = express.json({ limit: limitBytes, strict: false });
  return (req, res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) return next(new BodyRefused(415, 'unsupported_media_type', 'Request body must be application/json'));
    parse(req, res, next);
  };
}
