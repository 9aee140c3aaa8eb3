/** Which failures count as a store outage (503) and which stay internal errors (500). */
import { expect } from 'chai';
import { isStoreOutage } from '@storefront/errors';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });
const named = (name: string) => Object.assign(new Error('operation timed out'), { name });

describe('errors: store outages', () => {
  it('counts refused, reset, timed-out and lost connections, an exhausted pool and a Redis that gave up', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'PROTOCOL_CONNECTION_LOST',
      'ER_CON_COUNT_ERROR',
      'SQLITE_BUSY',
    ]) {
      expect(isStoreOutage(withCode(code)), code).to.equal(true);
    }
    expect(isStoreOutage(named('KnexTimeoutError'))).to.equal(true);
    expect(isStoreOutage(named('MaxRetriesPerRequestError'))).to.equal(true);
    expect(isStoreOutage(new Error('Connection is closed.'))).to.equal(true);
    expect(isStoreOutage(new Error('Command timed out'))).to.equal(true);
    expect(isStoreOutage(new Error('a query failed', { cause: withCode('ECONNREFUSED') }))).to.equal(true);
  });

  it('leaves constraint violations, bad SQL and non-errors as they are', () => {
    for (const code of ['ER_DUP_ENTRY', 'ER_PARSE_ERROR', 'SQLITE_CONSTRAINT_UNIQUE', 'ER_NO_SUCH_TABLE']) {
      expect(isStoreOutage(withCode(code)), code).to.equal(false);
    }
    expect(isStoreOutage(new Error('not a number: x'))).to.equal(false);
    expect(isStoreOutage('ECONNREFUSED')).to.equal(false);
    expect(isStoreOutage(undefined)).to.equal(false);
  });
});
