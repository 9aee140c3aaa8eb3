import type { Request } from 'express';

/** The value of the first cookie of that name the request carries (browsers send the most specific path first). */
export function cookieValue(req: Request, name: string): string | undefined {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
