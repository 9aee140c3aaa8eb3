/**
 * JSON bodies only: a state-changing request with a body of another media type is 415, and the
 * size limit turns into 413 through the error handler.
 */
import express, { type RequestHandler } from 'express';
import { errorBody } from '@storefront/errors';

export function jsonBody(limitBytes: number): RequestHandler[] {
  const requireJson: RequestHandler = (req, res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (hasBody && !req.is('application/json')) {
      res.status(415).json(errorBody('unsupported_media_type', 'Request body must be application/json'));
      return;
    }
    next();
  };
  return [requireJson, express.json({ limit: limitBytes, strict: false })];
}
