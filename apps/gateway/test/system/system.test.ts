import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';
import { detailedReadiness } from '../../src/readiness';

describe('gateway: system endpoints and error shapes', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['inventory'] });
  });
  after(async () => stack?.stop());

  it('GET /api/health answers status ok with the current time', async () => {
    const res = await stack.client().get<{ status: string; time: string }>('/api/health');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    expect(Math.abs(Date.parse(res.body.time) - Date.now())).to.be.below(5000);
  });

  it('GET /api/version answers the build identifier', async () => {
    const res = await stack.client().get('/api/version');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ build: 'test-build' });
  });

  it('sets security headers and hides the framework', async () => {
    const res = await stack.client().get('/api/health');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('x-powered-by')).to.equal(null);
  });

  it('answers unknown paths with 404 in the Error shape', async () => {
    const res = await stack.client().get('/api/nope');
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.include({ success: false, error: 'not_found' });
    expect((res.body as { detail: string }).detail).to.be.a('string').and.not.empty;
  });

  it('answers /api/notify with 404', async () => {
    const res = await stack.client().post('/api/notify', { items: [] });
    expect(res.status).to.equal(404);
  });

  it('answers a wrong method with 405, an Allow header and the Error shape', async () => {
    const res = await stack.client().post('/api/health', {});
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('GET, HEAD');
    expect(res.body).to.deep.include({ success: false, error: 'method_not_allowed' });
  });

  it('answers a wrong method with 405 whatever its body, which is never read', async () => {
    const bodies = [
      { body: '{"a":', headers: { 'content-type': 'application/json' } },
      { body: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { body: JSON.stringify({ blob: 'x'.repeat(200 * 1024) }), headers: { 'content-type': 'application/json' } },
    ];
    for (const options of bodies) {
      const res = await stack.client().request('POST', '/api/health', options);
      expect(res.status, options.headers['content-type']).to.equal(405);
      expect(res.body).to.deep.include({ success: false, error: 'method_not_allowed' });
    }
  });

  it('matches paths case-sensitively: another spelling of a path is 404', async () => {
    for (const path of ['/API/health', '/api/Health', '/Api/Version', '/OPENAPI.JSON']) {
      const res = await stack.client().get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body, path).to.deep.include({ success: false, error: 'not_found' });
    }
    expect((await stack.client().get('/api/health')).status).to.equal(200);
  });

  // Signup takes a body and reads it before calling identity, which this stack does not run.
  it('answers malformed JSON with 400 in the Error shape', async () => {
    const res = await stack
      .client()
      .request('POST', '/api/auth/signup', { body: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.include({ success: false, error: 'malformed_json' });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await stack.client().request('POST', '/api/auth/signup', {
      body: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).to.equal(415);
    expect(res.body).to.deep.include({ success: false, error: 'unsupported_media_type' });
  });

  it('answers an oversized body with 413', async () => {
    const res = await stack.client().request('POST', '/api/auth/signup', {
      body: JSON.stringify({ blob: 'x'.repeat(200 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.include({ success: false, error: 'payload_too_large' });
  });

  it('answers /api/ready 503 in the Error shape without naming what stands behind the gateway', async () => {
    const res = await stack.client().get('/api/ready');
    // Only inventory runs in this stack, so the gateway is not ready.
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.equal({
      success: false,
      error: 'not_ready',
      detail: 'The service is not ready; try again shortly',
    });
    for (const name of ['identity', 'loyalty', 'checkout', 'inventory', 'unreachable', 'serving'])
      expect(res.text).to.not.contain(name);
  });

  it("reports each dependency's state on the admin port's /ready", async () => {
    const answer = await detailedReadiness(stack.gateway.readiness);
    expect(answer.status).to.equal(503);
    expect(answer.body).to.deep.equal({
      status: 'unavailable',
      services: { identity: 'unreachable', loyalty: 'unreachable', checkout: 'unreachable', inventory: 'serving' },
    });
  });
});

describe('gateway: readiness with every service up', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => stack?.stop());

  it('answers /api/ready 200 with a bare status, and the admin port lists every service serving', async () => {
    const res = await stack.client().get('/api/ready');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ status: 'ready' });
    expect(await detailedReadiness(stack.gateway.readiness)).to.deep.equal({
      status: 200,
      body: {
        status: 'ready',
        services: { identity: 'serving', loyalty: 'serving', checkout: 'serving', inventory: 'serving' },
      },
    });
  });
});

describe('gateway: GET /api/stock through gRPC from inventory', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ services: ['inventory'] });
  });
  after(async () => stack?.stop());

  it('lists limited SKUs only, as integers of at least 0', async () => {
    const res = await stack.client().get<Record<string, number>>('/api/stock');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ 'bpc-157-5mg': 40, 'bpc-157-10mg': 3, 'ipamorelin-10mg': 0 });
    expect(res.body).to.not.have.property('ghk-cu-50mg');
    for (const value of Object.values(res.body)) expect(Number.isInteger(value) && value >= 0).to.equal(true);
  });

  it('reflects the store: available is on hand minus reserved', async () => {
    await stack.inventory!.store.db('stock').where({ sku: 'tb-500-10mg' }).update({ reserved: 5 });
    const res = await stack.client().get<Record<string, number>>('/api/stock');
    expect(res.body['tb-500-10mg']).to.equal(7);
  });

  it('answers 503 in the Error shape when inventory is down', async () => {
    const lonely = await startStack({ services: [] });
    try {
      const res = await lonely.client().get('/api/stock');
      expect(res.status).to.equal(503);
      expect(res.body).to.deep.include({ success: false, error: 'service_unavailable' });
    } finally {
      await lonely.stop();
    }
  });
});
