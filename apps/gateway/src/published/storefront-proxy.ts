/**
 * The storefront proxy: with STOREFRONT_ORIGIN set, pages and assets the gateway does not serve
 * itself come from that origin. Reads only (GET, HEAD): every state change goes through the
 * validated JSON API. Pages stream through untouched, except that HTML carries `Vary: Accept`
 * and is converted to Markdown for a client that prefers it, within limits of size and time
 * (beyond them the page is served as HTML). No credential of the shop's reaches the origin (its
 * cookies, Authorization), the paths that carry them are never proxied, and the origin can neither
 * set the shop's cookies nor ask the browser for credentials.
 */
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import type { Options } from 'http-proxy-middleware';
import { errorBody } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import { cookieNameOf, isShopCookie } from '../kit/shop-cookies';
import { isHtml, markdownHeaders, prefersMarkdown, varyOnAccept, withAcceptInVary } from '../kit/markdown';
import type { MarkdownConverter } from '../kit/markdown-converter';

export interface StorefrontProxyOptions {
  origin: string;
  /** Longest wait for the origin: connecting, the response headers, or between body chunks. */
  timeoutMs: number;
  /** Converts HTML for clients that prefer Markdown. */
  markdown: MarkdownConverter;
  /** Largest page converted, as sent (compressed) and decompressed; larger pages are served as HTML. */
  maxHtmlBytes: number;
  logger: Logger;
}

/**
 * Pages read for conversion at once at most; more are served as HTML. With the size limit this
 * bounds the memory that conversions hold while the origin sends and the worker converts.
 */
const MAX_CONVERTING = 8;

/** Meaningful for one connection only (RFC 9110 section 7.6.1), so never forwarded. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Paths the shop answers itself, whatever the origin serves: the API, the agents' endpoint, the console (where the
 * browser sends `svc_staff`) and the account and back-in-stock pages whose links carry a token. A path here that no
 * route answered is the gateway's own 404, never the origin's page.
 */
const NEVER_PROXIED = /^\/(?:api|mcp|console|account\/reset-password|account\/verify-email|back-in-stock)(?:\/|$)/;

/**
 * Credentials for the gateway, never the origin's business: the customer's session travels as the
 * `svc_sess` cookie (the shop's cookies are stripped from Cookie below) or as `Authorization: Bearer` (on /mcp).
 */
const CREDENTIAL_REQUEST_HEADERS = ['authorization', 'proxy-authorization'];

/**
 * What the origin may not say under the gateway's name: a challenge would have the browser ask
 * the shopper for a password for this site, and Clear-Site-Data could wipe the session cookie.
 */
const CREDENTIAL_RESPONSE_HEADERS = [
  'www-authenticate',
  'proxy-authenticate',
  'authentication-info',
  'proxy-authentication-info',
  'clear-site-data',
];

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

