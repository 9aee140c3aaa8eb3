import { expect } from 'chai';
import { startStack, type Stack } from '@storefront/platform-testing';

// /api/health, /api/stock and /products.json are answered ahead of Express (kit/direct-routes.ts);
// every other form of their paths goes through Express. Both ways must answer alike.
describe('gateway: routes answered ahead of Express', () => {
  const securityHeaders = (headers: Headers) =>
    Object.fromEntries(
      [...headers].filter(
        ([name]) =>
          ![
            'date',
            'content-length',
            'content-type',
            'connection',
            'keep-alive',
            'cache-control',
            'etag',
            'allow',
            'retry-after',
          ].includes(name),
      ),
    );

  describe('with inventory and checkout up', () => {
    let stack: Stack;
    before(async () => {
      // products.json needs both: inventory's catalog and checkout's shipping rule.
      stack = await startStack({ services: ['inventory', 'checkout'] });
    });
    after(async () => stack?.stop());

    it('sends the same security headers as an answer that went through Express', async () => {
      const direct = await fetch(`${stack.gateway.url}/api/health`);
      const viaExpress = await fetch(`${stack.gateway.url}/api/version`);
      expect(direct.status).to.equal(200);
      expect(securityHeaders(direct.headers)).to.deep.equal(securityHeaders(viaExpress.headers));
      expect(direct.headers.get('content-security-policy')).to.be.a('string').and.contain("default-src 'self'");
      expect(direct.headers.get('strict-transport-security')).to.contain('max-age=');
      expect(direct.headers.get('x-powered-by')).to.equal(null);
    });

    it('answers a trailing slash and a query string through Express with the same body and headers', async () => {
      const direct = await fetch(`${stack.gateway.url}/api/stock`);
      for (const other of ['/api/stock/', '/api/stock?fields=all']) {
        const viaExpress = await fetch(`${stack.gateway.url}${other}`);
        expect(viaExpress.status, other).to.equal(200);
        expect(await viaExpress.json(), other).to.deep.equal(
          await (await fetch(`${stack.gateway.url}/api/stock`)).json(),
        );
        expect(securityHeaders(viaExpress.headers), other).to.deep.equal(securityHeaders(direct.headers));
        expect(viaExpress.headers.get('cache-control'), other).to.equal('no-store');
        expect(viaExpress.headers.get('content-type'), other).to.equal(direct.headers.get('content-type'));
      }
    });

    it('answers HEAD with the GET headers and no body', async () => {
      const get = await fetch(`${stack.gateway.url}/products.json`);
      const head = await fetch(`${stack.gateway.url}/products.json`, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(head.headers.get('etag')).to.equal(get.headers.get('etag'));
      expect(head.headers.get('content-length')).to.equal(String((await get.arrayBuffer()).byteLength));
      expect(await head.text()).to.equal('');
    });

    it('refuses other methods with 405 and Allow', async () => {
      const res = await fetch(`${stack.gateway.url}/api/health`, { method: 'DELETE' });
      expect(res.status).to.equal(405);
      expect(res.headers.get('allow')).to.equal('GET, HEAD');
      expect(await res.json()).to.deep.include({ success: false, error: 'method_not_allowed' });
    });
  });

  describe('with inventory down', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({ services: [] });
    });
    after(async () => stack?.stop());

    it('answers in the Error shape, the same both ways', async () => {
      const direct = await fetch(`${stack.gateway.url}/api/stock`);
      const viaExpress = await fetch(`${stack.gateway.url}/api/stock/`);
      expect(direct.status).to.be.within(502, 504);
      expect(viaExpress.status).to.equal(direct.status);
      const body = (await direct.json()) as { success: boolean; error: string };
      expect(body).to.include({ success: false });
      expect(body.error).to.be.a('string').and.not.empty;
      expect(await viaExpress.json()).to.deep.equal(body);
      expect(direct.headers.get('content-type')).to.equal(viaExpress.headers.get('content-type'));
      expect(direct.headers.get('retry-after')).to.equal(viaExpress.headers.get('retry-after'));
    });
  });
});
