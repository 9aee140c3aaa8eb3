import { Writable } from 'node:stream';
import { expect } from 'chai';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createLogger, logFormat, redactSecrets } from '@storefront/logging';

/** A logger whose JSON lines are kept for the test to read. */
function capturedLogger(level = 'info') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return {
    logger: createLogger('test', level, sink),
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('logging: trace correlation', () => {
  // The SDK installs a context manager in real processes; here one is installed for these tests only.
  before(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => {
    context.disable();
  });

  const spanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  };

  it('puts the active trace and span ids on every line, across awaits', async () => {
    const { logger, records } = capturedLogger();
    await context.with(trace.setSpanContext(context.active(), spanContext), async () => {
      logger.info('before');
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.warn({ sku: 'x' }, 'after');
    });
    for (const record of records()) {
      expect(record).to.include({ trace_id: spanContext.traceId, span_id: spanContext.spanId, service: 'test' });
    }
    expect(records()).to.have.length(2);
  });

  it('adds no ids outside a trace', () => {
    const { logger, records } = capturedLogger();
    logger.info('outside');
    context.with(trace.setSpanContext(context.active(), { ...spanContext, traceId: '0'.repeat(32) }), () =>
      logger.info('invalid context'),
    );
    for (const record of records()) expect(record).to.not.have.any.keys('trace_id', 'span_id');
  });
});

describe('logging: redaction', () => {
  const password = 'correct-horse-battery-7';
  const cookie = 'svc_sess=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0';

  it('never writes a password, cookie, bearer token, caller or service token, wherever it sits', () => {
    const { logger, lines, records } = capturedLogger();
    logger.info({ password, email: 'a@example.com' }, 'top level');
    logger.info({ body: { password, newPassword: password, currentPassword: password } }, 'nested');
    logger.info(
      {
        req: {
          headers: {
            cookie,
            authorization: `Bearer ${password}`,
            'x-caller-token': password,
            'x-service-token': password,
          },
          body: { password },
        },
      },
      'request',
    );
    logger.info({ res: { headers: { 'set-cookie': [`${cookie}; HttpOnly`] } } }, 'response');
    logger.info({ headers: { cookie, 'set-cookie': cookie } }, 'bare headers');
    logger.info({ provider: { apiKey: password } }, 'provider');

    expect(lines).to.have.length(6);
    const all = lines.join('\n');
    expect(all).to.not.include(password);
    expect(all).to.not.include('Zm9vYmFy');
    expect(all.match(/\[redacted\]/g)).to.have.length.of.at.least(11);
    // What is not secret stays readable.
    expect(records()[0]).to.include({ email: 'a@example.com', msg: 'top level' });
  });

  it('redacts inside arrays, capitalised header names and errors, and keeps an error an error', () => {
    const { logger, lines, records } = capturedLogger();
    const error = Object.assign(new Error('provider refused'), {
      config: { headers: { Authorization: `Bearer ${password}` } },
    });
    logger.error({ err: error }, 'call failed');
    logger.info({ attempts: [{ password }, { Cookie: cookie }] }, 'list');
    expect(lines.join('\n')).to.not.include(password);
    expect(lines.join('\n')).to.not.include('Zm9vYmFy');
    const [failed] = records() as Array<{ err: { type: string; message: string; stack: string } }>;
    expect(failed!.err).to.include({ type: 'Error', message: 'provider refused' });
    expect(failed!.err.stack).to.match(/^Error: provider refused/);
  });

  it('leaves an object without secrets untouched', () => {
    const line = { method: 'GET', route: '/api/stock', nested: { status: 200, list: [1, { sku: 'a' }] } };
    expect(redactSecrets(line)).to.equal(line);
  });
});

describe('logging: line format', () => {
  it('writes the level as a word on JSON lines', () => {
    const { logger, records } = capturedLogger('debug');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(records().map((record) => record.level)).to.deep.equal(['debug', 'info', 'warn', 'error']);
  });

  it('is readable on a terminal outside production, JSON in production, under a pipe or if LOG_FORMAT says so', () => {
    expect(logFormat({}, true)).to.equal('pretty');
    expect(logFormat({ NODE_ENV: 'development' }, true)).to.equal('pretty');
    expect(logFormat({}, false)).to.equal('json');
    expect(logFormat({ NODE_ENV: 'production' }, true)).to.equal('json');
    expect(logFormat({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, false)).to.equal('pretty');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).to.equal('json');
    expect(() => logFormat({ LOG_FORMAT: 'text' }, true)).to.throw('LOG_FORMAT must be json or pretty, not "text"');
  });
});