export function createStorefrontProxy({
  origin,
  timeoutMs,
  markdown: converter,
  maxHtmlBytes,
  logger,
}: StorefrontProxyOptions): RequestHandler {
  // Required here, not at the top: only gateways with STOREFRONT_ORIGIN set carry the proxy.
  const { createProxyMiddleware } = require('http-proxy-middleware') as typeof import('http-proxy-middleware');
  const prepareRequest = (proxyReq: ClientRequest) => {
    for (const name of CREDENTIAL_REQUEST_HEADERS) proxyReq.removeHeader(name);
    withoutShopCookies(proxyReq);
    proxyReq.setTimeout(timeoutMs, () => proxyReq.destroy(new OriginTimeout(timeoutMs)));
  };
  const common: Options<Request, Response> = {
    target: origin,
    changeOrigin: true,
    xfwd: true,
  };
  const onError = (error: Error, req: Request, res: Response | Socket) => {
    logger.warn(
      { err: { message: error.message, code: (error as NodeJS.ErrnoException).code }, path: req.path },
      'storefront origin failed',
    );
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
      proxyReq: (proxyReq, req) => {
        prepareRequest(proxyReq);
        // Only encodings the client reads too: a page beyond the limits reaches it as sent.
        const encodings = Object.keys(DECODERS).filter((encoding) => req.acceptsEncodings(encoding) === encoding);
        proxyReq.setHeader('accept-encoding', encodings.length > 0 ? encodings.join(', ') : 'identity');
      },
      proxyRes: (proxyRes, req, res) => answerAsMarkdown(proxyRes, req, res),
      error: onError,
    },
  });

  let converting = 0;

  /**
   * Reads the page (up to maxHtmlBytes, as sent and decoded: reading and decoding stop there, so
   * a compression bomb is never inflated further), has the worker convert it, and answers the
   * Markdown. Any limit passed, or a failed conversion, answers the page as the origin sent it.
   */
  function answerAsMarkdown(proxyRes: IncomingMessage, req: Request, res: Response): void {
    sanitizeOriginHeaders(proxyRes.headers);
    const status = proxyRes.statusCode ?? 502;
    const encoding = String(proxyRes.headers['content-encoding'] ?? 'identity').toLowerCase();
    const decoder = encoding === 'identity' ? undefined : DECODERS[encoding];
    if (!isHtml(proxyRes.headers['content-type']) || (encoding !== 'identity' && !decoder)) {
      res.writeHead(status, proxyRes.headers as OutgoingHttpHeaders);
      proxyRes.pipe(res);
      return;
    }

    const refused =
      Number(proxyRes.headers['content-length'] ?? 0) > maxHtmlBytes
        ? 'too_large'
        : converting >= MAX_CONVERTING
          ? 'busy'
          : undefined;
    const inflater = refused ? undefined : decoder?.();
    const raw: Buffer[] = [];
    let rawBytes = 0;
    let rawEnded = false;
    let settled = false;
    /** The page as sent: what was read, then the rest of it as it arrives. */
    const asSent = (reason: string) => {
      settled = true;
      logger.warn({ path: req.path, reason, maxHtmlBytes }, 'storefront page served as HTML, not Markdown');
      proxyRes.removeListener('data', onRaw);
      inflater?.destroy();
      proxyRes.headers.vary = withAcceptInVary(proxyRes.headers.vary);
      res.writeHead(status, proxyRes.headers as OutgoingHttpHeaders);
      for (const chunk of raw) res.write(chunk);
      if (rawEnded) res.end();
      else proxyRes.pipe(res);
    };
    if (refused) return asSent(refused);
    converting += 1;
    let released = false;
    const release = () => {
      if (!released) converting -= 1;
      released = true;
    };
    res.once('close', () => {
      release();
      if (!settled) {
        settled = true;
        inflater?.destroy();
        proxyRes.destroy();
      }
    });

    const decoded: Buffer[] = [];
    let decodedBytes = 0;
    function onRaw(chunk: Buffer) {
      raw.push(chunk);
      rawBytes += chunk.length;
      if (rawBytes > maxHtmlBytes) return asSent('too_large');
      if (inflater && !inflater.write(chunk)) {
        proxyRes.pause();
        inflater.once('drain', () => proxyRes.resume());
      }
    }
    proxyRes.on('data', onRaw);
    proxyRes.on('error', (error) => {
      if (settled) return;
      settled = true;
      inflater?.destroy();
      res.destroy(error);
    });
    proxyRes.on('end', () => {
      rawEnded = true;
      if (settled) return;
      if (inflater) inflater.end();
      else void convert(Buffer.concat(raw));
    });
    if (inflater) {
      inflater.on('data', (chunk: Buffer) => {
        if (settled) return;
        decoded.push(chunk);
        decodedBytes += chunk.length;
        if (decodedBytes > maxHtmlBytes) asSent('too_large');
      });
      inflater.on('error', () => {
        if (!settled) asSent('undecodable');
      });
      inflater.on('end', () => {
        if (!settled) void convert(Buffer.concat(decoded));
      });
    }

    async function convert(bytes: Buffer) {
      settled = true;
      const result = await converter.convert(decodeText(bytes, proxyRes.headers['content-type']));
      release();
      if (res.destroyed || res.writableEnded) return;
      if (!('markdown' in result)) {
        asSent(result.failed);
        return;
      }
      // The Markdown is another representation: the origin's validators and length do not apply.
      for (const name of ['content-type', 'content-length', 'content-encoding', 'etag', 'content-md5'])
        delete proxyRes.headers[name];
      res.status(status);
      for (const [name, value] of Object.entries(proxyRes.headers)) if (value !== undefined) res.setHeader(name, value);
      res.set(markdownHeaders(result.markdown));
      varyOnAccept(res);
      res.send(Buffer.from(result.markdown, 'utf8'));
    }
  }

  return (req, res, next) => {
    if (NEVER_PROXIED.test(req.path)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      res
        .status(405)
        .json(
          errorBody(
            'method_not_allowed',
            `${req.method} is not allowed on ${req.path}; the storefront is read through GET and HEAD`,
          ),
        );
      return;
    }
    void (prefersMarkdown(req) ? markdown : streaming)(req, res, next);
  };
}

function withoutShopCookies(proxyReq: ClientRequest): void {
  const cookie = proxyReq.getHeader('cookie');
  if (typeof cookie !== 'string') return;
  const kept = cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !isShopCookie(cookieNameOf(pair)));
  if (kept.length > 0) proxyReq.setHeader('cookie', kept.join('; '));
  else proxyReq.removeHeader('cookie');
}

/** Drops hop-by-hop headers, credential challenges and any attempt of the origin to set one of the shop's cookies. */
function sanitizeOriginHeaders(headers: IncomingHttpHeaders): void {
  const listed = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...CREDENTIAL_RESPONSE_HEADERS, ...listed]) delete headers[name];
  const cookies = headers['set-cookie']?.filter((line) => !isShopCookie(cookieNameOf(line.split(';', 1)[0]!)));
  if (cookies && cookies.length > 0) headers['set-cookie'] = cookies;
  else delete headers['set-cookie'];
}

function decodeText(bytes: Buffer, contentType: string | undefined): string {
  const charset = /charset="?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return bytes.toString('utf8');
  }
}
