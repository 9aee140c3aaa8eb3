/**
 * What one `GET /api/auth/me` costs identity's store: a session the gateway has not cached is
 * resolved once, and the profile that resolution brought back is the one answered, not read
 * again. Counted as the SQL statements identity's store runs.
 */
import { expect } from 'chai';
import type { Knex } from '@storefront/db';
import { startStack, type Stack } from '@storefront/platform-testing';
import { startForSuite } from '@storefront/testing';
import { FAST_ARGON2, signUp } from './auth-fixtures';

/** The SQL a store runs while `work` does. */
async function statementsDuring(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const record = (query: { sql: string }) => seen.push(query.sql);
  db.on('query', record);
  try {
    await work();
  } finally {
    db.off('query', record);
  }
  return seen;
}

describe('gateway: the reads behind /api/auth/me', () => {
  let stack: Stack;
  // No session cache: every request resolves its session with identity.
  startForSuite(
    () => startStack({ services: ['identity', 'loyalty'], env: { ...FAST_ARGON2, SESSION_CACHE_TTL_MS: '0' } }),
    (started) => (stack = started),
  );

  it('reads the account once when it resolves the session, and the profile it answers is that one', async () => {
    const client = stack.client();
    const { profile } = await signUp(client);
    let answer: { status: number; body: unknown } | undefined;
    const statements = await statementsDuring(stack.identity!.db, async () => {
      answer = await client.get('/api/auth/me');
    });
    expect(answer!.status).to.equal(200);
    expect((answer!.body as { user: { profile: unknown } }).user.profile).to.deep.equal(profile);
    // The mail sender polls identity's outbox on its own schedule; that is no part of the request.
    const requestStatements = statements.filter((sql) => !/[`"]?mail_outbox[`"]?/i.test(sql));
    const userReads = requestStatements.filter((sql) => /from [`"]?users[`"]?/i.test(sql));
    expect(userReads, statements.join('\n')).to.have.length(1);
    // Sessions live in SQL without Redis: one more statement, the session itself.
    expect(requestStatements, statements.join('\n')).to.have.length(stack.stores.redisUrl ? 1 : 2);
  });
});
