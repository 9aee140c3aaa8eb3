/**
 * The storefront proxy: with STOREFRONT_ORIGIN set, pages and assets the gateway does not serve
 * itself come from that origin. Reads only (GET, HEAD): every state change goes through the
 * validated JSON API. Pages stream through untouched, except that HTML carries `Vary: Accept`
 * and is converted to Markdown for a client that prefers it. The session cookie never reaches
 * the origin, and the origin cannot set it.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import type { Options } from 'http-proxy-middleware';
import { errorBody } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import { sessionCookieValue } from '../http/session';
import { htmlToMarkdown, isHtml, markdownHeaders, prefersMarkdown, varyOnAccept, withAcceptInVary } from './markdown';

export interface StorefrontProxyOptions {
  origin: string;
  /** Longest wait for the origin: connecting, the response headers, or between body chunks. */
  timeoutMs: number;
  logger: Logger;
}

/** Meaningful for one connection only (RFC 9110 section 7.6.1), so never forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

/** The encodings the Markdown conversion can decode; the origin is asked for these only. */
const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

class OriginTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`the storefront origin did not answer within ${timeoutMs} ms`);
  }
}

export function createStorefrontProxy({ origin, timeoutMs, logger }: StorefrontProxyOptions): RequestHandler {
  // Required here, not at the top: only gateways with STOREFRONT_ORIGIN set carry the proxy.
  const { createProxyMiddleware } = require('http-proxy-middleware') as typeof import('http-proxy-middleware');
  const prepareRequest = (proxyReq: ClientRequest) => {
    withoutSessionCookie(proxyReq);
    proxyReq.setTimeout(timeoutMs, () => proxyReq.destroy(new OriginTimeout(timeoutMs)));
  };
  const common: Options<Request, Response> = {
    target: origin,
    changeOrigin: true,
    xfwd: true,
  };
  const onError = (error: Error, req: Request, res: Response | Socket) => {
    logger.warn({ err: { message: error.message, code: (error as NodeJS.ErrnoException).code }, path: req.path }, 'storefront origin failed');
    if (!('status' in res) || res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof OriginTimeout) {
      res.status(504).json(errorBody('storefront_timeout', `The storefront did not answer within ${timeoutMs} ms`));
    } else {
      res.status(502).json(errorBody('storefront_unavailable', 'The storefront is not reachable'));
    }
  };

  const streaming = createProxyMiddleware<Request, Response>({
    ...common,
    autoRewrite: true,
    on: {
      proxyReq: prepareRequest,
      proxyRes: (proxyRes) => {
        sanitizeOriginHeaders(proxyRes.headers);
        if (isHtml(proxyRes.headers['content-type'])) proxyRes.headers.vary = withAcceptInVary(proxyRes.headers.vary);
      },
      error: onError,
    },
  });

  const markdown = createProxyMiddleware<Request, Response>({
    ...common,
    // A HEAD asked as Markdown needs the page to know its Markdown headers; Node still sends no body.
    method: 'GET',
    selfHandleResponse: true,
    on: {
      proxyReq: (proxyReq) => {
        prepareRequest(proxyReq);
        proxyReq.setHeader('accept-encoding', Object.keys(DECODERS).join(', '));
      },
      proxyRes: (proxyRes, _req, res) => answerAsMarkdown(proxyRes, res),
      error: onError,
    },
  });

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      res.status(405).json(errorBody('method_not_allowed', `${req.method} is not allowed on ${req.path}; the storefront is read through GET and HEAD`));
      return;
    }
    void (prefersMarkdown(req) ? markdown : streaming)(req, res, next);
  };
}

function withoutSessionCookie(proxyReq: ClientRequest): void {
  const cookie = proxyReq.getHeader('cookie');
  if (typeof cookie !== 'string') return;
  const kept = cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && sessionCookieValue(pair) === undefined);
  if (kept.length > 0) proxyReq.setHeader('cookie', kept.join('; '));
  else proxyReq.removeHeader('cookie');
}

/** Drops hop-by-hop headers and any attempt of the origin to set the session cookie. */
function sanitizeOriginHeaders(headers: IncomingHttpHeaders): void {
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...listed]) delete headers[name];
  const cookies = headers['set-cookie']?.filter((line) => sessionCookieValue(line.split(';', 1)[0]!) === undefined);
  if (cookies && cookies.length > 0) headers['set-cookie'] = cookies;
  else delete headers['set-cookie'];
}

function answerAsMarkdown(proxyRes: IncomingMessage, res: Response): void {
  sanitizeOriginHeaders(proxyRes.headers);
  const status = proxyRes.statusCode ?? 502;
  const encoding = String(proxyRes.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder = encoding === 'identity' ? undefined : DECODERS[encoding];
  if (!isHtml(proxyRes.headers['content-type']) || (encoding !== 'identity' && !decoder)) {
    res.writeHead(status, proxyRes.headers as OutgoingHttpHeaders);
    proxyRes.pipe(res);
    return;
  }
  const chunks: Buffer[] = [];
  const body: Readable = decoder ? proxyRes.pipe(decoder()) : proxyRes;
  body.on('data', (chunk: Buffer) => chunks.push(chunk));
  body.on('error', (error) => res.destroy(error));
  body.on('end', () => {
    const html = decodeText(Buffer.concat(chunks), proxyRes.headers['content-type']);
    const markdown = htmlToMarkdown(html);
    // The Markdown is another representation: the origin's validators and length do not apply.
    for (const name of ['content-type', 'content-length', 'content-encoding', 'etag', 'content-md5']) delete proxyRes.headers[name];
    res.status(status);
    for (const [name, value] of Object.entries(proxyRes.headers)) if (value !== undefined) res.setHeader(name, value);
    res.set(markdownHeaders(markdown));
    varyOnAccept(res);
    res.send(Buffer.from(markdown, 'utf8'));
  });
}

function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const charset = /charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}
